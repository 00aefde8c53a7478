/// A POSIX `TZ` rule (`CET-1CEST,M3.5.0,M10.5.0/3`): a standard offset and, optionally, a
/// daylight-saving offset with the dates it starts and ends each year. TZif files end with one
/// for the times after their last transition (RFC 8536, with its extension of hours to ±167).
struct PosixZoneRule: Sendable, Hashable {
    /// Seconds east of UTC (POSIX writes them west of it: `CET-1` is UTC+1).
    let standardOffset: Int32
    let daylight: Daylight?

    struct Daylight: Sendable, Hashable {
        let offset: Int32
        let start: Change
        let end: Change
    }

    /// A yearly change: a day of the year and a local time of that day (seconds, may be
    /// negative or past a day).
    struct Change: Sendable, Hashable {
        enum Day: Sendable, Hashable {
            /// `Jn`: day 1–365, February 29 never counted.
            case julian(Int64)
            /// `n`: day 0–365, February 29 counted.
            case zeroBased(Int64)
            /// `Mm.w.d`: weekday `d` (0 Sunday) of week `w` (5: the last) of month `m`.
            case month(Int64, week: Int64, weekday: Int64)
        }

        let day: Day
        let time: Int64

        /// Days since 1970-01-01 of this change's day in `year`.
        func days(in year: Int64) -> Int64 {
            let january1 = CivilDate.days(year: year, month: 1, day: 1)
            switch day {
            case .julian(let n):
                return january1 + n - 1 + (CivilDate.isLeap(year) && n >= 60 ? 1 : 0)
            case .zeroBased(let n):
                return january1 + n
            case .month(let m, let week, let weekday):
                let first = CivilDate.days(year: year, month: m, day: 1)
                var day = first + CivilDate.floorModulo(weekday - CivilDate.weekday(daysSince1970: first), 7) + (week - 1) * 7
                let length = CivilDate.daysIn(month: m, year: year)
                while day >= first + length { day -= 7 }
                return day
            }
        }
    }

    /// Seconds east of UTC at `second`.
    func offset(atSecond second: Int64) -> Int32 {
        guard let daylight else { return standardOffset }
        let year = CivilDate.date(daysSince1970: CivilDate.floorDivide(second + Int64(standardOffset), 86_400)).year
        // The start is given in standard local time, the end in daylight local time.
        let start = daylight.start.days(in: year) * 86_400 + daylight.start.time - Int64(standardOffset)
        let end = daylight.end.days(in: year) * 86_400 + daylight.end.time - Int64(daylight.offset)
        let inDaylight = start < end ? (second >= start && second < end) : !(second >= end && second < start)
        return inDaylight ? daylight.offset : standardOffset
    }

    /// Parses `std offset [dst [offset] [,start[/time],end[/time]]]`; nil when malformed.
    init?(_ text: String) {
        var s = Substring(text)
        guard Self.name(&s) != nil, let standardWest = Self.clock(&s, maximumHours: 24) else { return nil }
        standardOffset = Int32(-standardWest)
        guard !s.isEmpty else {
            daylight = nil
            return
        }
        guard Self.name(&s) != nil else { return nil }
        var daylightOffset = standardOffset + 3600
        if let first = s.first, first != "," {
            guard let west = Self.clock(&s, maximumHours: 24) else { return nil }
            daylightOffset = Int32(-west)
        }
        // Without dates, the rule POSIX leaves to the implementation: glibc's (the US rule).
        if s.isEmpty { s = ",M3.2.0,M11.1.0" }
        guard s.first == ",", case _ = s.removeFirst(), let start = Self.change(&s), s.first == ",", case _ = s.removeFirst(),
            let end = Self.change(&s), s.isEmpty
        else { return nil }
        daylight = Daylight(offset: daylightOffset, start: start, end: end)
    }

    /// `CET` or `<+0330>`.
    private static func name(_ s: inout Substring) -> Substring? {
        if s.first == "<" {
            guard let close = s.firstIndex(of: ">") else { return nil }
            let name = s[s.index(after: s.startIndex)..<close]
            guard name.count >= 3 else { return nil }
            s = s[s.index(after: close)...]
            return name
        }
        let name = s.prefix { $0.isASCII && $0.isLetter }
        guard name.count >= 3 else { return nil }
        s = s.dropFirst(name.count)
        return name
    }

    /// `[+-]hh[:mm[:ss]]` in seconds.
    private static func clock(_ s: inout Substring, maximumHours: Int64) -> Int64? {
        var sign: Int64 = 1
        if s.first == "+" || s.first == "-" {
            if s.first == "-" { sign = -1 }
            s = s.dropFirst()
        }
        var parts: [Int64] = []
        while parts.count < 3 {
            let digits = s.prefix { $0.isASCII && $0.isNumber }
            guard !digits.isEmpty, digits.count <= 3, let value = Int64(digits) else { return nil }
            parts.append(value)
            s = s.dropFirst(digits.count)
            guard s.first == ":" else { break }
            s = s.dropFirst()
        }
        guard parts[0] <= maximumHours, parts.dropFirst().allSatisfy({ $0 < 60 }) else { return nil }
        let seconds = parts[0] * 3600 + (parts.count > 1 ? parts[1] * 60 : 0) + (parts.count > 2 ? parts[2] : 0)
        return sign * seconds
    }

    /// `Jn`, `n` or `Mm.w.d`, then an optional `/time` (default 02:00).
    private static func change(_ s: inout Substring) -> Change? {
        func number() -> Int64? {
            let digits = s.prefix { $0.isASCII && $0.isNumber }
            guard !digits.isEmpty, digits.count <= 3 else { return nil }
            s = s.dropFirst(digits.count)
            return Int64(digits)
        }
        let day: Change.Day
        switch s.first {
        case "J":
            s = s.dropFirst()
            guard let n = number(), (1...365).contains(n) else { return nil }
            day = .julian(n)
        case "M":
            s = s.dropFirst()
            guard let m = number(), (1...12).contains(m), s.first == "." else { return nil }
            s = s.dropFirst()
            guard let w = number(), (1...5).contains(w), s.first == "." else { return nil }
            s = s.dropFirst()
            guard let d = number(), (0...6).contains(d) else { return nil }
            day = .month(m, week: w, weekday: d)
        default:
            guard let n = number(), (0...365).contains(n) else { return nil }
            day = .zeroBased(n)
        }
        var time: Int64 = 7200
        if s.first == "/" {
            s = s.dropFirst()
            guard let t = clock(&s, maximumHours: 167) else { return nil }
            time = t
        }
        return Change(day: day, time: time)
    }
}
