/// A time zone as a POSIX `TZ` string gives it (`CET-1CEST,M3.5.0,M10.5.0/3`): a standard offset
/// and, optionally, a daylight-saving offset with the yearly dates and times it starts and ends.
///
/// A TZif file ends with one, for the instants after its last listed transition (RFC 8536 §3.3,
/// whose extensions are accepted: times of day from -167 to 167 hours, daylight time all year).
struct POSIXTimeZoneRule: Hashable, Sendable {
    /// Seconds east of UTC (a `TZ` string writes them west of UTC: `CET-1` is one hour east).
    var standardOffset: Int64
    var daylight: Daylight?

    struct Daylight: Hashable, Sendable {
        /// Seconds east of UTC while daylight-saving time is in effect.
        var offset: Int64
        var start: Change
        var end: Change
    }

    /// A yearly moment: a day of the year and a local time of day in the offset that is in effect
    /// before the change.
    struct Change: Hashable, Sendable {
        enum Day: Hashable, Sendable {
            /// `Jn`: day 1…365, February 29 never counted.
            case julian(Int)
            /// `n`: day 0…365, February 29 counted in leap years.
            case zeroBased(Int)
            /// `Mm.w.d`: weekday `d` (0 is Sunday) of week `w` (1…5, 5 is the last) of month `m`.
            case monthWeekDay(month: Int, week: Int, weekday: Int)
        }

        var day: Day
        /// Seconds after local midnight; 2:00 when the string gives none.
        var time: Int64 = 7_200
    }

    /// An instant at which the offset changes, and the offset from then on.
    struct Transition: Hashable, Sendable {
        var instant: Int64
        var offset: Int64
        /// Whether the change starts daylight time (for ordering changes at one instant).
        var startsDaylight: Bool
    }

    /// The offset at `instant` (seconds since the epoch).
    func offset(at instant: Int64) -> Int64 {
        guard daylight != nil else { return standardOffset }
        let year = CivilDate.date(daysSince1970: CivilDate.floorDivide(instant + standardOffset, 86_400)).year
        let changes = transitions(inYears: (year - 1)...(year + 1))
        return changes.last(where: { $0.instant <= instant })?.offset ?? standardOffset
    }

    /// Every change of the given years, in time order; at one instant an end comes before a start,
    /// so that a zone on daylight time all year (`…,0/0,J365/25`) stays on it.
    func transitions(inYears years: ClosedRange<Int64>) -> [Transition] {
        guard let daylight else { return [] }
        var result: [Transition] = []
        for year in years {
            let start = Self.localDay(of: daylight.start.day, inYear: year) * 86_400 + daylight.start.time - standardOffset
            let end = Self.localDay(of: daylight.end.day, inYear: year) * 86_400 + daylight.end.time - daylight.offset
            result.append(Transition(instant: start, offset: daylight.offset, startsDaylight: true))
            result.append(Transition(instant: end, offset: standardOffset, startsDaylight: false))
        }
        return result.sorted { ($0.instant, $0.startsDaylight ? 1 : 0) < ($1.instant, $1.startsDaylight ? 1 : 0) }
    }

    /// Days since 1970-01-01 of a change's day in `year`.
    static func localDay(of day: Change.Day, inYear year: Int64) -> Int64 {
        let january1 = CivilDate.days(year: year, month: 1, day: 1)
        switch day {
        case .julian(let n):
            return january1 + Int64(n - 1) + (CivilDate.isLeap(year) && n >= 60 ? 1 : 0)
        case .zeroBased(let n):
            return january1 + Int64(n)
        case .monthWeekDay(let month, let week, let weekday):
            let first = CivilDate.days(year: year, month: Int64(month), day: 1)
            let firstWeekday = Int(CivilDate.weekday(daysSince1970: first))
            var dayOfMonth = 1 + (weekday - firstWeekday + 7) % 7 + 7 * (week - 1)
            while dayOfMonth > Int(CivilDate.daysIn(month: Int64(month), year: year)) { dayOfMonth -= 7 }
            return first + Int64(dayOfMonth - 1)
        }
    }
}

extension POSIXTimeZoneRule {
    /// Parses a `TZ` string; `nil` for anything else, offsets beyond ±25 hours included.
    init?(_ text: some StringProtocol) {
        var scanner = TZScanner(bytes: Array(text.utf8))
        guard scanner.skipName(), let std = scanner.clock(maxHours: 24, signed: true) else { return nil }
        standardOffset = -std
        if scanner.isAtEnd {
            daylight = nil
            return
        }
        guard scanner.skipName() else { return nil }
        var dst = standardOffset + 3_600
        if !scanner.isAtEnd, scanner.peek != UInt8(ascii: ",") {
            guard let o = scanner.clock(maxHours: 24, signed: true) else { return nil }
            dst = -o
        }
        // A daylight name without dates leaves them to the C library's defaults, which differ
        // between systems; TZif files always give them.
        guard scanner.take(","), let start = scanner.change(), scanner.take(","), let end = scanner.change(), scanner.isAtEnd
        else { return nil }
        daylight = Daylight(offset: dst, start: start, end: end)
    }
}

/// Reads the pieces of a `TZ` string.
private struct TZScanner {
    let bytes: [UInt8]
    var i = 0

    var isAtEnd: Bool { i == bytes.count }
    var peek: UInt8? { i < bytes.count ? bytes[i] : nil }

    mutating func take(_ c: Character) -> Bool {
        guard let p = peek, let a = c.asciiValue, p == a else { return false }
        i += 1
        return true
    }

    static func isLetter(_ c: UInt8) -> Bool {
        (c >= UInt8(ascii: "a") && c <= UInt8(ascii: "z")) || (c >= UInt8(ascii: "A") && c <= UInt8(ascii: "Z"))
    }

    static func isDigit(_ c: UInt8) -> Bool { c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9") }

    /// `CET` (three or more letters) or `<+0330>` (three or more letters, digits and signs).
    mutating func skipName() -> Bool {
        if take("<") {
            let start = i
            while let c = peek, Self.isLetter(c) || Self.isDigit(c) || c == UInt8(ascii: "+") || c == UInt8(ascii: "-") { i += 1 }
            return i - start >= 3 && take(">")
        }
        let start = i
        while let c = peek, Self.isLetter(c) { i += 1 }
        return i - start >= 3
    }

    mutating func number(maxDigits: Int) -> Int64? {
        let start = i
        var value: Int64 = 0
        while let c = peek, Self.isDigit(c), i - start < maxDigits {
            value = value * 10 + Int64(c - UInt8(ascii: "0"))
            i += 1
        }
        return i > start ? value : nil
    }

    /// `[+-]hh[:mm[:ss]]` in seconds.
    mutating func clock(maxHours: Int64, signed: Bool) -> Int64? {
        var sign: Int64 = 1
        if signed {
            if take("-") { sign = -1 } else { _ = take("+") }
        }
        guard let h = number(maxDigits: 3), h <= maxHours else { return nil }
        var seconds = h * 3_600
        if take(":") {
            guard let m = number(maxDigits: 2), m < 60 else { return nil }
            seconds += m * 60
            if take(":") {
                guard let s = number(maxDigits: 2), s < 60 else { return nil }
                seconds += s
            }
        }
        return sign * seconds
    }

    mutating func change() -> POSIXTimeZoneRule.Change? {
        let day: POSIXTimeZoneRule.Change.Day
        if take("J") {
            guard let n = number(maxDigits: 3), (1...365).contains(n) else { return nil }
            day = .julian(Int(n))
        } else if take("M") {
            guard let m = number(maxDigits: 2), (1...12).contains(m), take("."), let w = number(maxDigits: 1), (1...5).contains(w),
                take("."), let d = number(maxDigits: 1), d <= 6
            else { return nil }
            day = .monthWeekDay(month: Int(m), week: Int(w), weekday: Int(d))
        } else {
            guard let n = number(maxDigits: 3), n <= 365 else { return nil }
            day = .zeroBased(Int(n))
        }
        var change = POSIXTimeZoneRule.Change(day: day)
        if take("/") {
            guard let t = clock(maxHours: 167, signed: true) else { return nil }
            change.time = t
        }
        return change
    }
}
