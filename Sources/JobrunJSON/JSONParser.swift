/// Reads a JSON document (RFC 8259) into a ``JSONValue``, objects keeping their keys in the
/// order written, so that what jobrun reads back (`report merge`) it can write again as it was.
/// Integers that fit `Int64` stay integers; other numbers are doubles.
public enum JSONParser {
    /// Why a document could not be read, and where (1-based line and column, in bytes).
    public struct Failure: Error, Sendable, Hashable, CustomStringConvertible {
        public var message: String
        public var line: Int
        public var column: Int
        public var description: String { "line \(line), column \(column): \(message)" }
    }

    /// Nesting deeper than this is refused rather than followed (the reports nest four deep).
    public static let maxDepth = 64

    public static func parse(_ bytes: [UInt8]) -> Result<JSONValue, Failure> {
        var reader = Reader(bytes: bytes)
        do throws(Failure) {
            reader.skipSpace()
            let value = try reader.value(depth: 0)
            reader.skipSpace()
            guard reader.isAtEnd else { throw reader.failure("text after the document") }
            return .success(value)
        } catch {
            return .failure(error)
        }
    }

    private struct Reader {
        let bytes: [UInt8]
        var i = 0

        var isAtEnd: Bool { i >= bytes.count }

        func failure(_ message: String) -> Failure {
            var line = 1
            var start = 0
            for k in 0..<min(i, bytes.count) where bytes[k] == UInt8(ascii: "\n") {
                line += 1
                start = k + 1
            }
            return Failure(message: message, line: line, column: i - start + 1)
        }

        mutating func skipSpace() {
            while i < bytes.count, bytes[i] == 0x20 || bytes[i] == 0x0A || bytes[i] == 0x0D || bytes[i] == 0x09 { i += 1 }
        }

        mutating func value(depth: Int) throws(Failure) -> JSONValue {
            guard depth < JSONParser.maxDepth else { throw failure("nested more than \(JSONParser.maxDepth) deep") }
            guard i < bytes.count else { throw failure("the document ends where a value should be") }
            switch bytes[i] {
            case UInt8(ascii: "{"): return try object(depth: depth)
            case UInt8(ascii: "["): return try array(depth: depth)
            case UInt8(ascii: "\""): return .string(try string())
            case UInt8(ascii: "t"): try literal("true"); return .bool(true)
            case UInt8(ascii: "f"): try literal("false"); return .bool(false)
            case UInt8(ascii: "n"): try literal("null"); return .null
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try number()
            default: throw failure("unexpected character")
            }
        }

        mutating func literal(_ word: String) throws(Failure) {
            for byte in word.utf8 {
                guard i < bytes.count, bytes[i] == byte else { throw failure("not \(word)") }
                i += 1
            }
        }

        mutating func object(depth: Int) throws(Failure) -> JSONValue {
            i += 1
            var members: [(String, JSONValue)] = []
            skipSpace()
            if i < bytes.count, bytes[i] == UInt8(ascii: "}") {
                i += 1
                return .object(members)
            }
            while true {
                skipSpace()
                guard i < bytes.count, bytes[i] == UInt8(ascii: "\"") else { throw failure("a key (a string) expected") }
                let key = try string()
                skipSpace()
                guard i < bytes.count, bytes[i] == UInt8(ascii: ":") else { throw failure("':' expected after a key") }
                i += 1
                skipSpace()
                members.append((key, try value(depth: depth + 1)))
                skipSpace()
                guard i < bytes.count else { throw failure("the document ends inside an object") }
                if bytes[i] == UInt8(ascii: ",") {
                    i += 1
                } else if bytes[i] == UInt8(ascii: "}") {
                    i += 1
                    return .object(members)
                } else {
                    throw failure("',' or '}' expected")
                }
            }
        }

        mutating func array(depth: Int) throws(Failure) -> JSONValue {
            i += 1
            var items: [JSONValue] = []
            skipSpace()
            if i < bytes.count, bytes[i] == UInt8(ascii: "]") {
                i += 1
                return .array(items)
            }
            while true {
                skipSpace()
                items.append(try value(depth: depth + 1))
                skipSpace()
                guard i < bytes.count else { throw failure("the document ends inside an array") }
                if bytes[i] == UInt8(ascii: ",") {
                    i += 1
                } else if bytes[i] == UInt8(ascii: "]") {
                    i += 1
                    return .array(items)
                } else {
                    throw failure("',' or ']' expected")
                }
            }
        }

        mutating func string() throws(Failure) -> String {
            i += 1
            var out: [UInt8] = []
            while true {
                guard i < bytes.count else { throw failure("the document ends inside a string") }
                let byte = bytes[i]
                if byte == UInt8(ascii: "\"") {
                    i += 1
                    // Invalid UTF-8 would be replaced, not kept: refused instead.
                    guard let text = String(validating: out, as: UTF8.self) else { throw failure("a string is not valid UTF-8") }
                    return text
                }
                if byte < 0x20 { throw failure("a control character in a string") }
                if byte != UInt8(ascii: "\\") {
                    out.append(byte)
                    i += 1
                    continue
                }
                i += 1
                guard i < bytes.count else { throw failure("the document ends inside an escape") }
                let escape = bytes[i]
                i += 1
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(escape)
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0C)
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "u"):
                    var scalar = try hex4()
                    if (0xD800..<0xDC00).contains(scalar) {
                        // A high surrogate takes the low one after it.
                        guard i + 1 < bytes.count, bytes[i] == UInt8(ascii: "\\"), bytes[i + 1] == UInt8(ascii: "u") else { throw failure("a lone surrogate") }
                        i += 2
                        let low = try hex4()
                        guard (0xDC00..<0xE000).contains(low) else { throw failure("a lone surrogate") }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    } else if (0xDC00..<0xE000).contains(scalar) {
                        throw failure("a lone surrogate")
                    }
                    guard let unicode = Unicode.Scalar(scalar) else { throw failure("not a Unicode scalar") }
                    UTF8.encode(unicode) { out.append($0) }
                default:
                    i -= 1
                    throw failure("an unknown escape")
                }
            }
        }

        mutating func hex4() throws(Failure) -> UInt32 {
            guard i + 4 <= bytes.count else { throw failure("the document ends inside an escape") }
            var value: UInt32 = 0
            for _ in 0..<4 {
                let b = bytes[i]
                let digit: UInt32
                switch b {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(b - UInt8(ascii: "0"))
                case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(b - UInt8(ascii: "a") + 10)
                case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(b - UInt8(ascii: "A") + 10)
                default: throw failure("not a hex digit")
                }
                value = value << 4 | digit
                i += 1
            }
            return value
        }

        mutating func number() throws(Failure) -> JSONValue {
            let start = i
            if bytes[i] == UInt8(ascii: "-") { i += 1 }
            func digits() -> Int {
                let from = i
                while i < bytes.count, bytes[i] >= UInt8(ascii: "0"), bytes[i] <= UInt8(ascii: "9") { i += 1 }
                return i - from
            }
            let whole = digits()
            guard whole > 0 else { throw failure("a number without digits") }
            if whole > 1, bytes[i - whole] == UInt8(ascii: "0") { throw failure("a number with a leading zero") }
            var isInteger = true
            if i < bytes.count, bytes[i] == UInt8(ascii: ".") {
                i += 1
                isInteger = false
                guard digits() > 0 else { throw failure("no digits after the decimal point") }
            }
            if i < bytes.count, bytes[i] == UInt8(ascii: "e") || bytes[i] == UInt8(ascii: "E") {
                i += 1
                isInteger = false
                if i < bytes.count, bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") { i += 1 }
                guard digits() > 0 else { throw failure("no digits in the exponent") }
            }
            let text = String(decoding: bytes[start..<i], as: UTF8.self)
            if isInteger, let n = Int64(text) { return .int(n) }
            guard let d = Double(text) else { throw failure("not a number") }
            return .double(d)
        }
    }
}

extension JSONValue {
    /// The member `key` of an object; `nil` for anything else or a missing key.
    public subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members.first { $0.0 == key }?.1
    }

    public var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    public var intValue: Int64? {
        if case .int(let n) = self { return n }
        return nil
    }

    public var doubleValue: Double? {
        switch self {
        case .double(let d): d
        case .int(let n): Double(n)
        default: nil
        }
    }

    public var boolValue: Bool? {
        if case .bool(let b) = self { return b }
        return nil
    }

    public var arrayValue: [JSONValue]? {
        if case .array(let items) = self { return items }
        return nil
    }
}
