extension StringProtocol {
    /// The text without the leading and trailing bytes in `bytes` (ASCII only; by default spaces
    /// and tabs, HTTP's optional whitespace). FoundationEssentials has no `trimmingCharacters`.
    public func trimmingASCII(_ bytes: [UInt8] = [0x20, 0x09]) -> String {
        let u = Array(utf8)
        var start = 0
        var end = u.count
        while start < end, bytes.contains(u[start]) { start += 1 }
        while end > start, bytes.contains(u[end - 1]) { end -= 1 }
        return String(decoding: u[start..<end], as: UTF8.self)
    }
}
