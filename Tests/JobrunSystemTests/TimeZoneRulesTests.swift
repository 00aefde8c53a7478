import JobrunTestSupport
import JobrunCore
import Testing
@testable import JobrunSystem

/// Offsets and local times of real zones, checked against the rules the zones follow (not against
/// one example): the EU changes at 01:00 UTC on the last Sundays of March and October, the US at
/// 02:00 local time on the second Sunday of March and the first Sunday of November.
@Suite struct TimeZoneRulesTests {
    /// Seconds since the epoch of a UTC date and time.
    static func utc(_ year: Int, _ month: Int, _ day: Int, _ hour: Int64 = 0, _ minute: Int64 = 0) -> Int64 {
        CivilDate.days(year: Int64(year), month: Int64(month), day: Int64(day)) * 86_400 + hour * 3_600 + minute * 60
    }

    /// Local seconds (as ``TimeZoneRules/localSeconds(at:)`` counts them) of a local date and time.
    static func local(_ year: Int, _ month: Int, _ day: Int, _ hour: Int64, _ minute: Int64 = 0) -> Int64 {
        utc(year, month, day, hour, minute)
    }

    /// The day of the month of the last Sunday of a month (1970-01-01 was a Thursday).
    static func lastSunday(_ year: Int, _ month: Int, days: Int) -> Int {
        let last = CivilDate.days(year: Int64(year), month: Int64(month), day: Int64(days))
        let weekday = Int(((last + 4) % 7 + 7) % 7)
        return days - weekday
    }

    /// The day of the month of the `n`th Sunday of a month.
    static func nthSunday(_ n: Int, _ year: Int, _ month: Int) -> Int {
        let first = CivilDate.days(year: Int64(year), month: Int64(month), day: Int64(1))
        let weekday = Int(((first + 4) % 7 + 7) % 7)
        return 1 + (7 - weekday) % 7 + 7 * (n - 1)
    }

    /// `offset` changes from `before` to `after` exactly at `instant`.
    static func expectChange(
        _ zone: TimeZoneRules, at instant: Int64, from before: Int64, to after: Int64, sourceLocation: Testing.SourceLocation = #_sourceLocation
    ) {
        #expect(zone.offset(at: instant - 1) == before, "\(zone.identifier) just before \(instant)", sourceLocation: sourceLocation)
        #expect(zone.offset(at: instant) == after, "\(zone.identifier) at \(instant)", sourceLocation: sourceLocation)
    }

    /// The listed transitions (up to 2037), the TZ string after them, and a slim file that lists
    /// none since 1996 all follow the EU rule.
    @Test(arguments: ["Europe/Berlin", "slim/Europe/Berlin"])
    func berlinFollowsTheEURule(name: String) throws {
        let zone = try ZoneInfoFixture.rules(name)
        for year in 1997...2100 {
            let spring = Self.utc(year, 3, Self.lastSunday(year, 3, days: 31), 1)
            let autumn = Self.utc(year, 10, Self.lastSunday(year, 10, days: 31), 1)
            Self.expectChange(zone, at: spring, from: 3_600, to: 7_200)
            Self.expectChange(zone, at: autumn, from: 7_200, to: 3_600)
            #expect(zone.offset(at: Self.utc(year, 1, 15, 12)) == 3_600)
            #expect(zone.offset(at: Self.utc(year, 7, 15, 12)) == 7_200)
        }
    }

    @Test func newYorkFollowsTheUSRule() throws {
        let zone = try ZoneInfoFixture.rules("America/New_York")
        for year in 2007...2100 {
            // 02:00 EST is 07:00 UTC; 02:00 EDT is 06:00 UTC.
            Self.expectChange(zone, at: Self.utc(year, 3, Self.nthSunday(2, year, 3), 7), from: -18_000, to: -14_400)
            Self.expectChange(zone, at: Self.utc(year, 11, Self.nthSunday(1, year, 11), 6), from: -14_400, to: -18_000)
        }
    }

    /// The zones whose TZ strings are unusual: daylight time in winter (Dublin), changes at
    /// negative local times (Nuuk), a half-hour change (Lord Howe), a skipped day (Apia).
    @Test func unusualZones() throws {
        let dublin = try ZoneInfoFixture.rules("Europe/Dublin")
        let nuuk = try ZoneInfoFixture.rules("America/Nuuk")
        for year in [2030, 2045, 2090] {
            let spring = Self.utc(year, 3, Self.lastSunday(year, 3, days: 31), 1)
            let autumn = Self.utc(year, 10, Self.lastSunday(year, 10, days: 31), 1)
            Self.expectChange(dublin, at: spring, from: 0, to: 3_600)
            Self.expectChange(dublin, at: autumn, from: 3_600, to: 0)
            Self.expectChange(nuuk, at: spring, from: -7_200, to: -3_600)
            Self.expectChange(nuuk, at: autumn, from: -3_600, to: -7_200)
        }
        let lordHowe = try ZoneInfoFixture.rules("Australia/Lord_Howe")
        // +10:30, and +11 from 02:00 local on the first Sunday of October to 02:00 local on the first Sunday of April.
        for year in [2026, 2050] {
            Self.expectChange(lordHowe, at: Self.local(year, 10, Self.nthSunday(1, year, 10), 2) - 37_800, from: 37_800, to: 39_600)
            Self.expectChange(lordHowe, at: Self.local(year, 4, Self.nthSunday(1, year, 4), 2) - 39_600, from: 39_600, to: 37_800)
        }
        let apia = try ZoneInfoFixture.rules("Pacific/Apia")
        // 2011-12-29 23:59:59 -10:00 was followed by 2011-12-31 00:00:00 +14:00.
        let jump = Self.utc(2011, 12, 30, 10)
        Self.expectChange(apia, at: jump, from: -36_000, to: 50_400)
        #expect(apia.localSeconds(at: jump - 1) == Self.local(2011, 12, 29, 23, 59) + 59)
        #expect(apia.localSeconds(at: jump) == Self.local(2011, 12, 31, 0))
        #expect(apia.firstInstant(reaching: Self.local(2011, 12, 30, 12)) == jump)
    }

    @Test func utcAndFixedZones() throws {
        for zone in [TimeZoneRules.utc, try ZoneInfoFixture.rules("UTC"), try ZoneInfoFixture.rules("Etc/UTC")] {
            for t in [Int64.min / 4, -1, 0, 1_795_596_000, Int64.max / 4] {
                #expect(zone.offset(at: t) == 0)
                #expect(zone.firstInstant(reaching: t) == t)
            }
        }
        let india = try #require(TimeZoneRules(posix: "<+0530>-5:30"))
        #expect(india.offset(at: 0) == 19_800)
        #expect(india.firstInstant(reaching: 19_800) == 0)
    }

    /// Around each change of 2026: the result reaches the local time, and no earlier instant
    /// does (a change back makes the clock read an hour again, so an hour back is looked at).
    @Test(arguments: [
        ("Europe/Berlin", TimeZoneRulesTests.utc(2026, 3, 29, 1)), ("Europe/Berlin", TimeZoneRulesTests.utc(2026, 10, 25, 1)),
        ("America/New_York", TimeZoneRulesTests.utc(2026, 3, 8, 7)), ("America/New_York", TimeZoneRulesTests.utc(2026, 11, 1, 6)),
        ("Australia/Lord_Howe", TimeZoneRulesTests.utc(2026, 10, 3, 15, 30)),
    ])
    func firstInstantIsTheEarliestThatReachesTheLocalTime(name: String, change: Int64) throws {
        let zone = try ZoneInfoFixture.rules(name)
        var x = zone.localSeconds(at: change) - 30 * 3_600
        while x < zone.localSeconds(at: change) + 30 * 3_600 {
            let u = zone.firstInstant(reaching: x)
            #expect(zone.localSeconds(at: u) >= x, "\(name) \(x)")
            let earlier = [u - 1] + (1...90).map { u - Int64($0) * 60 }
            #expect(earlier.allSatisfy { zone.localSeconds(at: $0) < x }, "\(name) \(x)")
            x += 300
        }
    }

    @Test func skippedAndRepeatedLocalTimes() throws {
        let ny = try ZoneInfoFixture.rules("America/New_York")
        // Spring forward: 02:00 EST became 03:00 EDT at 07:00 UTC; 02:00–02:59 never showed.
        #expect(ny.firstInstant(reaching: Self.local(2026, 3, 8, 1, 59)) == Self.utc(2026, 3, 8, 6, 59))
        #expect(ny.firstInstant(reaching: Self.local(2026, 3, 8, 2, 0)) == Self.utc(2026, 3, 8, 7))
        #expect(ny.firstInstant(reaching: Self.local(2026, 3, 8, 2, 30)) == Self.utc(2026, 3, 8, 7))
        #expect(ny.firstInstant(reaching: Self.local(2026, 3, 8, 3, 0)) == Self.utc(2026, 3, 8, 7))
        #expect(ny.firstInstant(reaching: Self.local(2026, 3, 8, 3, 1)) == Self.utc(2026, 3, 8, 7, 1))
        // Fall back: 02:00 EDT became 01:00 EST at 06:00 UTC; 01:00–01:59 showed twice.
        #expect(ny.firstInstant(reaching: Self.local(2026, 11, 1, 1, 30)) == Self.utc(2026, 11, 1, 5, 30))
        #expect(ny.firstInstant(reaching: Self.local(2026, 11, 1, 2, 0)) == Self.utc(2026, 11, 1, 7))
        let berlin = try ZoneInfoFixture.rules("Europe/Berlin")
        #expect(berlin.firstInstant(reaching: Self.local(2026, 3, 29, 2, 30)) == Self.utc(2026, 3, 29, 1))
        #expect(berlin.firstInstant(reaching: Self.local(2026, 10, 25, 2, 30)) == Self.utc(2026, 10, 25, 0, 30))
        #expect(berlin.firstInstant(reaching: Self.local(2026, 10, 25, 3, 0)) == Self.utc(2026, 10, 25, 2))
    }
}
