public import JobrunCore
public import JobrunSystem

extension JUnitReport {
    /// A UTC instant to the second, rendered `YYYY-MM-DDTHH:MM:SS` with no zone and no fraction.
    ///
    /// The Ant schema restricts `xs:dateTime` with exactly that pattern, so a zone suffix (`Z`)
    /// or fractional seconds make a report invalid. Instants outside years 0001–9999 are clamped,
    /// because the pattern has exactly four year digits and XML Schema 1.0 has no year 0.
    /// Formatting is plain calendar arithmetic: no formatter, locale or time zone database.
    public struct Timestamp: Hashable, Sendable, Comparable, CustomStringConvertible {
        public static let minimumSecondsSince1970 = RFC3339.minimumSecondsSince1970
        public static let maximumSecondsSince1970 = RFC3339.maximumSecondsSince1970

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
                year >= 1, (1...12).contains(month), day >= 1, day <= CivilDate.daysIn(month: month, year: year),
                hour < 24, minute < 60, second < 60
            else { return nil }
            let days = CivilDate.days(year: year, month: month, day: day)
            self.init(secondsSince1970: days * 86_400 + hour * 3_600 + minute * 60 + second)
        }

        /// `YYYY-MM-DDTHH:MM:SS`.
        public var description: String { RFC3339.utcDateTime(secondsSince1970: secondsSince1970) }

        public static func < (lhs: Timestamp, rhs: Timestamp) -> Bool {
            lhs.secondsSince1970 < rhs.secondsSince1970
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
