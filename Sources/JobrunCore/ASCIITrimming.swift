extension Substring {
    /// The text without the leading and trailing bytes in `bytes` (ASCII only; by default spaces
    /// and tabs, HTTP's optional whitespace). FoundationEssentials has no `trimmingCharacters`.
    /// Walks the UTF-8 view in place, without copying.
    public func trimmingASCII(_ bytes: [UInt8] = [0x20, 0x09]) -> String {
        let u = utf8
        var start = u.startIndex
        var end = u.endIndex
        while start < end, bytes.contains(u[start]) { u.formIndex(after: &start) }
        while start < end, bytes.contains(u[u.index(before: end)]) { u.formIndex(before: &end) }
        return String(self[start..<end])
    }
}

extension String {
    /// ``Substring/trimmingASCII(_:)`` of the whole string.
    public func trimmingASCII(_ bytes: [UInt8] = [0x20, 0x09]) -> String {
        self[...].trimmingASCII(bytes)
    }
}
