import Foundation
import JobrunTestSupport
import JobrunCore
import Testing
@testable import JobrunSystem

/// Reading TZif files, looking zones up by name, and finding the machine's zone.
@Suite struct TimeZoneRulesLoadingTests {
    /// A TZif file: `version` 0 (only the 32-bit block) or `2`, `3`, `4` (both blocks and `footer`).
    static func tzif(
        version: UInt8 = UInt8(ascii: "2"), transitions: [(Int64, UInt8)] = [], offsets: [Int32] = [0],
        leapSeconds: Int = 0, footer: String = ""
    ) -> [UInt8] {
        func be(_ v: Int64, _ size: Int) -> [UInt8] { (0..<size).reversed().map { UInt8(truncatingIfNeeded: v >> (8 * $0)) } }
        func block(timeSize: Int) -> [UInt8] {
            var b = Array("TZif".utf8) + [version] + [UInt8](repeating: 0, count: 15)
            for count in [0, 0, leapSeconds, transitions.count, offsets.count, 4] { b += be(Int64(count), 4) }
            for t in transitions { b += be(t.0, timeSize) }
            for t in transitions { b.append(t.1) }
            for o in offsets { b += be(Int64(o), 4) + [0, 0] }
            b += Array("XYZ\0".utf8)
            for k in 0..<leapSeconds { b += be(Int64(k), timeSize) + be(Int64(k + 1), 4) }
            return b
        }
        var bytes = block(timeSize: 4)
        if version >= UInt8(ascii: "2") { bytes += block(timeSize: 8) + Array("\n\(footer)\n".utf8) }
        return bytes
    }

    @Test func readsVersionOneAndLaterFiles() throws {
        let transitions: [(Int64, UInt8)] = [(1_000, 1), (2_000, 0)]
        for version in [0, UInt8(ascii: "2"), UInt8(ascii: "3"), UInt8(ascii: "4")] {
            let zone = try TimeZoneRules(identifier: "Test/Zone", tzif: Self.tzif(version: version, transitions: transitions, offsets: [3_600, 7_200]))
            #expect(zone.identifier == "Test/Zone")
            #expect([999, 1_000, 1_999, 2_000, 9_999].map { zone.offset(at: $0) } == [3_600, 7_200, 7_200, 3_600, 3_600])
        }
        // After the last transition the TZ string decides; without transitions it decides always.
        let withRule = try TimeZoneRules(identifier: "x", tzif: Self.tzif(transitions: [(0, 0)], offsets: [3_600], footer: "CET-1CEST,M3.5.0,M10.5.0/3"))
        #expect(withRule.offset(at: TimeZoneRulesTests.utc(2026, 7, 1)) == 7_200)
        let ruleOnly = try TimeZoneRules(identifier: "x", tzif: Self.tzif(offsets: [0], footer: "<+0530>-5:30"))
        #expect(ruleOnly.offset(at: 0) == 19_800)
    }

    @Test func refusesBrokenFiles() {
        func problem(_ bytes: [UInt8]) -> TimeZoneRules.TZifProblem? {
            do {
                _ = try TimeZoneRules(identifier: "x", tzif: bytes)
                return nil
            } catch {
                return error
            }
        }
        let good = Self.tzif(transitions: [(1_000, 0)], offsets: [3_600], footer: "CET-1")
        #expect(problem(good) == nil)
        #expect(problem(Array("# tzdb timezone descriptions\n".utf8)) == .notTZif)
        #expect(problem([]) == .notTZif)
        #expect(problem(Array(good.prefix(50))) == .malformed("it is truncated"))
        #expect(problem(Array(good.prefix(60))) == .malformed("its second header is missing"))
        #expect(problem(Array(good.dropLast(1))) == .malformed("its TZ string is missing"))
        #expect(problem(Self.tzif(leapSeconds: 2)) == .leapSeconds)
        #expect(problem(Self.tzif(transitions: [(2_000, 0), (1_000, 0)])) == .malformed("its transitions are out of order"))
        #expect(problem(Self.tzif(transitions: [(1_000, 3)])) == .malformed("a transition names a time type it does not have"))
        #expect(problem(Self.tzif(offsets: [26 * 3_600 + 1])) == .malformed("an offset is more than 26 hours from UTC"))
        #expect(problem(Self.tzif(offsets: [])) == .malformed("its counts are inconsistent"))
        #expect(problem(Self.tzif(footer: "CET-1CEST")) == .malformed("its TZ string 'CET-1CEST' is not understood"))
        var huge = good
        huge[20 + 12] = 0x7F  // the v1 transition count, far past the file
        #expect(problem(huge) == .malformed("a count is larger than the file"))
    }

    @Test func looksZonesUpByName() throws {
        let dir = ZoneInfoFixture.directory
        #expect(try TimeZoneRules.load("Europe/Berlin", directory: dir).get().identifier == "Europe/Berlin")
        for unknown in ["Europe/Berln", "Europe", "Mars/Olympus", "zone1970.tab", "Europe/Berlin/x"] {
            #expect(TimeZoneRules.load(unknown, directory: dir) == .failure(.unknown), "\(unknown)")
        }
        for invalid in [
            "", "/etc/localtime", "../zoneinfo/UTC", "Europe/../UTC", "Europe//Berlin", "Europe/", "./UTC", "New York", "Europe/Berlin\n", "Zürich",
        ] {
            #expect(TimeZoneRules.load(invalid, directory: dir) == .failure(.invalidIdentifier), "\(invalid)")
        }
        #expect(TimeZoneRules.isValidIdentifier("Etc/GMT+5") && TimeZoneRules.isValidIdentifier("America/Port-au-Prince"))
        #expect(TimeZoneRules.load("UTC", directory: dir + "/missing") == .failure(.noDatabase(directory: dir + "/missing")))
        let denied = TimeZoneRules.load("UTC", directory: dir) { _ in .failure(.system(errno: EACCES)) }
        #expect(denied == .failure(.unreadable(path: dir + "/UTC", reason: systemErrorText(EACCES))))
        let broken = TimeZoneRules.load("UTC", directory: "/db") { _ in .success(Array("TZif2".utf8)) }
        #expect(broken == .failure(.malformed(path: "/db/UTC", problem: .malformed("it is truncated"))))
        #expect(TimeZoneRules.directory(environment: [:]) == "/usr/share/zoneinfo")
        #expect(TimeZoneRules.directory(environment: ["TZDIR": ""]) == "/usr/share/zoneinfo")
        #expect(TimeZoneRules.directory(environment: ["TZDIR": dir]) == dir)
    }

    @Test func listsTheDatabasesNames() {
        #expect(
            TimeZoneRules.identifiers(directory: ZoneInfoFixture.directory) == [
                "America/New_York", "America/Nuuk", "Australia/Lord_Howe", "Europe/Berlin", "Europe/Dublin", "Pacific/Apia", "UTC",
            ])
        // tzdata.zi, when there, names zones (Z) and their aliases (L) and is read instead.
        let zi =
            "# version 2025b\nR E 1981 ma - Mar lastSu 1u 1 S\nZ Europe/Berlin 0:53:28 - LMT 1893 Ap\nL Europe/Berlin Arctic/Longyearbyen\nZ Etc/UTC 0 - UTC\n"
        let names = TimeZoneRules.identifiers(directory: "/db") { path in
            path == "/db/tzdata.zi" ? .success(Array(zi.utf8)) : .failure(.system(errno: ENOENT))
        }
        #expect(names == ["Arctic/Longyearbyen", "Etc/UTC", "Europe/Berlin"])
        #expect(TimeZoneRules.identifiers(directory: ZoneInfoFixture.directory + "/missing").isEmpty)
    }

    @Test func findsTheLocalZoneAsTheCLibraryDoes() throws {
        let dir = ZoneInfoFixture.directory
        let env = ["TZDIR": dir]
        #expect(TimeZoneRules.local(environment: env.merging(["TZ": "Europe/Berlin"]) { $1 }).identifier == "Europe/Berlin")
        #expect(TimeZoneRules.local(environment: env.merging(["TZ": ":America/New_York"]) { $1 }).identifier == "America/New_York")
        #expect(TimeZoneRules.local(environment: env.merging(["TZ": dir + "/Europe/Dublin"]) { $1 }).identifier == dir + "/Europe/Dublin")
        let posix = TimeZoneRules.local(environment: env.merging(["TZ": "EST5EDT,M3.2.0,M11.1.0"]) { $1 })
        #expect(posix.identifier == "EST5EDT,M3.2.0,M11.1.0")
        #expect(posix.offset(at: TimeZoneRulesTests.utc(2026, 7, 1)) == -14_400)
        for utc in ["", ":", "Nowhere/Special", "/nonexistent/zone"] {
            #expect(TimeZoneRules.local(environment: env.merging(["TZ": utc]) { $1 }) == .utc, "TZ=\(utc)")
        }
        // Without TZ: /etc/localtime, named after the zone its link points to.
        let tmp = try TemporaryDirectory()
        defer { tmp.remove() }
        try FileManager.default.createSymbolicLink(atPath: tmp.path("localtime"), withDestinationPath: dir + "/Europe/Berlin")
        let linked = TimeZoneRules.local(environment: env, localtime: tmp.path("localtime"))
        #expect(linked.identifier == "Europe/Berlin")
        #expect(linked.offset(at: TimeZoneRulesTests.utc(2026, 7, 1)) == 7_200)
        _ = try tmp.write(file: "plain", bytes: try TimeZoneRules.readFile(dir + "/Europe/Berlin").get())
        #expect(TimeZoneRules.local(environment: env, localtime: tmp.path("plain")).identifier == "localtime")
        #expect(TimeZoneRules.local(environment: env, localtime: tmp.path("absent")) == .utc)
    }
}
