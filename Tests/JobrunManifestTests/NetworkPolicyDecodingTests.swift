import JobrunCore
import JobrunTestSupport
import Testing
@testable import JobrunManifest

/// `network:` in `defaults` and resources: each key merges over `defaults` on its own, and every
/// mistake, or key that would do nothing, is reported at its place.
@Suite struct NetworkPolicyDecodingTests {
    /// The fixture time zone database (so the tests do not depend on the machine's).
    static let zones = ["TZDIR": ZoneInfoFixture.directory]

    static func instant(_ rfc3339: String) throws -> Date {
        Date(timeIntervalSince1970: Double(try #require(RFC3339.milliseconds(rfc3339))) / 1000)
    }

    @Test func defaultsMergeKeyByKey() throws {
        let loaded = try loadManifests(
            [
                "m.yaml": """
                version: 1
                defaults:
                  network:
                    cellular: false
                    window: 01:00-06:00
                    timezone: Europe/Berlin
                    not_before: 2026-12-01T02:00:00Z
                    max_deferral: 7d
                resources:
                  - {id: a, base_url: "https://h/", slices: [{path: x}]}
                  - id: b
                    base_url: https://h/
                    network: {window: "22:00-05:30", max_deferral: 36h, discretionary: true}
                    slices: [{path: y}]
                  - id: c
                    base_url: https://h/
                    network: {cellular: true, discretionary: true, timezone: America/New_York, not_before: "2027-01-01T00:00:00+01:00"}
                    slices: [{path: z}]
                  - id: d
                    base_url: https://h/
                    network: {window: "00:00-24:00"}
                    slices: [{path: w}]
                """
            ], environment: Self.zones)
        #expect(loaded.rendered == "")
        let r = try #require(loaded.manifest).resources.map(\.settings.network)
        let berlin = try ZoneInfoFixture.rules("Europe/Berlin")
        let newYork = try ZoneInfoFixture.rules("America/New_York")
        let december = try Self.instant("2026-12-01T02:00:00Z")

        #expect(!r[0].allowsCellular && !r[0].isDiscretionary)
        #expect(r[0].window == DailyWindow(start: 60, end: 360))
        #expect(r[0].timeZone == berlin)
        #expect(r[0].notBefore == december)
        #expect(r[0].maxDeferral == .seconds(7 * 86_400))

        #expect(!r[1].allowsCellular && r[1].isDiscretionary)
        #expect(r[1].window == DailyWindow(start: 22 * 60, end: 5 * 60 + 30))
        #expect(r[1].timeZone == berlin && r[1].notBefore == december)
        #expect(r[1].maxDeferral == .seconds(36 * 3_600))

        #expect(r[2].allowsCellular && r[2].isDiscretionary)
        #expect(r[2].window == DailyWindow(start: 60, end: 360))
        #expect(r[2].timeZone == newYork)
        #expect(r[2].notBefore == (try Self.instant("2026-12-31T23:00:00Z")))
        #expect(r[2].maxDeferral == .seconds(7 * 86_400))

        // `00:00-24:00` lifts the window and nothing else.
        #expect(r[3].window == nil)
        #expect(r[3].timeZone == berlin && !r[3].allowsCellular && r[3].maxDeferral == .seconds(7 * 86_400))
    }

    /// Without `network`, nothing defers a resource: a metered connection is allowed.
    @Test func absentKeysDeferNothing() throws {
        let loaded = try loadManifests(
            [
                "m.yaml": """
                version: 1
                defaults: {network: {}}
                resources:
                  - {id: a, base_url: "https://h/", slices: [{path: x}]}
                  - {id: b, base_url: "https://h/", network: {discretionary: false}, slices: [{path: x}]}
                """
            ], environment: Self.zones)
        #expect(loaded.rendered == "")
        for policy in try #require(loaded.manifest).resources.map(\.settings.network) {
            #expect(policy == NetworkPolicy())
            #expect(policy.allowsCellular && !policy.isDiscretionary && !policy.defersForConditions)
            #expect(policy.window == nil && policy.timeZone == nil && policy.notBefore == nil && policy.maxDeferral == nil)
        }
    }

    @Test func everyMistakeAtItsPlace() throws {
        let text = try diagnose(
            """
            version: 1
            defaults:
              network: {window: "1:00-6:00", max_defferal: 7d}
            resources:
              - id: a
                base_url: https://h/
                network:
                  window: "01:00-0600"
                  timezone: Europe/Berln
                  not_before: 2026-12-01
                  max_deferral: 30s
                slices: [{path: x}]
              - id: b
                base_url: https://h/
                network:
                  window: "06:00-25:00"
                  timezone: "../etc/passwd"
                  not_before: "2026-12-01T02:00:00"
                  max_deferral: 400d
                slices: [{path: y}]
              - id: c
                base_url: https://h/
                network:
                  window: "06:00 - 06:00"
                  timezone: new york
                  max_deferral: 7
                  cellular: "false"
                slices: [{path: z}]
              - id: d
                base_url: https://h/
                network: {window: "24:00-06:00", timezone: [Europe/Berlin], not_before: {at: now}, max_deferral: 1y}
                slices: [{path: w}]
            """, environment: Self.zones)
        #expect(
            text == """
                m.yaml:3:34: error: unknown key 'max_defferal' in 'network' (did you mean 'max_deferral'?)
                  network: {window: "1:00-6:00", max_defferal: 7d}
                                                 ^
                m.yaml:8:15: error: 'window' must be a daily time range in 24-hour local time, like 01:00-06:00 or 22:00-06:00; found '01:00-0600'
                      window: "01:00-0600"
                              ^
                m.yaml:9:17: error: unknown time zone 'Europe/Berln' (did you mean 'Europe/Berlin'?); write an IANA name like Europe/Berlin or UTC
                      timezone: Europe/Berln
                                ^
                m.yaml:10:19: error: 'not_before' must be an RFC 3339 date and time with a zone, like 2026-12-01T02:00:00Z or 2026-12-01T03:00:00+01:00; found '2026-12-01'
                      not_before: 2026-12-01
                                  ^
                m.yaml:11:21: error: 'max_deferral' is out of range: 30s (allowed: 1m…365d)
                      max_deferral: 30s
                                    ^
                m.yaml:16:22: error: 'window' has an invalid time '25:00' (hours 00 to 23, minutes 00 to 59; 24:00 only as the end)
                      window: "06:00-25:00"
                                     ^
                m.yaml:17:17: error: unknown time zone '../etc/passwd'; write an IANA name like Europe/Berlin or UTC
                      timezone: "../etc/passwd"
                                ^
                m.yaml:18:19: error: 'not_before' must be an RFC 3339 date and time with a zone, like 2026-12-01T02:00:00Z or 2026-12-01T03:00:00+01:00; found '2026-12-01T02:00:00'
                      not_before: "2026-12-01T02:00:00"
                                  ^
                m.yaml:19:21: error: 'max_deferral' is out of range: 400d (allowed: 1m…365d)
                      max_deferral: 400d
                                    ^
                m.yaml:24:15: error: 'window' 06:00 - 06:00 starts where it ends; give a range, or leave 'window' out to allow any time
                      window: "06:00 - 06:00"
                              ^
                m.yaml:25:17: error: unknown time zone 'new york' (did you mean 'America/New_York'?); write an IANA name like Europe/Berlin or UTC
                      timezone: new york
                                ^
                m.yaml:26:21: error: 'max_deferral' is not a valid duration: '7': a unit is missing (write e.g. '7s')
                      max_deferral: 7
                                    ^
                m.yaml:27:17: error: 'cellular' must be true or false, found the quoted string 'false'
                      cellular: "false"
                                ^
                m.yaml:31:24: error: 'window' has an invalid time '24:00' (hours 00 to 23, minutes 00 to 59; 24:00 only as the end)
                    network: {window: "24:00-06:00", timezone: [Europe/Berlin], not_before: {at: now}, max_deferral: 1y}
                                       ^
                m.yaml:31:48: error: 'timezone' must be a string, found a list
                    network: {window: "24:00-06:00", timezone: [Europe/Berlin], not_before: {at: now}, max_deferral: 1y}
                                                               ^
                m.yaml:31:77: error: 'not_before' must be an RFC 3339 date and time, found a mapping
                    network: {window: "24:00-06:00", timezone: [Europe/Berlin], not_before: {at: now}, max_deferral: 1y}
                                                                                            ^
                m.yaml:31:102: error: 'max_deferral' is not a valid duration: '1y': unknown unit 'y' (use ms, s, m, h or d)
                    network: {window: "24:00-06:00", timezone: [Europe/Berlin], not_before: {at: now}, max_deferral: 1y}
                                                                                                                     ^

                """)
    }

    /// Keys that would change nothing are warned about where they are written: a resource's own at
    /// once, the `defaults`' when no resource of the file that takes them is changed by them.
    @Test func keysThatDoNothingAreWarnedAbout() throws {
        let loaded = try loadManifests(
            [
                "m.yaml": """
                version: 1
                defaults:
                  network: {timezone: Europe/Berlin, max_deferral: 7d}
                resources:
                  - id: a
                    base_url: https://h/
                    network: {timezone: America/New_York, max_deferral: 1d}
                    slices: [{path: x}]
                  - id: b
                    base_url: https://h/
                    network: {window: "00:00-24:00", cellular: true}
                    slices: [{path: y}]
                """
            ], environment: Self.zones)
        #expect(loaded.manifest != nil)  // warnings only
        #expect(
            loaded.rendered == """
                m.yaml:3:23: warning: 'timezone' in 'defaults' has no effect: it is the zone of 'window', and no resource of this file that takes it has one
                  network: {timezone: Europe/Berlin, max_deferral: 7d}
                                      ^
                m.yaml:3:52: warning: 'max_deferral' in 'defaults' has no effect: it limits deferral for a metered network, power or load, and no resource of this file that takes it has 'discretionary: true' or 'cellular: false'
                  network: {timezone: Europe/Berlin, max_deferral: 7d}
                                                                   ^
                m.yaml:7:25: warning: 'timezone' has no effect: it is the zone of 'window', and resource 'a' has none
                    network: {timezone: America/New_York, max_deferral: 1d}
                                        ^
                m.yaml:7:57: warning: 'max_deferral' has no effect: it limits deferral for a metered network, power or load, and resource 'a' has neither 'discretionary: true' nor 'cellular: false'
                    network: {timezone: America/New_York, max_deferral: 1d}
                                                                        ^
                m.yaml:11:23: warning: 'window' 00:00-24:00 is open all day and 'defaults' sets no window for it to lift, so it has no effect
                    network: {window: "00:00-24:00", cellular: true}
                                      ^

                """)
    }

    @Test func keysThatTakeEffectAreNotWarnedAbout() throws {
        let loaded = try loadManifests(
            [
                "m.yaml": """
                version: 1
                defaults:
                  network: {timezone: Europe/Berlin, max_deferral: 7d, window: "01:00-05:00"}
                resources:
                  - {id: a, base_url: "https://h/", slices: [{path: x}]}
                  - {id: b, base_url: "https://h/", network: {window: "00:00-24:00", cellular: false}, slices: [{path: y}]}
                  - {id: c, base_url: "https://h/", network: {timezone: UTC, max_deferral: 1h, discretionary: true}, slices: [{path: z}]}
                """
            ], environment: Self.zones)
        #expect(loaded.rendered == "")
        // The defaults' zone is used by a resource with a window of its own, the defaults'
        // max_deferral by one that defers for conditions, though others do not use them.
        let split = try loadManifests(
            [
                "m.yaml": """
                version: 1
                defaults:
                  network: {timezone: Europe/Berlin, max_deferral: 7d}
                resources:
                  - {id: a, base_url: "https://h/", slices: [{path: x}]}
                  - {id: b, base_url: "https://h/", network: {window: "22:00-06:00"}, slices: [{path: y}]}
                  - {id: c, base_url: "https://h/", network: {discretionary: true}, slices: [{path: z}]}
                """
            ], environment: Self.zones)
        #expect(split.rendered == "")
        // A mistake in the defaults is reported, not the keys it leaves without effect.
        let broken = try diagnose(
            """
            version: 1
            defaults:
              network: {timezone: Europe/Berlin, window: "1-5"}
            resources:
              - {id: a, base_url: "https://h/", slices: [{path: x}]}
            """, environment: Self.zones)
        #expect(broken.hasPrefix("m.yaml:3:46: error: 'window' must be a daily time range"))
        #expect(!broken.contains("warning"))
    }

    @Test func withoutADatabaseNoZoneIsFound() throws {
        let text = try diagnose(
            """
            version: 1
            defaults:
              network: {window: "01:00-06:00", timezone: Europe/Berlin}
            resources:
              - {id: a, base_url: "https://h/", slices: [{path: x}]}
            """, environment: ["TZDIR": "/nonexistent/zoneinfo"])
        #expect(
            text == """
                m.yaml:3:46: error: time zone 'Europe/Berlin' cannot be looked up: there is no time zone database in '/nonexistent/zoneinfo' (install the tzdata package, or set TZDIR)
                  network: {window: "01:00-06:00", timezone: Europe/Berlin}
                                                             ^

                """)
    }

    @Test(arguments: [
        ("01:00-06:00", 60, 360), ("1:00-6:00", 60, 360), ("01:00 - 06:00", 60, 360), ("22:00-06:00", 1_320, 360),
        ("22:00-00:00", 1_320, 0), ("18:00-24:00", 1_080, 1_440), ("00:00-23:59", 0, 1_439), ("23:59-00:00", 1_439, 0),
    ])
    func windowsAsWritten(text: String, start: Int, end: Int) throws {
        let w = try #require(try ManifestDecoder.parseWindow(text).get())
        #expect(w.start == start && w.end == end)
    }

    @Test func windowsThatAreNotOne() throws {
        #expect(try ManifestDecoder.parseWindow("00:00-24:00").get() == nil)  // all day
        for text in [
            "01:00", "01:00-", "-06:00", "0100-0600", "01:00-06:00-07:00", "001:00-06:00", "01:0-06:00", "a1:00-06:00",
            "01:00–06:00", "01:00-06:00Z", " ", "1-5", "01:00--06:00",
        ] {
            guard case .failure(.malformed) = ManifestDecoder.parseWindow(text) else {
                Issue.record("'\(text)' is not refused as malformed")
                continue
            }
        }
        for (text, time, offset) in [("24:00-06:00", "24:00", 0), ("01:60-02:00", "01:60", 0), ("06:00 - 24:01", "24:01", 8), ("6:00-99:00", "99:00", 5)] {
            guard case .failure(.invalidTime(let t, let o)) = ManifestDecoder.parseWindow(text), t == time, o == offset else {
                Issue.record("'\(text)' is not refused for '\(time)' at \(offset)")
                continue
            }
        }
        for text in ["06:00-06:00", "00:00-00:00", "6:00 - 06:00"] {
            guard case .failure(.empty) = ManifestDecoder.parseWindow(text) else {
                Issue.record("'\(text)' is not refused as empty")
                continue
            }
        }
    }

    /// Unquoted in a flow mapping too, as other values are written.
    @Test func unquotedInAFlowMapping() throws {
        let loaded = try loadManifests(
            [
                "m.yaml": """
                version: 1
                resources:
                  - {id: a, base_url: "https://h/", network: {window: 01:00-06:00, not_before: 2026-12-01T02:00:00Z}, slices: [{path: x}]}
                """
            ], environment: Self.zones)
        #expect(loaded.rendered == "")
        #expect(loaded.manifest?.resources.first?.settings.network.window?.description == "01:00-06:00")
    }

    /// A long list is decoded in parallel chunks: a use of the defaults in any chunk counts.
    @Test func defaultsUsedInAnyChunkOfALongList() throws {
        func manifest(lastHasWindow: Bool) -> String {
            var text = "version: 1\ndefaults:\n  network: {timezone: Europe/Berlin, window: \"00:00-24:00\"}\nresources:\n"
            for i in 0..<200 { text += "  - {id: r\(i), base_url: \"https://h/\", slices: [{path: x}]}\n" }
            if lastHasWindow { text += "  - {id: last, base_url: \"https://h/\", network: {window: \"01:00-02:00\"}, slices: [{path: x}]}\n" }
            return text
        }
        let allDay = """
            m.yaml:3:46: warning: 'window' 00:00-24:00 is open all day, so it has no effect
              network: {timezone: Europe/Berlin, window: "00:00-24:00"}
                                                         ^

            """
        #expect(try loadManifests(["m.yaml": manifest(lastHasWindow: true)], environment: Self.zones).rendered == allDay)
        #expect(
            try loadManifests(["m.yaml": manifest(lastHasWindow: false)], environment: Self.zones).rendered == """
                m.yaml:3:23: warning: 'timezone' in 'defaults' has no effect: it is the zone of 'window', and no resource of this file that takes it has one
                  network: {timezone: Europe/Berlin, window: "00:00-24:00"}
                                      ^

                """ + allDay)
    }
}
