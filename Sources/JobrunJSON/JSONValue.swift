/// A JSON document whose objects keep their keys in the order given, so output is deterministic.
///
/// Render with ``render(pretty:)``; for documents too big to build as a tree, write them piece by
/// piece with ``JSONWriter``.
public indirect enum JSONValue: Sendable, Equatable {
    /// Members in output order. Duplicate keys are written as given; callers avoid them.
    case object([(String, JSONValue)])
    case array([JSONValue])
    case string(String)
    case int(Int64)
    /// Non-finite values, which JSON cannot express, render as `null`.
    case double(Double)
    case bool(Bool)
    case null

    /// The document as text. Pretty output indents by two spaces, writes `"key": value`, and
    /// ends with a newline; compact output has no whitespace at all and no trailing newline, so
    /// a caller can frame it (one line of NDJSON, say).
    public func render(pretty: Bool) -> String {
        String(decoding: renderedBytes(pretty: pretty), as: UTF8.self)
    }

    /// The document as UTF-8 bytes; see ``render(pretty:)``.
    public func renderedBytes(pretty: Bool) -> [UInt8] {
        var writer = JSONWriter(pretty: pretty)
        writer.value(self)
        return writer.finish()
    }

    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.object(let l), .object(let r)):
            l.count == r.count && zip(l, r).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
        case (.array(let l), .array(let r)): l == r
        case (.string(let l), .string(let r)): l == r
        case (.int(let l), .int(let r)): l == r
        // Bitwise, so that a NaN equals itself and rendering stays a function of equality.
        case (.double(let l), .double(let r)): l.bitPattern == r.bitPattern
        case (.bool(let l), .bool(let r)): l == r
        case (.null, .null): true
        default: false
        }
    }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByBooleanLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, ExpressibleByNilLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int64) { self = .int(value) }
    public init(floatLiteral value: Double) { self = .double(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    /// Keeps the literal's order: `["b": 1, "a": 2]` renders `{"b":1,"a":2}`.
    public init(dictionaryLiteral elements: (String, JSONValue)...) { self = .object(elements) }
    public init(nilLiteral: ()) { self = .null }
}
