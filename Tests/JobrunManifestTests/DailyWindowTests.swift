import JobrunCore
import JobrunTestSupport
import Testing
@testable import JobrunManifest
import JobrunSystem

/// ``DailyWindow`` against its definition: on each local day it opens at the first instant the
/// zone's clock reads its start or later, and closes at the first instant the clock reads its end
/// (the next day's when it wraps midnight) or later. The reference finds those instants by walking
/// the clock minute by minute, with nothing but the zone's offsets.
@Suite struct DailyWindowTests {
    static func window(_ text: String) throws -> DailyWindow {
        try #require(try ManifestDecoder.parseWindow(text).get())
    }

    static func date(_ seconds: Int64) -> Date { Date(timeIntervalSince1970: Double(seconds)) }

    /// Seconds since the epoch of a UTC date and time (a date that does not exist is far off, and fails).
    static func utc(_ year: Int, _ month: Int, _ day: Int, _ hour: Int64 = 0, _ minute: Int64 = 0) -> Int64 {
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        let midnight = RFC3339.milliseconds("\(year)-\(two(month))-\(two(day))T00:00:00Z").map { $0 / 1000 } ?? Int64.min / 2
        return midnight + hour * 3_600 + minute * 60
    }

    /// The first whole minute at which the clock reads `local` or later, found by walking from
    /// three hours before it (no zone tested here changes by more).
    static func walk(to local: Int64, in zone: TimeZoneRules) -> Int64 {
        var u = local - zone.offset(at: local) - 3 * 3_600
        while zone.localSeconds(at: u) < local { u += 60 }
        return u
    }

    /// The window's openings on `days` (local day numbers), empty ones dropped, touching ones joined.
    static func reference(_ w: DailyWindow, in zone: TimeZoneRules, days: ClosedRange<Int64>) -> [(open: Int64, close: Int64)] {
        var result: [(open: Int64, close: Int64)] = []
        for day in days {
            let open = walk(to: day * 86_400 + Int64(w.start) * 60, in: zone)
            let close = walk(to: (w.end <= w.start ? day + 1 : day) * 86_400 + Int64(w.end) * 60, in: zone)
            guard close > open else { continue }
            if let last = result.last, open <= last.close {
                result[result.count - 1].close = max(last.close, close)
            } else {
                result.append((open, close))
            }
        }
        return result
    }

    static let windows = [
        "01:00-06:00", "22:00-06:00", "02:30-06:00", "00:30-02:30", "01:30-06:00", "02:15-02:45", "01:00-01:30",
        "01:45-02:15", "02:30-02:15", "12:00-13:00", "23:00-00:00", "18:00-24:00", "00:00-00:30", "03:00-02:00",
    ]

    /// Every change of 2026 in three zones: an hour forward and back (Berlin, New York) and half an
    /// hour (Lord Howe); and UTC, which has none.
    static let changes: [(zone: String, instant: Int64)] = [
        ("Europe/Berlin", utc(2026, 3, 29, 1)), ("Europe/Berlin", utc(2026, 10, 25, 1)),
        ("America/New_York", utc(2026, 3, 8, 7)), ("America/New_York", utc(2026, 11, 1, 6)),
        ("Australia/Lord_Howe", utc(2026, 4, 4, 15)), ("Australia/Lord_Howe", utc(2026, 10, 3, 15, 30)),
        ("UTC", utc(2026, 6, 1)),
    ]

    @Test(arguments: 0..<7)
    func agreesWithTheDefinitionAroundEveryChange(change: Int) throws {
        let (name, instant) = Self.changes[change]
        let zone = try ZoneInfoFixture.rules(name)
        let today = zone.localSeconds(at: instant) / 86_400
        for text in Self.windows {
            let w = try Self.window(text)
            let intervals = Self.reference(w, in: zone, days: (today - 6)...(today + 6))
            let from = instant - 3 * 86_400, to = instant + 3 * 86_400
            func expected(_ t: Int64) -> Bool { intervals.contains { $0.open <= t && t < $0.close } }
            var probes = Array(stride(from: from, to: to, by: 900))
            for i in intervals { probes += [i.open - 1, i.open, i.close - 1, i.close] }
            for t in probes where t >= from && t < to {
                #expect(w.contains(Self.date(t), in: zone) == expected(t), "\(text) in \(name) at \(t)")
            }
            for t in stride(from: from + 450, to: to, by: 1_800) {
                let opening = intervals.first { $0.open > t }.map { Self.date($0.open) }
                let closing = intervals.first { $0.close > t }.map { Self.date($0.close) }
                #expect(w.nextOpening(after: Self.date(t), in: zone) == opening, "\(text) in \(name) after \(t)")
                #expect(w.nextClosing(after: Self.date(t), in: zone) == closing, "\(text) in \(name) after \(t)")
            }
        }
    }

    /// The rules spelled out on the days they matter.
    @Test func changesForwardAndBack() throws {
        let ny = try ZoneInfoFixture.rules("America/New_York")
        let berlin = try ZoneInfoFixture.rules("Europe/Berlin")
        func opening(_ w: String, after t: Int64, in zone: TimeZoneRules) throws -> Date? { try Self.window(w).nextOpening(after: Self.date(t), in: zone) }
        func closing(_ w: String, after t: Int64, in zone: TimeZoneRules) throws -> Date? { try Self.window(w).nextClosing(after: Self.date(t), in: zone) }

        // A start the clock skips opens at the next minute that exists: 03:00 daylight time.
        #expect(try opening("02:30-06:00", after: Self.utc(2026, 3, 8), in: ny) == Self.date(Self.utc(2026, 3, 8, 7)))
        #expect(try opening("02:30-06:00", after: Self.utc(2026, 3, 28, 12), in: berlin) == Self.date(Self.utc(2026, 3, 29, 1)))
        // A window wholly inside the skipped hour does not open that day, but the next.
        #expect(try opening("02:15-02:45", after: Self.utc(2026, 3, 8), in: ny) == Self.date(Self.utc(2026, 3, 9, 6, 15)))
        // Across a change back the window stays open, an hour longer: 01:30 EDT to 06:00 EST.
        #expect(try opening("01:30-06:00", after: Self.utc(2026, 11, 1), in: ny) == Self.date(Self.utc(2026, 11, 1, 5, 30)))
        #expect(try closing("01:30-06:00", after: Self.utc(2026, 11, 1, 5, 30), in: ny) == Self.date(Self.utc(2026, 11, 1, 11)))
        #expect(try Self.window("01:30-06:00").contains(Self.date(Self.utc(2026, 11, 1, 6, 15)), in: ny))
        #expect(try closing("02:30-06:00", after: Self.utc(2026, 10, 25), in: berlin) == Self.date(Self.utc(2026, 10, 25, 5)))
        // A window inside the repeated hour opens once, at its first occurrence.
        let repeated = try Self.window("01:00-01:30")
        #expect(repeated.contains(Self.date(Self.utc(2026, 11, 1, 5, 15)), in: ny))
        #expect(!repeated.contains(Self.date(Self.utc(2026, 11, 1, 6, 15)), in: ny))
        #expect(repeated.nextOpening(after: Self.date(Self.utc(2026, 11, 1, 5, 15)), in: ny) == Self.date(Self.utc(2026, 11, 2, 6)))
    }

    @Test func wrapsMidnight() throws {
        let night = try Self.window("22:00-06:00")
        #expect(night.wrapsMidnight)
        let day = Self.utc(2026, 6, 10)
        for (hour, open) in [(0, true), (5, true), (6, false), (12, false), (21, false), (22, true), (23, true)] {
            #expect(night.contains(Self.date(day + Int64(hour) * 3_600), in: .utc) == open, "\(hour)h")
        }
        #expect(night.contains(Self.date(day + 6 * 3_600 - 1), in: .utc))
        #expect(night.nextOpening(after: Self.date(day + 12 * 3_600), in: .utc) == Self.date(day + 22 * 3_600))
        #expect(night.nextOpening(after: Self.date(day + 23 * 3_600), in: .utc) == Self.date(day + 46 * 3_600))
        #expect(night.nextClosing(after: Self.date(day + 23 * 3_600), in: .utc) == Self.date(day + 30 * 3_600))
        #expect(night.nextClosing(after: Self.date(day + 12 * 3_600), in: .utc) == Self.date(day + 30 * 3_600))
        // An instant with a fraction of a second compares as itself.
        #expect(night.nextOpening(after: Date(timeIntervalSince1970: Double(day + 22 * 3_600) - 0.5), in: .utc) == Self.date(day + 22 * 3_600))
        #expect(!(try Self.window("06:00-22:00")).wrapsMidnight)
        #expect(try Self.window("22:00-00:00").wrapsMidnight)
    }

    @Test func valuesAndText() throws {
        #expect(DailyWindow(start: 60, end: 360)?.description == "01:00-06:00")
        #expect(DailyWindow(start: 1_320, end: 1_440)?.description == "22:00-24:00")
        #expect(DailyWindow(start: 1_439, end: 0)?.description == "23:59-00:00")
        for (start, end) in [(0, 1_440), (60, 60), (0, 0), (-1, 60), (1_440, 60), (60, 1_441)] {
            #expect(DailyWindow(start: start, end: end) == nil, "\(start)-\(end)")
        }
    }

    /// Any instant a `Date` can hold is answered, without a trap.
    @Test func extremeInstants() throws {
        let w = try Self.window("01:00-06:00")
        let berlin = try ZoneInfoFixture.rules("Europe/Berlin")
        for d in [
            Date.distantPast, Date.distantFuture, Date(timeIntervalSince1970: -1e300), Date(timeIntervalSince1970: 1e300), Date(timeIntervalSince1970: .nan),
        ] {
            _ = w.contains(d, in: berlin)
            #expect(w.nextOpening(after: d, in: berlin) != nil)
            #expect(w.nextClosing(after: d, in: berlin) != nil)
        }
    }
}
