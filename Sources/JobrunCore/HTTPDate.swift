import JobrunSystem
/// HTTP-dates (RFC 9110 §5.6.7) as seconds since the Unix epoch: the preferred IMF-fixdate
/// (`Sun, 06 Nov 1994 08:49:37 GMT`) and the two obsolete forms a recipient must still accept,
/// RFC 850 (`Sunday, 06-Nov-94 08:49:37 GMT`) and asctime (`Sun Nov  6 08:49:37 1994`).
/// Anything else is `nil`: no guessing at other layouts.
public enum HTTPDate {
    static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
    static let shortDays: Set<String> = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]
    static let longDays: Set<String> = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]

    public static func parse(_ text: String) -> Int64? {
        let t = text.trimmingASCII()
        guard !t.isEmpty, t.utf8.count <= 64, t.unicodeScalars.allSatisfy(\.isASCII) else { return nil }
        if let comma = t.firstIndex(of: ",") {
            let day = t[..<comma].lowercased()
            let rest = t[t.index(after: comma)...].split(separator: " ", omittingEmptySubsequences: true)
            if shortDays.contains(day), rest.count == 5 {
                // IMF-fixdate: DD Mon YYYY HH:MM:SS GMT
                guard rest[4] == "GMT", rest[0].count == 2, rest[2].count == 4 else { return nil }
                return seconds(day: rest[0], month: rest[1], year: rest[2], time: rest[3])
            }
            if longDays.contains(day), rest.count == 3 {
                // RFC 850: DD-Mon-YY HH:MM:SS GMT
                let date = rest[0].split(separator: "-", omittingEmptySubsequences: false)
                guard rest[2] == "GMT", date.count == 3, date[0].count == 2, date[2].count == 2, let yy = Int64(decimalDigits: date[2]) else { return nil }
                // Two-digit years pivot at 70 (as the C library and most HTTP stacks do): RFC 9110's
                // "more than 50 years in the future" rule would need the current year here.
                let year = yy < 70 ? 2000 + yy : 1900 + yy
                return seconds(day: date[0], month: date[1], year: Substring(String(year)), time: rest[1])
            }
            return nil
        }
        // asctime: wkday Mon D HH:MM:SS YYYY (a one-digit day is padded with a space)
        let parts = t.split(separator: " ", omittingEmptySubsequences: true)
        guard parts.count == 5, shortDays.contains(parts[0].lowercased()), parts[4].count == 4 else { return nil }
        return seconds(day: parts[2], month: parts[1], year: parts[4], time: parts[3])
    }

    private static func seconds(day: Substring, month: Substring, year: Substring, time: Substring) -> Int64? {
        guard let m = months.firstIndex(of: month.lowercased()), month.count == 3,
            day.utf8.count <= 2, let d = Int64(decimalDigits: day), (1...31).contains(d),
            let y = Int64(decimalDigits: year), year.utf8.count <= 4, d <= CivilDate.daysIn(month: Int64(m + 1), year: y)
        else { return nil }
        let clock = time.split(separator: ":", omittingEmptySubsequences: false)
        guard clock.count == 3, clock.allSatisfy({ $0.utf8.count == 2 }),
            let hh = Int64(decimalDigits: clock[0]), let mm = Int64(decimalDigits: clock[1]), let ss = Int64(decimalDigits: clock[2]),
            hh < 24, mm < 60, ss <= 60
        else { return nil }
        return CivilDate.days(year: y, month: Int64(m + 1), day: d) * 86_400 + hh * 3600 + mm * 60 + ss
    }
}
