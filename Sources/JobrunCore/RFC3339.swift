import JobrunSystem

/// RFC 3339 date-times (`2026-11-25T08:40:00Z`, `2026-11-25T09:40:00.5+01:00`): deadlines and CI
/// variables give instants this way.
public enum RFC3339 {
    /// 0001-01-01T00:00:00 and 9999-12-31T23:59:59: the instants a four-digit year can write.
    public static let minimumSecondsSince1970: Int64 = -62_135_596_800
    public static let maximumSecondsSince1970: Int64 = 253_402_300_799

    /// `2026-11-25T08:40:00`: the date and time of a UTC instant in whole seconds, clamped to
    /// years 0001–9999, without its zone (as a JUnit timestamp writes it).
    public static func utcDateTime(secondsSince1970 seconds: Int64) -> String {
        CivilDate.dateTime(secondsSince1970: min(max(seconds, minimumSecondsSince1970), maximumSecondsSince1970))
    }

    /// `2026-11-25T08:40:00.123Z`: a UTC instant in milliseconds, as logs and event streams show it.
    public static func utc(milliseconds ms: Int64) -> String {
        let seconds = ms >= 0 ? ms / 1000 : (ms - 999) / 1000
        return utcDateTime(secondsSince1970: seconds) + "." + CivilDate.padded(ms - seconds * 1000, 3) + "Z"
    }

    /// Milliseconds since the epoch, or nil when `text` is not an RFC 3339 date-time with a zone
    /// (`Z` or `±hh:mm`; `t`, `z` and a space for `T` are accepted, as RFC 3339 allows).
    public static func milliseconds(_ text: String) -> Int64? {
        let b = Array(text.utf8)
        guard b.count >= 20 else { return nil }
        func number(_ from: Int, _ count: Int) -> Int64? {
            guard from + count <= b.count else { return nil }
            return Int64(decimalDigits: String(decoding: b[from..<(from + count)], as: UTF8.self))
        }
        guard let year = number(0, 4), b[4] == UInt8(ascii: "-"), let month = number(5, 2), b[7] == UInt8(ascii: "-"),
            let day = number(8, 2), [UInt8(ascii: "T"), UInt8(ascii: "t"), UInt8(ascii: " ")].contains(b[10]),
            let hour = number(11, 2), b[13] == UInt8(ascii: ":"), let minute = number(14, 2), b[16] == UInt8(ascii: ":"),
            let second = number(17, 2),
            (1...12).contains(month), day >= 1, day <= CivilDate.daysIn(month: month, year: year),
            hour < 24, minute < 60, second <= 60
        else { return nil }
        var i = 19
        var millis: Int64 = 0
        if i < b.count, b[i] == UInt8(ascii: ".") {
            i += 1
            let start = i
            while i < b.count, b[i] >= UInt8(ascii: "0"), b[i] <= UInt8(ascii: "9") { i += 1 }
            guard i > start else { return nil }
            for k in 0..<3 { millis = millis * 10 + (start + k < i ? Int64(b[start + k] - UInt8(ascii: "0")) : 0) }
        }
        guard i < b.count else { return nil }
        var offset: Int64 = 0
        switch b[i] {
        case UInt8(ascii: "Z"), UInt8(ascii: "z"):
            guard i + 1 == b.count else { return nil }
        case UInt8(ascii: "+"), UInt8(ascii: "-"):
            guard i + 6 == b.count, let oh = number(i + 1, 2), b[i + 3] == UInt8(ascii: ":"), let om = number(i + 4, 2), oh < 24, om < 60
            else { return nil }
            offset = (oh * 60 + om) * 60 * (b[i] == UInt8(ascii: "+") ? 1 : -1)
        default:
            return nil
        }
        let days = CivilDate.days(year: year, month: month, day: day)
        let seconds = days * 86_400 + hour * 3_600 + minute * 60 + min(second, 59) - offset
        return seconds * 1000 + millis
    }
}
