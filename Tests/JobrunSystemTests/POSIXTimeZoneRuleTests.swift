import JobrunCore
import Testing
@testable import JobrunSystem

/// POSIX `TZ` strings, the rules TZif files end with.
@Suite struct POSIXTimeZoneRuleTests {
    typealias Rule = POSIXTimeZoneRule

    @Test func readsOffsetsAndChanges() throws {
        let berlin = try #require(Rule("CET-1CEST,M3.5.0,M10.5.0/3"))
        #expect(berlin.standardOffset == 3_600)
        #expect(
            berlin.daylight
                == .init(
                    offset: 7_200, start: .init(day: .monthWeekDay(month: 3, week: 5, weekday: 0)),
                    end: .init(day: .monthWeekDay(month: 10, week: 5, weekday: 0), time: 10_800)))
        let ny = try #require(Rule("EST5EDT,M3.2.0,M11.1.0"))
        #expect(ny.standardOffset == -18_000 && ny.daylight?.offset == -14_400)
        let lordHowe = try #require(Rule("<+1030>-10:30<+11>-11,M10.1.0,M4.1.0"))
        #expect(lordHowe.standardOffset == 37_800 && lordHowe.daylight?.offset == 39_600)
        let nuuk = try #require(Rule("<-02>2<-01>,M3.5.0/-1,M10.5.0/0"))
        #expect(nuuk.daylight?.start.time == -3_600 && nuuk.daylight?.end.time == 0)
        #expect(Rule("<+0530>-5:30") == Rule(standardOffset: 19_800, daylight: nil))
        #expect(Rule("UTC0") == Rule(standardOffset: 0, daylight: nil))
        #expect(Rule("XXX3YYY,J60/2:30:15,300/-167")?.daylight?.start == .init(day: .julian(60), time: 9_015))
        #expect(Rule("XXX3YYY,J60/2:30:15,300/-167")?.daylight?.end == .init(day: .zeroBased(300), time: -167 * 3_600))
        // A daylight offset other than an hour ahead is written out.
        #expect(Rule("AAA-1BBB-3,M3.5.0,M10.5.0")?.daylight?.offset == 10_800)
    }

    @Test(arguments: [
        "", "CET", "CE-1", "CET-1CEST", "CET-1CEST,M3.5.0", "CET-1CEST,M3.5.0,M10.5.0,", "CET-1x", "CET-25", "CET-1:60",
        "CET-1CEST,M13.5.0,M10.5.0", "CET-1CEST,M3.6.0,M10.5.0", "CET-1CEST,M3.5.7,M10.5.0", "CET-1CEST,M3.0.0,M10.5.0",
        "CET-1CEST,J0,J365", "CET-1CEST,J366,J1", "CET-1CEST,366,0", "<AB>-1", "<A B>-1", "CET-1CEST,M3.5.0/168,M10.5.0",
    ])
    func refusesWhatIsNotATZString(text: String) {
        #expect(Rule(text) == nil)
    }

    /// Days of changes: `Jn` never counts February 29, `n` does, `Mm.5.d` is the last such weekday.
    @Test func daysOfTheYear() {
        func date(_ day: Rule.Change.Day, _ year: Int64) -> Int64 { Rule.localDay(of: day, inYear: year) }
        func civil(_ y: Int, _ m: Int, _ d: Int) -> Int64 { CivilDate.days(year: Int64(y), month: Int64(m), day: Int64(d)) }
        for year in 1999...2030 {
            #expect(date(.julian(60), Int64(year)) == civil(year, 3, 1))
            #expect(date(.julian(365), Int64(year)) == civil(year, 12, 31))
            #expect(date(.zeroBased(0), Int64(year)) == civil(year, 1, 1))
            #expect(
                date(.zeroBased(59), Int64(year))
                    == civil(
                        year, Int(CivilDate.daysIn(month: Int64(2), year: Int64(year))) == 29 ? 2 : 3,
                        Int(CivilDate.daysIn(month: Int64(2), year: Int64(year))) == 29 ? 29 : 1))
            for (month, days) in [(2, Int(CivilDate.daysIn(month: Int64(2), year: Int64(year)))), (3, 31), (10, 31), (11, 30)] {
                let last = Int(date(.monthWeekDay(month: month, week: 5, weekday: 0), Int64(year)) - civil(year, month, 1)) + 1
                #expect(last == TimeZoneRulesTests.lastSunday(year, month, days: days))
                let second = Int(date(.monthWeekDay(month: month, week: 2, weekday: 0), Int64(year)) - civil(year, month, 1)) + 1
                #expect(second == TimeZoneRulesTests.nthSunday(2, year, month))
            }
        }
    }

    @Test func daylightTimeAllYear() throws {
        let always = try #require(TimeZoneRules(posix: "EST5EDT,0/0,J365/25"))
        for year in [2025, 2026, 2028] {
            for (m, d, h) in [(1, 1, 0), (1, 1, 4), (1, 1, 5), (6, 30, 12), (12, 31, 23)] {
                #expect(always.offset(at: TimeZoneRulesTests.utc(year, m, d, Int64(h))) == -14_400, "\(year)-\(m)-\(d) \(h)h")
            }
        }
    }

    /// Changes are computed the same way for any year: far ones work, and the civil year of a day
    /// is the inverse of the day of a date.
    @Test func civilYears() {
        for year in [-4000, -1, 0, 1, 1600, 1969, 1970, 2000, 2026, 2100, 40_000] {
            #expect(CivilDate.date(daysSince1970: CivilDate.days(year: Int64(year), month: 1, day: 1)).year == Int64(year))
            #expect(CivilDate.date(daysSince1970: CivilDate.days(year: Int64(year), month: 12, day: 31)).year == Int64(year))
        }
        #expect(CivilDate.floorDivide(-1, 86_400) == -1 && CivilDate.floorDivide(0, 86_400) == 0 && CivilDate.floorDivide(86_399, 86_400) == 0)
        #expect((0..<7).map { CivilDate.weekday(daysSince1970: $0) } == [4, 5, 6, 0, 1, 2, 3])
    }
}
