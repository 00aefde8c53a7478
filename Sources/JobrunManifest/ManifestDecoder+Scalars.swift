import JobrunCore

/// Typed reads of scalar nodes. Each returns `nil` after emitting a diagnostic when the node is wrong.
extension ManifestDecoder {
    func location(_ node: YAMLNode) -> SourceLocation { doc.location(node) }

    /// Emits "X must be a mapping" unless `node` is one.
    mutating func requireMapping(_ node: YAMLNode, _ what: String) -> Bool {
        if doc.kind(node) == .mapping { return true }
        diagnostics.error("\(what) must be a mapping, found \(doc.kindDescription(node))", at: location(node))
        return false
    }

    mutating func requireSequence(_ node: YAMLNode, _ what: String) -> Bool {
        if doc.kind(node) == .sequence { return true }
        diagnostics.error("\(what) must be a list, found \(doc.kindDescription(node))", at: location(node))
        return false
    }

    /// Reports every key of `mapping` that is not in `allowed`, with a suggestion.
    mutating func checkKeys(_ mapping: YAMLNode, allowed: [String], in context: String) {
        for pair in doc.pairs(mapping) {
            let key = doc.scalar(pair.key)
            if !allowed.contains(key) {
                diagnostics.error(
                    "unknown key '\(key)' in \(context)\(Suggestions.didYouMean(key, in: allowed))",
                    at: location(pair.key))
            }
        }
    }

    /// A scalar, or a list of them: their nodes; `nil` (with a diagnostic: `'FIELD' must be a
    /// WHAT or a list of WHATs`) for anything else.
    mutating func oneOrList(_ node: YAMLNode, _ field: String, of what: String) -> [YAMLNode]? {
        switch doc.kind(node) {
        case .scalar: return [node]
        case .sequence: return Array(doc.items(node))
        default:
            diagnostics.error("'\(field)' must be a \(what) or a list of \(what)s; found \(doc.kindDescription(node))", at: location(node))
            return nil
        }
    }

    /// A non-null scalar's text. `expected` names what the field holds, for the message about a
    /// mapping or list in its place.
    mutating func string(_ node: YAMLNode, _ field: String, expected: String = "a string") -> String? {
        guard doc.kind(node) == .scalar else {
            diagnostics.error("'\(field)' must be \(expected), found \(doc.kindDescription(node))", at: location(node))
            return nil
        }
        if doc.isNull(node) {
            diagnostics.error("'\(field)' must not be empty", at: location(node))
            return nil
        }
        return doc.scalar(node)
    }

    /// An unquoted decimal integer within `range`. Overflow is an error, never a trap.
    mutating func integer(_ node: YAMLNode, _ field: String, in range: ClosedRange<Int64>) -> Int64? {
        guard let text = string(node, field, expected: "an integer") else { return nil }
        if doc.style(node) != .plain {
            diagnostics.error("'\(field)' must be an integer, found the quoted string '\(text)'", at: location(node))
            return nil
        }
        guard let value = Self.parseInteger(text) else {
            if Self.looksNumeric(text) {
                diagnostics.error("'\(field)' is out of range: \(text) (allowed: \(range.lowerBound)…\(range.upperBound))", at: location(node))
            } else {
                diagnostics.error("'\(field)' must be an integer, found '\(text)'", at: location(node))
            }
            return nil
        }
        guard range.contains(value) else {
            diagnostics.error("'\(field)' is out of range: \(value) (allowed: \(range.lowerBound)…\(range.upperBound))", at: location(node))
            return nil
        }
        return value
    }

    /// ``integer(_:_:in:)`` for limits kept as `Int`.
    mutating func integer(_ node: YAMLNode, _ field: String, in range: ClosedRange<Int>) -> Int? {
        integer(node, field, in: Int64(range.lowerBound)...Int64(range.upperBound)).map { Int($0) }
    }

    /// Decimal digits with an optional sign; `nil` for anything else or on overflow.
    static func parseInteger(_ text: String) -> Int64? {
        var utf8 = Substring(text).utf8[...]
        var negative = false
        if let f = utf8.first, f == UInt8(ascii: "-") || f == UInt8(ascii: "+") {
            negative = f == UInt8(ascii: "-")
            utf8 = utf8.dropFirst()
        }
        if utf8.isEmpty { return nil }
        var value: Int64 = 0
        for c in utf8 {
            guard c >= UInt8(ascii: "0"), c <= UInt8(ascii: "9") else { return nil }
            let (m, o1) = value.multipliedReportingOverflow(by: 10)
            let d = Int64(c - UInt8(ascii: "0"))
            let (a, o2) = negative ? m.subtractingReportingOverflow(d) : m.addingReportingOverflow(d)
            if o1 || o2 { return nil }
            value = a
        }
        return value
    }

    static func looksNumeric(_ text: String) -> Bool {
        var t = Substring(text)
        if t.hasPrefix("-") || t.hasPrefix("+") { t = t.dropFirst() }
        return !t.isEmpty && t.utf8.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
    }

    /// A finite decimal number within `range` (`2`, `1.5`, `1e1`); `.inf` and `.nan` are refused.
    mutating func number(_ node: YAMLNode, _ field: String, in range: ClosedRange<Double>) -> Double? {
        guard let text = string(node, field, expected: "a number") else { return nil }
        let isDecimal =
            !text.isEmpty
            && text.utf8.allSatisfy { c in
                (c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9")) || c == UInt8(ascii: ".") || c == UInt8(ascii: "e")
                    || c == UInt8(ascii: "E") || c == UInt8(ascii: "-") || c == UInt8(ascii: "+")
            }
        guard doc.style(node) == .plain, isDecimal, let value = Double(text), value.isFinite else {
            diagnostics.error("'\(field)' must be a number, found '\(text)'", at: location(node))
            return nil
        }
        guard range.contains(value) else {
            diagnostics.error("'\(field)' is out of range: \(text) (allowed: \(range.lowerBound)…\(range.upperBound))", at: location(node))
            return nil
        }
        return value
    }

    /// `true` or `false` only: YAML 1.1's `yes`, `no`, `on`, `off` are refused, not guessed.
    mutating func boolean(_ node: YAMLNode, _ field: String) -> Bool? {
        guard let text = string(node, field, expected: "true or false") else { return nil }
        if doc.style(node) == .plain {
            switch text {
            case "true", "True", "TRUE": return true
            case "false", "False", "FALSE": return false
            default: break
            }
        }
        let legacy: Set<String> = ["yes", "no", "on", "off", "y", "n", "Yes", "No", "On", "Off", "YES", "NO", "ON", "OFF", "Y", "N"]
        if doc.style(node) != .plain {
            // "found 'true'" would read as a contradiction: say it is the quotes that are wrong.
            diagnostics.error("'\(field)' must be true or false, found the quoted string '\(text)'", at: location(node))
        } else if legacy.contains(text) {
            diagnostics.error("'\(field)' must be true or false; '\(text)' is a YAML 1.1 boolean, which jobrun does not accept", at: location(node))
        } else {
            diagnostics.error("'\(field)' must be true or false, found '\(text)'", at: location(node))
        }
        return nil
    }

    /// A duration such as `500ms`, `30s`, `2m`, `1h` within `range` (in milliseconds).
    mutating func duration(_ node: YAMLNode, _ field: String, in range: ClosedRange<Int64>) -> Duration? {
        guard let text = string(node, field, expected: "a duration like 30s") else { return nil }
        switch DurationParser.milliseconds(text) {
        case .success(let ms):
            guard range.contains(ms) else {
                diagnostics.error(
                    "'\(field)' is out of range: \(text) (allowed: \(DurationParser.format(milliseconds: range.lowerBound))…\(DurationParser.format(milliseconds: range.upperBound)))",
                    at: location(node))
                return nil
            }
            return .milliseconds(ms)
        case .failure(let error):
            let why: String
            switch error {
            case .missingUnit: why = "a unit is missing (write e.g. '\(text)s')"
            case .unknownUnit(let u): why = "unknown unit '\(u)' (use ms, s, m, h or d)"
            case .tooLarge: why = "it is too large"
            case .empty, .malformed: why = "write a number and a unit, like 500ms, 30s, 2m or 1h"
            }
            diagnostics.error("'\(field)' is not a valid duration: '\(text)': \(why)", at: location(node))
            return nil
        }
    }

    /// A byte count: an integer or a number with a unit (`64KiB`, `1.5GiB`), within `range`.
    mutating func byteCount(_ node: YAMLNode, _ field: String, in range: ClosedRange<Int64>) -> Int64? {
        guard let text = string(node, field, expected: "a size like 1024 or 64KiB") else { return nil }
        switch ByteCount.parse(text) {
        case .success(let count):
            guard range.contains(count.value) else {
                diagnostics.error(
                    "'\(field)' is out of range: \(text) (allowed: \(ByteCount(range.lowerBound))…\(ByteCount(range.upperBound)))", at: location(node))
                return nil
            }
            return count.value
        case .failure(let error):
            let why: String
            switch error {
            case .negative: why = "sizes cannot be negative"
            case .tooLarge: why = "it is too large"
            case .notWholeBytes: why = "it is not a whole number of bytes"
            case .unknownUnit(let u):
                why = "unknown unit '\(u)' (use \(ByteCount.units.dropLast().map(\.suffix).joined(separator: ", ")) or \(ByteCount.units.last?.suffix ?? "B"))"
            case .empty, .malformed: why = "write a number of bytes, or a number and a unit like 64KiB or 1.5GiB"
            }
            diagnostics.error("'\(field)' is not a valid size: '\(text)': \(why)", at: location(node))
            return nil
        }
    }

    /// The location of the `offset`-th byte of a single-line scalar (best effort for quoted styles).
    func location(_ node: YAMLNode, offsetInScalar offset: Int) -> SourceLocation {
        var loc = location(node)
        let text = doc.scalar(node)
        let prefix = text.utf8.prefix(offset)
        if prefix.contains(UInt8(ascii: "\n")) { return loc }
        let scalars = String(decoding: prefix, as: UTF8.self).unicodeScalars.count
        switch doc.style(node) {
        case .plain: loc.column += scalars
        case .singleQuoted, .doubleQuoted: loc.column += scalars + 1
        case .literal, .folded: break
        }
        return loc
    }
}
