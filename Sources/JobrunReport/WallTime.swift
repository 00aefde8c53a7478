import JobrunCore

/// Wall-clock instants as logs and the event stream show them.
public enum WallTime {
    /// `2026-11-25T08:40:00.123Z`: RFC 3339 in UTC with milliseconds.
    public static func rfc3339(milliseconds ms: Int64) -> String {
        let seconds = ms >= 0 ? ms / 1000 : (ms - 999) / 1000
        let fraction = ms - seconds * 1000
        let digits = String(fraction)
        return JUnitReport.Timestamp(secondsSince1970: seconds).description + "." + String(repeating: "0", count: 3 - digits.count) + digits + "Z"
    }
}
