/// Builds a response's head from the header lines libcurl hands over one at a time (status
/// line, header fields, blank line; interim 1xx responses first, each with its own blank line).
/// Pure, and frugal: it runs for every header of every response.
struct ResponseHeadParser {
    private var status = 0
    private var version = ""
    private var headers: [ResponseHead.HeaderLine] = []

    /// Takes one line as delivered (with its CR LF or LF); returns the head when `line` is the
    /// blank line that ends a final (non-1xx) response.
    ///
    /// Lines are split on bytes: `:`, CR, LF, space and tab are single bytes that never occur
    /// inside a multi-byte UTF-8 character, so a name or value with non-ASCII bytes is cut at the
    /// same places and decoded afterwards. A status line (whatever bytes its reason phrase has)
    /// starts a new response; a line without a colon is ignored.
    mutating func feed(_ line: UnsafeRawBufferPointer) -> ResponseHead? {
        if line.count >= 5, line[0] == UInt8(ascii: "H"), line[1] == UInt8(ascii: "T"), line[2] == UInt8(ascii: "T"),
            line[3] == UInt8(ascii: "P"), line[4] == UInt8(ascii: "/")
        {
            statusLine(line)
            return nil
        }
        var start = 0
        var end = line.count
        while start < end, line[start] == UInt8(ascii: "\r") || line[start] == UInt8(ascii: "\n") { start += 1 }
        while end > start, line[end - 1] == UInt8(ascii: "\r") || line[end - 1] == UInt8(ascii: "\n") { end -= 1 }
        if start == end {
            guard status >= 200 else { return nil }  // end of an interim response
            return ResponseHead(status: status, headers: headers, version: version)
        }
        guard let colon = line[start..<end].firstIndex(of: UInt8(ascii: ":")) else { return nil }
        headers.append(.init(name: Self.trimmed(line, start, colon), value: Self.trimmed(line, colon + 1, end)))
        return nil
    }

    /// `HTTP/x[.y] NNN reason`: a new response (interim 1xx, or the final one) starts over. A
    /// status that is not three digits is 0 (never final).
    private mutating func statusLine(_ line: UnsafeRawBufferPointer) {
        var i = 5
        while i < line.count, line[i] != UInt8(ascii: " "), line[i] != UInt8(ascii: "\r") { i += 1 }
        version = String(decoding: UnsafeRawBufferPointer(rebasing: line[5..<i]), as: UTF8.self)
        while i < line.count, line[i] == UInt8(ascii: " ") { i += 1 }
        var code = 0
        var digits = 0
        while i < line.count, digits < 3, line[i] >= UInt8(ascii: "0"), line[i] <= UInt8(ascii: "9") {
            code = code * 10 + Int(line[i] - UInt8(ascii: "0"))
            digits += 1
            i += 1
        }
        status = digits == 3 ? code : 0
        headers = []
        headers.reserveCapacity(16)
    }

    /// `line[from..<to]` without its leading and trailing spaces and tabs, decoded as UTF-8.
    private static func trimmed(_ line: UnsafeRawBufferPointer, _ from: Int, _ to: Int) -> String {
        var a = from
        var b = to
        while a < b, line[a] == UInt8(ascii: " ") || line[a] == UInt8(ascii: "\t") { a += 1 }
        while b > a, line[b - 1] == UInt8(ascii: " ") || line[b - 1] == UInt8(ascii: "\t") { b -= 1 }
        return String(decoding: UnsafeRawBufferPointer(rebasing: line[a..<b]), as: UTF8.self)
    }
}
