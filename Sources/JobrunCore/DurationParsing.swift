/// Parses durations as manifests write them: `500ms`, `30s`, `2m`, `1h`, and sums like `1h30m`.
public enum DurationParser {
    public enum ParseError: Error, Equatable, Sendable {
        case empty
        case malformed
        case missingUnit
        case unknownUnit(String)
        case tooLarge
    }

    /// Milliseconds in each unit.
    public static let units: [(suffix: String, milliseconds: Int64)] = [
        ("ms", 1), ("s", 1_000), ("m", 60_000), ("h", 3_600_000), ("d", 86_400_000),
    ]

    /// The parsed duration in milliseconds; sums are allowed (`1h30m`). Overflow is reported, not trapped.
    public static func milliseconds(_ text: some StringProtocol) -> Result<Int64, ParseError> {
        let s = Array(text.utf8)
        if s.isEmpty { return .failure(.empty) }
        var i = 0
        var total: Int64 = 0
        while i < s.count {
            var number: Int64 = 0
            var digits = 0
            while i < s.count, s[i] >= UInt8(ascii: "0"), s[i] <= UInt8(ascii: "9") {
                let (m, o1) = number.multipliedReportingOverflow(by: 10)
                let (a, o2) = m.addingReportingOverflow(Int64(s[i] - UInt8(ascii: "0")))
                if o1 || o2 { return .failure(.tooLarge) }
                number = a
                digits += 1
                i += 1
            }
            if digits == 0 { return .failure(.malformed) }
            let unitStart = i
            while i < s.count, (s[i] >= UInt8(ascii: "a") && s[i] <= UInt8(ascii: "z")) || (s[i] >= UInt8(ascii: "A") && s[i] <= UInt8(ascii: "Z")) { i += 1 }
            if unitStart == i { return .failure(i == s.count ? .missingUnit : .malformed) }
            let unit = String(decoding: s[unitStart..<i], as: UTF8.self)
            guard let factor = units.first(where: { $0.suffix == unit })?.milliseconds else {
                return .failure(.unknownUnit(unit))
            }
            let (v, o3) = number.multipliedReportingOverflow(by: factor)
            let (t, o4) = total.addingReportingOverflow(v)
            if o3 || o4 { return .failure(.tooLarge) }
            total = t
        }
        return .success(total)
    }

    /// Renders milliseconds in the largest exact unit: `90000` → `90s`, `120000` → `2m`.
    public static func format(milliseconds ms: Int64) -> String {
        for (suffix, factor) in units.reversed() where ms != 0 && ms % factor == 0 {
            return "\(ms / factor)\(suffix)"
        }
        return "\(ms)ms"
    }
}

extension Duration {
    /// `4.2 s` under ten seconds (tenths, cut not rounded), `42 s` from there: how logs and
    /// summary lines say a short wait.
    public var secondsText: String {
        let ms = wholeMilliseconds
        return ms < 10_000 ? "\(Double(ms / 100) / 10) s" : "\(ms / 1000) s"
    }

    /// Whole milliseconds, for rendering.
    public var wholeMilliseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }

    /// Whole nanoseconds, for storing in eight bytes (wrapping past 292 years, which no run
    /// lasts).
    public var wholeNanoseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds.multipliedReportingOverflow(by: 1_000_000_000).partialValue &+ attoseconds / 1_000_000_000
    }
}
