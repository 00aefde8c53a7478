/// Standard base64 (RFC 4648, `+/`, `=` padding), as minisign and signify write keys and
/// signatures.
enum Base64 {
    /// The bytes `text` encodes; `nil` for anything but whole, padded, standard base64.
    static func decode(_ text: some StringProtocol) -> [UInt8]? {
        let input = Array(text.utf8)
        guard input.count % 4 == 0 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(input.count / 4 * 3)
        var k = 0
        while k < input.count {
            var values: [UInt8] = []
            var padding = 0
            for c in input[k..<(k + 4)] {
                if c == UInt8(ascii: "=") {
                    padding += 1
                    values.append(0)
                    continue
                }
                guard padding == 0, let v = value(c) else { return nil }
                values.append(v)
            }
            // Padding only at the very end, two at most.
            guard padding <= 2, padding == 0 || k + 4 == input.count else { return nil }
            let n = UInt32(values[0]) << 18 | UInt32(values[1]) << 12 | UInt32(values[2]) << 6 | UInt32(values[3])
            out.append(UInt8(truncatingIfNeeded: n >> 16))
            if padding < 2 { out.append(UInt8(truncatingIfNeeded: n >> 8)) }
            if padding < 1 { out.append(UInt8(truncatingIfNeeded: n)) }
            k += 4
        }
        return out
    }

    private static func value(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): c - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): c - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0") + 52
        case UInt8(ascii: "+"): 62
        case UInt8(ascii: "/"): 63
        default: nil
        }
    }
}
