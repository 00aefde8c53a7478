/// Proleptic Gregorian calendar arithmetic on days since 1970-01-01 (Howard Hinnant's
/// `days_from_civil` and `civil_from_days`): exact far beyond any date a file gives, with no
/// formatter, locale or time zone database.
public enum CivilDate {
    /// Days since 1970-01-01 of `year`-`month`-`day` (month 1–12; a day past the month's end
    /// carries into the next).
    public static func days(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = floorDivide(y, 400)
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The date `daysSince1970` days after 1970-01-01.
    public static func date(daysSince1970: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let z = daysSince1970 + 719_468
        let era = floorDivide(z, 146_097)
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        return (year, month, day)
    }

    /// 0 for Sunday … 6 for Saturday.
    public static func weekday(daysSince1970: Int64) -> Int64 {
        // 1970-01-01 was a Thursday.
        floorModulo(daysSince1970 + 4, 7)
    }

    public static func isLeap(_ year: Int64) -> Bool {
        (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
    }

    public static func daysIn(month: Int64, year: Int64) -> Int64 {
        switch month {
        case 2: isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// `2026-11-25T08:40:00`: the civil date and time `seconds` after 1970-01-01T00:00:00 (on
    /// whichever clock the caller counts), the year in at least four digits, without a zone.
    public static func dateTime(secondsSince1970 seconds: Int64) -> String {
        let days = floorDivide(seconds, 86_400)
        let secondOfDay = seconds - days * 86_400
        let (year, month, day) = date(daysSince1970: days)
        var out = ""
        out.reserveCapacity(19)
        out += padded(year, 4) + "-" + padded(month, 2) + "-" + padded(day, 2)
        out += "T" + padded(secondOfDay / 3_600, 2) + ":" + padded(secondOfDay / 60 % 60, 2) + ":" + padded(secondOfDay % 60, 2)
        return out
    }

    /// `value` in decimal, zero-padded to `width` digits.
    public static func padded(_ value: Int64, _ width: Int) -> String {
        let digits = String(value)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }

    /// `a / b` rounded toward negative infinity (`b` > 0).
    public static func floorDivide(_ a: Int64, _ b: Int64) -> Int64 {
        let q = a / b
        return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q
    }

    /// `a mod b` in `0..<b` (`b` > 0).
    public static func floorModulo(_ a: Int64, _ b: Int64) -> Int64 {
        a - floorDivide(a, b) * b
    }
}
