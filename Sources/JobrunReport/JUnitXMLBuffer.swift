/// A UTF-8 byte buffer with XML 1.0 escaping, used by the JUnit renderer.
///
/// Escaping rules (the same for text and attributes unless noted):
///
/// | input                                   | output            | why                                   |
/// |-----------------------------------------|-------------------|---------------------------------------|
/// | `&` `<` `>` `"` `'`                     | `&amp;` … `&apos;`| markup; `>` also breaks `]]>`         |
/// | TAB, LF (in attributes)                 | `&#9;` `&#10;`    | attribute-value normalisation would turn them into spaces |
/// | CR                                      | `&#13;`           | end-of-line normalisation would drop it |
/// | other C0 controls, U+FFFE, U+FFFF       | `\u0001` …        | not XML 1.0 `Char`s, not even as `&#1;` |
///
/// Swift strings cannot hold lone surrogates, so every other scalar is a legal `Char`.
struct JUnitXMLBuffer {
    private(set) var bytes: [UInt8] = []

    init(reservingCapacity capacity: Int = 0) {
        bytes.reserveCapacity(capacity)
    }

    mutating func append(_ literal: StaticString) {
        literal.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    mutating func appendIndent(_ level: Int) {
        for _ in 0..<level { bytes.append(contentsOf: [0x20, 0x20]) }
    }

    mutating func appendDecimal(_ value: Int) {
        bytes.append(contentsOf: String(value).utf8)
    }

    /// Seconds with exactly three decimals (`0.012`, `1234.500`); negative durations render `0.000`.
    ///
    /// Jenkins' `SUREFIRE_TIME` pattern admits neither a sign nor an exponent, and the Ant
    /// schema's `xs:decimal` admits no exponent, so this never goes through `Double`.
    mutating func appendSeconds(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        // Round half up to milliseconds; a Duration's components share its sign.
        let (scaled, overflow1) = seconds.multipliedReportingOverflow(by: 1_000)
        let (milliseconds, overflow2) = scaled.addingReportingOverflow((attoseconds + 500_000_000_000_000) / 1_000_000_000_000_000)
        let total: Int64
        if seconds < 0 || attoseconds < 0 {
            total = 0
        } else if overflow1 || overflow2 {
            total = Int64.max
        } else {
            total = milliseconds
        }
        bytes.append(contentsOf: String(total / 1_000).utf8)
        bytes.append(UInt8(ascii: "."))
        let fraction = total % 1_000
        bytes.append(UInt8(ascii: "0") + UInt8(fraction / 100))
        bytes.append(UInt8(ascii: "0") + UInt8(fraction / 10 % 10))
        bytes.append(UInt8(ascii: "0") + UInt8(fraction % 10))
    }

    /// Appends ` name="escaped value"`.
    mutating func appendAttribute(_ name: StaticString, _ value: String) {
        bytes.append(0x20)
        append(name)
        bytes.append(contentsOf: [UInt8(ascii: "="), UInt8(ascii: "\"")])
        appendEscaped(value, isAttribute: true)
        bytes.append(UInt8(ascii: "\""))
    }

    mutating func appendText(_ value: String) {
        appendEscaped(value, isAttribute: false)
    }

    private mutating func appendEscaped(_ value: String, isAttribute: Bool) {
        var value = value
        value.withUTF8 { utf8 in
            var runStart = 0
            var i = 0
            let count = utf8.count
            while i < count {
                let b = utf8[i]
                let replacement: Replacement?
                switch b {
                case UInt8(ascii: "&"): replacement = .literal("&amp;")
                case UInt8(ascii: "<"): replacement = .literal("&lt;")
                case UInt8(ascii: ">"): replacement = .literal("&gt;")
                case UInt8(ascii: "\""): replacement = .literal("&quot;")
                case UInt8(ascii: "'"): replacement = .literal("&apos;")
                case 0x0D: replacement = .literal("&#13;")
                case 0x09: replacement = isAttribute ? .literal("&#9;") : nil
                case 0x0A: replacement = isAttribute ? .literal("&#10;") : nil
                case 0x00..<0x20: replacement = .visible(UInt32(b), width: 1)
                // U+FFFE and U+FFFF: in valid UTF-8, EF BF BE and EF BF BF mean nothing else.
                case 0xEF where i + 2 < count && utf8[i + 1] == 0xBF && (utf8[i + 2] == 0xBE || utf8[i + 2] == 0xBF):
                    replacement = .visible(0xFFC0 | UInt32(utf8[i + 2] & 0x3F), width: 3)
                default: replacement = nil
                }
                guard let replacement else {
                    i += 1
                    continue
                }
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<i]))
                switch replacement {
                case .literal(let text):
                    append(text)
                    i += 1
                case .visible(let scalar, let width):
                    appendVisibleEscape(scalar)
                    i += width
                }
                runStart = i
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<count]))
        }
    }

    private enum Replacement {
        case literal(StaticString)
        /// A scalar XML cannot carry, shown as `\uXXXX`; `width` is its UTF-8 length.
        case visible(UInt32, width: Int)
    }

    private static let hexDigits: [UInt8] = Array("0123456789ABCDEF".utf8)

    private mutating func appendVisibleEscape(_ scalar: UInt32) {
        bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u")])
        for shift in stride(from: 12, through: 0, by: -4) {
            bytes.append(Self.hexDigits[Int((scalar >> UInt32(shift)) & 0xF)])
        }
    }
}
