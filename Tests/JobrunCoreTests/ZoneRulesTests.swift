@testable import JobrunCore
import JobrunTestSupport
import Testing

@Suite struct ZoneRulesTests {
    static func zone(_ name: String) throws -> ZoneRules {
        try ZoneRules.named(name).get()
    }

    @Test func daylightSavingTransitionsFromTheFile() throws {
        let berlin = try Self.zone("Europe/Berlin")
        // 2026-03-29 01:00 UTC: 02:00 CET becomes 03:00 CEST; 2026-10-25 01:00 UTC back.
        let spring: Int64 = 1_774_746_000
        let fall: Int64 = 1_792_890_000
        #expect(berlin.offset(atSecond: spring - 1) == 3600)
        #expect(berlin.offset(atSecond: spring) == 7200)
        #expect(berlin.offset(atSecond: fall - 1) == 7200)
        #expect(berlin.offset(atSecond: fall) == 3600)
        let newYork = try Self.zone("America/New_York")
        #expect(newYork.offset(atSecond: 1_772_953_200 - 1) == -18000)  // 2026-03-08 07:00 UTC
        #expect(newYork.offset(atSecond: 1_772_953_200) == -14400)
        #expect(try Self.zone("UTC").offset(atSecond: spring) == 0)
        #expect(berlin.rfc3339(second: spring) == "2026-03-29T03:00:00+02:00")
        #expect(newYork.rfc3339(second: 0) == "1969-12-31T19:00:00-05:00")
    }

    /// Every zone given agrees with Python's zoneinfo (the same database, another reader) at
    /// instants spread over 1900–2150, past the files' last transitions where the footer's rule
    /// decides, and around each transition.
    @Test(arguments: ["Europe/Berlin", "America/New_York", "Australia/Sydney", "Asia/Kolkata", "America/Santiago", "Africa/Casablanca", "Pacific/Chatham", "Europe/Dublin", "America/St_Johns"])
    func agreesWithPythonZoneinfo(name: String) throws {
        // The same instants as the script's loop below.
        let zone = try Self.zone(name)
        var instants: [Int64] = []
        var t: Int64 = -2_208_988_800  // 1900
        while t < 5_680_281_600 {  // 2150
            instants.append(t)
            t += 86_400 * 7 + 3_607
        }
        let script = """
            import sys, zoneinfo, datetime
            z = zoneinfo.ZoneInfo(sys.argv[1])
            t = -2208988800
            while t < 5680281600:
                d = datetime.datetime.fromtimestamp(t, tz=datetime.timezone.utc).astimezone(z)
                print(int(d.utcoffset().total_seconds()))
                t += 86400 * 7 + 3607
            """
        let run = try BinaryRunner(executable: "/usr/bin/python3").runBlocking(["-c", script, name])
        #expect(run.status == 0, "\(run)")
        let expected = run.stdout.split(separator: "\n").map { Int32($0) }
        #expect(expected.count == instants.count)
        var mismatches: [String] = []
        for (i, t) in instants.enumerated() where i < expected.count && zone.offset(atSecond: t) != expected[i] {
            mismatches.append("\(zone.rfc3339(second: t)) (\(t)): \(zone.offset(atSecond: t)) vs \(expected[i].map(String.init) ?? "?")")
        }
        #expect(mismatches.isEmpty, "\(mismatches.prefix(5))")
    }

    @Test func posixRulesAfterTheLastTransition() {
        // Southern hemisphere: daylight time spans the new year.
        let sydney = ZoneRules(identifier: "x", transitions: [], offsets: [], initialOffset: 0, rule: PosixZoneRule("AEST-10AEDT,M10.1.0,M4.1.0/3"))
        #expect(sydney.offset(atSecond: 4_102_444_800) == 39600)  // 2100-01-01: summer
        #expect(sydney.offset(atSecond: 4_118_083_200) == 36000)  // 2100-07-01: winter
        // Standard time only, with an angle-bracketed name.
        #expect(PosixZoneRule("<+0330>-3:30")?.offset(atSecond: 0) == 12600)
        // Malformed rules are refused, not guessed.
        for bad in ["", "C", "CET", "CET-1CEST,M13.1.0,M10.5.0", "CET-1CEST,M3.5.0", "CET-1CEST,M3.5.0,M10.5.0/200", "CET-1CEST,J0,J365", "CET-1x"] {
            #expect(PosixZoneRule(bad) == nil, "\(bad)")
        }
    }

    @Test func namesAreCheckedBeforeTheDatabaseIsRead() {
        for bad in ["", "/etc/passwd", "../../etc/passwd", "Europe/../../x", "Europe/Berlin\n", "Europe/ Berlin"] {
            #expect(ZoneRules.named(bad) == .failure(.invalidName), "\(bad)")
        }
        #expect(ZoneRules.named("Europe/Nowhere") == .failure(.unknown))
    }

    @Test func localZoneFromTheEnvironmentThenLocaltime() throws {
        #expect(ZoneRules.local(environment: ["TZ": "Europe/Berlin"]).identifier == "Europe/Berlin")
        #expect(ZoneRules.local(environment: ["TZ": ":Asia/Kolkata"]).offset(atSecond: 0) == 19800)
        let posix = ZoneRules.local(environment: ["TZ": "EST5EDT,M3.2.0,M11.1.0"])
        #expect(posix.offset(atSecond: 1_783_000_000) == -14400)
        let dir = try TemporaryDirectory()
        let link = dir.path + "/localtime"
        #expect(symlink(ZoneRules.database + "/Australia/Sydney", link) == 0)
        let local = ZoneRules.local(environment: [:], localtime: link)
        #expect(local.identifier == "Australia/Sydney")
        #expect(ZoneRules.local(environment: [:], localtime: dir.path + "/missing") == .utc)
    }
}
