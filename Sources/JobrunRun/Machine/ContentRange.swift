import JobrunCore

/// `Content-Range: bytes START-END/TOTAL` (TOTAL may be `*`).
struct ContentRange: Hashable {
    var start: ByteCount
    var end: ByteCount
    var total: ByteCount?

    init?(_ text: String) {
        let t = text.trimmingASCII()
        guard t.hasPrefix("bytes ") else { return nil }
        let rest = t.dropFirst(6)
        let parts = rest.split(separator: "/", maxSplits: 1)
        guard parts.count == 2 else { return nil }
        let span = parts[0].split(separator: "-", maxSplits: 1)
        guard span.count == 2, let s = Int64(decimalDigits: span[0]), let e = Int64(decimalDigits: span[1]), s <= e else { return nil }
        start = ByteCount(s)
        end = ByteCount(e)
        total = parts[1] == "*" ? nil : Int64(decimalDigits: parts[1]).map { ByteCount($0) }
        if parts[1] != "*" && total == nil { return nil }
    }
}
