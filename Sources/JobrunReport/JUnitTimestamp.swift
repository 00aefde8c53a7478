public import JobrunCore

extension JUnitReport {
    /// A UTC instant to the second, rendered `YYYY-MM-DDTHH:MM:SS` with no zone and no fraction.
    ///
    /// The Ant schema restricts `xs:dateTime` with exactly that pattern, so a zone suffix (`Z`)
    /// or fractional seconds make a report invalid. Instants outside years 0001–9999 are clamped,
    /// because the pattern has exactly four year digits and XML Schema 1.0 has no year 0.
    /// Formatting is plain calendar arithmetic: no formatter, locale or time zone database.
    public struct Timestamp: Hashable, Sendable, Comparable, CustomStringConvertible {
        /// 0001-01-01T00:00:00.
        public static let minimumSecondsSince1970: Int64 = -62_135_596_800
        /// 9999-12-31T23:59:59.
        public static let maximumSecondsSince1970: Int64 = 253_402_300_799

        /// Whole seconds since 1970-01-01T00:00:00 UTC, within the representable range.
        public let secondsSince1970: Int64

        /// Clamps to years 0001–9999.
        public init(secondsSince1970: Int64) {
            self.secondsSince1970 = min(max(secondsSince1970, Self.minimumSecondsSince1970), Self.maximumSecondsSince1970)
        }

        /// Truncates to the whole second below; clamps to years 0001–9999 (NaN becomes the epoch).
        public init(_ date: Date) {
            let seconds = date.timeIntervalSince1970.rounded(.down)
            if seconds.isNaN {
                self.init(secondsSince1970: 0)
            } else if seconds <= Double(Self.minimumSecondsSince1970) {
                self.init(secondsSince1970: Self.minimumSecondsSince1970)
            } else if seconds >= Double(Self.maximumSecondsSince1970) {
                self.init(secondsSince1970: Self.maximumSecondsSince1970)
            } else {
                self.init(secondsSince1970: Int64(seconds))
            }
        }

        /// Parses `YYYY-MM-DDTHH:MM:SS`, optionally followed by `Z`; `nil` for anything else.
        public init?(iso8601 text: some StringProtocol) {
            var bytes = Array(text.utf8)
            if bytes.last == UInt8(ascii: "Z") { bytes.removeLast() }
            guard bytes.count == 19,
                bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"), bytes[10] == UInt8(ascii: "T"),
                bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":"),
                let year = Self.number(bytes[0..<4]), let month = Self.number(bytes[5..<7]),
                let day = Self.number(bytes[8..<10]), let hour = Self.number(bytes[11..<13]),
                let minute = Self.number(bytes[14..<16]), let second = Self.number(bytes[17..<19]),
                year >= 1, (1...12).contains(month), day >= 1, day <= Self.daysIn(month: month, year: year),
                hour < 24, minute < 60, second < 60
            else { return nil }
            let days = Self.daysSince1970(year: year, month: month, day: day)
            self.init(secondsSince1970: days * 86_400 + hour * 3_600 + minute * 60 + second)
        }

        /// `YYYY-MM-DDTHH:MM:SS`.
        public var description: String {
            let days = Self.floorDivide(secondsSince1970, 86_400)
            let secondOfDay = secondsSince1970 - days * 86_400
            let (year, month, day) = Self.civil(daysSince1970: days)
            var out = ""
            out.reserveCapacity(19)
            out += Self.padded(year, 4) + "-" + Self.padded(month, 2) + "-" + Self.padded(day, 2)
            out += "T" + Self.padded(secondOfDay / 3_600, 2) + ":" + Self.padded(secondOfDay / 60 % 60, 2)
            out += ":" + Self.padded(secondOfDay % 60, 2)
            return out
        }

        public static func < (lhs: Timestamp, rhs: Timestamp) -> Bool {
            lhs.secondsSince1970 < rhs.secondsSince1970
        }

        // Howard Hinnant's `civil_from_days`/`days_from_civil`: exact proleptic Gregorian
        // arithmetic, valid far beyond the clamped range.
        static func civil(daysSince1970: Int64) -> (year: Int64, month: Int64, day: Int64) {
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

        static func daysSince1970(year: Int64, month: Int64, day: Int64) -> Int64 {
            let y = month <= 2 ? year - 1 : year
            let era = floorDivide(y, 400)
            let yearOfEra = y - era * 400
            let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
            let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
            return era * 146_097 + dayOfEra - 719_468
        }

        private static func daysIn(month: Int64, year: Int64) -> Int64 {
            switch month {
            case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
            case 4, 6, 9, 11: 30
            default: 31
            }
        }

        private static func floorDivide(_ a: Int64, _ b: Int64) -> Int64 {
            let q = a / b
            return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q
        }

        private static func padded(_ value: Int64, _ width: Int) -> String {
            let digits = String(value)
            return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
        }

        private static func number(_ bytes: ArraySlice<UInt8>) -> Int64? {
            var value: Int64 = 0
            for b in bytes {
                guard b >= UInt8(ascii: "0"), b <= UInt8(ascii: "9") else { return nil }
                value = value * 10 + Int64(b - UInt8(ascii: "0"))
            }
            return value
        }
    }
}
