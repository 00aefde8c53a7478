/// Writes JSON (RFC 8259) into a byte buffer, one token at a time.
///
/// Use it directly to stream a document too large to hold as a ``JSONValue`` tree (a plan with a
/// million slices): write a prefix, then ``takeBytes()`` into a file as the buffer grows.
///
///     var json = JSONWriter(pretty: true)
///     json.beginObject()
///     json.key("slices")
///     json.beginArray()
///     for slice in slices { json.value(slice.json) }
///     json.endArray()
///     json.endObject()
///     let bytes = json.finish()
///
/// Commas, newlines and indentation are the writer's job. Strings escape `"`, `\` and the
/// control characters U+0000–U+001F (as `\n`, `\t`, … or `\u00XX`); everything else, `/`
/// and non-ASCII included, is written as UTF-8. Unbalanced calls are a programming error: they
/// produce malformed output (and trip an assertion in debug builds), never a crash.
public struct JSONWriter: Sendable {
    /// Two-space indentation, `"key": value`, and a final newline from ``finish()``.
    public let isPretty: Bool
    /// Output not yet taken.
    public private(set) var bytes: [UInt8] = []

    /// The enclosing containers' states; the innermost one lives in `current`, so the per-value
    /// bookkeeping touches no array.
    private var outer: [Level] = []
    private var current: Level?
    private var isAfterKey = false

    private struct Level: Sendable {
        var isObject: Bool
        var hasMembers = false
    }

    public init(pretty: Bool, reservingCapacity capacity: Int = 4_096) {
        self.isPretty = pretty
        bytes.reserveCapacity(capacity)
    }

    /// Current nesting depth; 0 when the document is complete.
    public var depth: Int { outer.count + (current == nil ? 0 : 1) }

    public mutating func beginObject() {
        beforeValue()
        bytes.append(UInt8(ascii: "{"))
        push(Level(isObject: true))
    }

    public mutating func endObject() {
        end(UInt8(ascii: "}"), isObject: true)
    }

    public mutating func beginArray() {
        beforeValue()
        bytes.append(UInt8(ascii: "["))
        push(Level(isObject: false))
    }

    public mutating func endArray() {
        end(UInt8(ascii: "]"), isObject: false)
    }

    /// The key of the next object member; the value follows with any value call.
    public mutating func key(_ key: String) {
        assert(current?.isObject == true && !isAfterKey, "JSON key outside an object")
        beforeValue()
        appendQuoted(key)
        bytes.append(UInt8(ascii: ":"))
        if isPretty { bytes.append(UInt8(ascii: " ")) }
        isAfterKey = true
    }

    public mutating func string(_ value: String) {
        beforeValue()
        appendQuoted(value)
    }

    public mutating func int(_ value: Int64) {
        beforeValue()
        appendInteger(value)
    }

    /// Shortest round-tripping decimal form; `null` for NaN and infinities.
    public mutating func double(_ value: Double) {
        beforeValue()
        if value.isFinite {
            // Swift's description is the shortest round-trip form, and all of its finite
            // spellings ("1.0", "1e-05", "-0.0", "1e+16") are valid JSON numbers.
            bytes.append(contentsOf: value.description.utf8)
        } else {
            bytes.append(contentsOf: "null".utf8)
        }
    }

    public mutating func bool(_ value: Bool) {
        beforeValue()
        bytes.append(contentsOf: value ? "true".utf8 : "false".utf8)
    }

    public mutating func null() {
        beforeValue()
        bytes.append(contentsOf: "null".utf8)
    }

    /// An array of strings.
    public mutating func strings(_ values: [String]) {
        beginArray()
        for value in values { string(value) }
        endArray()
    }

    /// Writes a whole value: an object member's value, an array element, or the document.
    public mutating func value(_ value: JSONValue) {
        switch value {
        case .object(let members):
            beginObject()
            for (key, member) in members {
                self.key(key)
                self.value(member)
            }
            endObject()
        case .array(let elements):
            beginArray()
            for element in elements { self.value(element) }
            endArray()
        case .string(let s): string(s)
        case .int(let i): int(i)
        case .double(let d): double(d)
        case .bool(let b): bool(b)
        case .null: null()
        }
    }

    /// Hands over the output written so far and starts an empty buffer, for streaming to a file.
    public mutating func takeBytes() -> [UInt8] {
        let taken = bytes
        bytes = []
        bytes.reserveCapacity(taken.capacity)
        return taken
    }

    /// The remaining output, with the final newline in pretty mode.
    public mutating func finish() -> [UInt8] {
        assert(current == nil && !isAfterKey, "JSON document finished with open containers")
        if isPretty { bytes.append(UInt8(ascii: "\n")) }
        return takeBytes()
    }

    // MARK: - Layout

    private mutating func beforeValue() {
        if isAfterKey {
            isAfterKey = false
            return
        }
        guard current != nil else { return }
        if current?.hasMembers == true {
            bytes.append(UInt8(ascii: ","))
        } else {
            current?.hasMembers = true
        }
        if isPretty { appendNewline(indent: depth) }
    }

    private mutating func push(_ level: Level) {
        if let current { outer.append(current) }
        current = level
    }

    private mutating func end(_ bracket: UInt8, isObject: Bool) {
        assert(current?.isObject == isObject && !isAfterKey, "unbalanced JSON container")
        let hadMembers = current?.hasMembers == true
        current = outer.popLast()
        if isPretty, hadMembers { appendNewline(indent: depth) }
        bytes.append(bracket)
    }

    private mutating func appendNewline(indent: Int) {
        bytes.append(UInt8(ascii: "\n"))
        bytes.append(contentsOf: repeatElement(UInt8(ascii: " "), count: 2 * indent))
    }

    // MARK: - Scalars

    private mutating func appendInteger(_ value: Int64) {
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        var digitCount = 1
        var probe = magnitude
        while probe >= 10 {
            probe /= 10
            digitCount += 1
        }
        let start = bytes.count
        bytes.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: digitCount))
        bytes.withUnsafeMutableBufferPointer { buffer in
            var index = start + digitCount - 1
            while index >= start {
                buffer[index] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
                index -= 1
            }
        }
    }

    private mutating func appendQuoted(_ string: String) {
        bytes.append(UInt8(ascii: "\""))
        let handled: Void? = string.utf8.withContiguousStorageIfAvailable { appendEscaped($0) }
        if handled == nil {
            var copy = string
            copy.withUTF8 { appendEscaped($0) }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    private mutating func appendEscaped(_ utf8: UnsafeBufferPointer<UInt8>) {
        var runStart = 0
        var i = 0
        let count = utf8.count
        while i < count {
            // Skip eight clean bytes at a time; most strings (ids, paths, digests) are all clean.
            if i + 8 <= count, !Self.mayNeedEscape(UnsafeRawBufferPointer(utf8).loadUnaligned(fromByteOffset: i, as: UInt64.self)) {
                i += 8
                continue
            }
            let b = utf8[i]
            guard b < 0x20 || b == UInt8(ascii: "\"") || b == UInt8(ascii: "\\") else {
                i += 1
                continue
            }
            if runStart < i { bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<i])) }
            i += 1
            runStart = i
            bytes.append(UInt8(ascii: "\\"))
            switch b {
            case UInt8(ascii: "\""): bytes.append(UInt8(ascii: "\""))
            case UInt8(ascii: "\\"): bytes.append(UInt8(ascii: "\\"))
            case 0x0A: bytes.append(UInt8(ascii: "n"))
            case 0x0D: bytes.append(UInt8(ascii: "r"))
            case 0x09: bytes.append(UInt8(ascii: "t"))
            case 0x08: bytes.append(UInt8(ascii: "b"))
            case 0x0C: bytes.append(UInt8(ascii: "f"))
            default:
                let hex: (UInt8) -> UInt8 = { $0 < 10 ? UInt8(ascii: "0") + $0 : UInt8(ascii: "a") + $0 - 10 }
                bytes.append(contentsOf: [UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"), hex(b >> 4), hex(b & 0xF)])
            }
        }
        if runStart < count { bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart...])) }
    }

    /// Whether any of the eight bytes is below 0x20, `"` or `\` (exact: no false negatives, and
    /// false positives only cost the byte-wise path).
    @inline(__always)
    private static func mayNeedEscape(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        // Bytes >= 0x80 (UTF-8) must not count as "below 0x20": mask them out with ~word.
        let isBelow20 = (word &- ones &* 0x20) & ~word & highs
        let quote = word ^ (ones &* 0x22)
        let backslash = word ^ (ones &* 0x5C)
        let isQuote = (quote &- ones) & ~quote & highs
        let isBackslash = (backslash &- ones) & ~backslash & highs
        return (isBelow20 | isQuote | isBackslash) != 0
    }
}
