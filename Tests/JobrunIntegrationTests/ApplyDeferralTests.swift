import Foundation
import JobrunState
import JobrunTestSupport
import Testing

/// The network policy in `apply`: deferred work is never fetched and never silent (log, JSON,
/// JUnit, events, the store), exits 0 unless `--require-complete`, and conditions are judged
/// again while the run goes.
@Suite struct ApplyDeferralTests {
    static func manifest(_ fixture: ApplyFixture, video: Int = 2, delayMs: Int = 0) -> String {
        let fault = delayMs > 0 ? "/fault/delay_ms=\(delayMs)" : ""
        return """
            version: 1
            defaults: {output: mirror}
            resources:
              - id: video
                base_url: \(fixture.url("\(fault)/gen/"))
                concurrency: {per_host: 1}
                network: {cellular: false}
                slices:
            \((0..<video).map { "      - {path: \(100 + $0)/v\($0).ts, size: \(100 + $0)}" }.joined(separator: "\n"))
              - id: index
                base_url: \(fixture.url("/gen/"))
                depends_on: [video]
                network: {cellular: true}
                slices: [{path: 10/index.json, size: 10}]
              - id: free
                base_url: \(fixture.url("/gen/"))
                network: {cellular: true}
                slices: [{path: 20/free.bin, size: 20}]
            """
    }

    @Test func deferredWorkIsNeverFetchedAndSaysWhyEverywhere() async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        try fixture.write(manifest: Self.manifest(fixture))
        let (result, report) = try await fixture.applyJSON(["--metered", "yes", "--junit", "r.xml", "--events", "ev.ndjson"])
        #expect(result.status == 0, "\(result)")
        #expect(report.summary.fetched == 1 && report.summary.deferred == 3 && report.summary.failed == 0, "\(result)")
        // Not one request for deferred work.
        let paths = try await fixture.sentRequests().map(\.pathWithoutQuery)
        #expect(paths == ["/gen/20/free.bin"])
        #expect(fixture.size(of: "mirror/video/100/v0.ts") == nil)
        // JSON: per resource and per slice.
        let video = try #require(report.resources.first { $0.id == "video" })
        #expect(video.deferral?.reasons == ["metered"] && video.deferral?.message == "deferred: metered network (--metered yes)")
        #expect(video.slices.allSatisfy { $0.status == "deferred" && $0.skipReason == "deferred: metered network (--metered yes)" })
        let index = try #require(report.resources.first { $0.id == "index" })
        #expect(index.deferral?.reasons == ["dependency"] && index.deferral?.message == "deferred: depends on 'video', which is deferred")
        #expect(report.resources.first { $0.id == "free" }?.deferral == nil)
        // JUnit: skipped with the reason.
        let junit = try JUnitFile.parse(String(contentsOfFile: fixture.directory.path("r.xml"), encoding: .utf8))
        let skipped = junit.cases.filter { $0.value.kind == "skipped" }
        #expect(skipped.count == 3)
        #expect(skipped.values.filter { $0.message == "deferred: metered network (--metered yes)" }.count == 2)
        // Events: one per deferred resource, valid against the schema.
        let events = try EventLog.read("ev.ndjson", in: fixture.directory)
        events.expectValidAgainstTheSchema()
        let deferred = events.all("resource_deferred")
        #expect(deferred.map { $0.string("resource") } == ["video", "index"])
        #expect(deferred.first?.data["reasons"] as? [String] == ["metered"])
        #expect(deferred.first?.data["details"] as? [String] == ["metered network (--metered yes)"])
        #expect(deferred.first?.isNull("until") == true)
    }

    @Test func theLogAndSummaryBreakDeferralsAndRequireCompleteExits75() async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        try fixture.write(manifest: Self.manifest(fixture))
        let first = try await fixture.apply(environment: ["JOBRUN_METERED": "yes"])
        #expect(first.status == 0, "\(first)")
        #expect(first.stdout.contains("? video: deferred: metered network (JOBRUN_METERED=yes)\n"), "\(first)")
        #expect(first.stdout.contains("? index: deferred: depends on 'video', which is deferred\n"), "\(first)")
        #expect(
            first.stdout.hasSuffix(
                "Apply complete! Slices: 1 fetched (20 B), 0 resumed, 0 up to date, 0 failed, 3 deferred (metered 2, dependency 1); 1 without digests (1 size only, 0 unverified).\n"
            ), "\(first)")
        let required = try await fixture.apply(["--require-complete"], environment: ["JOBRUN_METERED": "yes"])
        #expect(required.status == 75, "\(required)")
        // Once the network is not metered, the same command completes, and says nothing deferred.
        let later = try await fixture.apply(["--require-complete"], environment: ["JOBRUN_METERED": "no"])
        #expect(later.status == 0, "\(later)")
        #expect(
            later.stdout.hasSuffix(
                "Apply complete! Slices: 3 fetched (211 B), 0 resumed, 1 up to date, 0 failed, 0 deferred; 4 without digests (4 size only, 0 unverified).\n"),
            "\(later)")
        try await fixture.expectVerified()
    }

    /// The conditions turn bad while the run goes (NetworkManager says NO when the run starts,
    /// YES from its next answer on): the resource starts no new slice, what was under way
    /// finishes, the rest is deferred with the new reading.
    @Test func conditionsThatTurnBadMidRunDeferTheRest() async throws {
        let bus = try await PrivateBus.start()
        defer { bus.stop() }
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        let nm = try await FakeNetworkManager.start(on: bus, .meteredSequence(["2", "1"]))
        defer { nm.stop() }
        // One slice at a time, each answered after 1.5 s: the conditions are read again (every
        // 200 ms) long before the first one ends.
        try fixture.write(manifest: Self.manifest(fixture, video: 8, delayMs: 1500))
        let result = try await Harness.jobrun().run(
            ["apply", "site.yaml", "--json", "--conditions-interval", "200ms"], environment: ["DBUS_SYSTEM_BUS_ADDRESS": bus.address],
            removingEnvironment: ApplyFixture.removedEnvironment(keeping: ["DBUS_SYSTEM_BUS_ADDRESS": ""]), workingDirectory: fixture.directory.path)
        #expect(result.status == 0, "\(result)")
        let report = try ApplyJSON.decode(result.stdout, context: "\(result)")
        let video = try #require(report.resources.first { $0.id == "video" })
        let fetched = video.slices.filter { $0.status == "fetched" }
        let deferred = video.slices.filter { $0.status == "deferred" }
        // The plan deferred nothing; the first slice starts at once (unless the machine held
        // jobrun back past the first reading) and finishes; nothing starts after it.
        #expect(fetched.map(\.path).allSatisfy { $0 == "100/v0.ts" } && deferred.count == 8 - fetched.count, "\(result)")
        #expect(video.deferral?.message == "deferred: metered network (NetworkManager Metered=YES)", "\(result)")
        #expect(deferred.allSatisfy { $0.skipReason == "deferred: metered network (NetworkManager Metered=YES)" })
        // A deferred slice was never asked for; its dependent waits with it.
        let asked = try await fixture.sentRequests().map(\.pathWithoutQuery)
        #expect(asked.filter { $0.contains("/v") } == fetched.map { "/fault/delay_ms=1500/gen/\($0.path)" }, "\(asked)")
        #expect(report.resources.first { $0.id == "index" }?.deferral?.reasons == ["dependency"])
        #expect(nm.calls.count >= 2)
    }

    /// `--wait-for-conditions` waits instead of deferring: work held back at the start runs
    /// once the network is no longer metered; without a change, it is deferred at the wait's end.
    @Test func waitingForConditionsRunsTheWorkWhenTheyTurnGood() async throws {
        let bus = try await PrivateBus.start()
        defer { bus.stop() }
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        try fixture.write(manifest: Self.manifest(fixture))
        let environment = ["DBUS_SYSTEM_BUS_ADDRESS": bus.address]
        let removed = ApplyFixture.removedEnvironment(keeping: environment)
        let metered = try await FakeNetworkManager.start(on: bus, .metered("3"))
        let short = try await Harness.jobrun().run(
            ["apply", "site.yaml", "--wait-for-conditions", "1s", "--conditions-interval", "200ms", "--require-complete"],
            environment: environment, removingEnvironment: removed, workingDirectory: fixture.directory.path)
        metered.stop()
        #expect(short.status == 75, "\(short)")
        #expect(short.stdout.contains("? video: deferred: metered network (NetworkManager Metered=GUESS_YES)\n"), "\(short)")
        // Metered when the run starts and at its next two readings, then not.
        let nm = try await FakeNetworkManager.start(on: bus, .meteredSequence(["3", "3", "3", "4"]))
        defer { nm.stop() }
        let result = try await Harness.jobrun().run(
            ["apply", "site.yaml", "--wait-for-conditions", "60s", "--conditions-interval", "200ms", "--require-complete", "--events", "ev.ndjson"],
            environment: environment, removingEnvironment: removed, workingDirectory: fixture.directory.path)
        #expect(result.status == 0, "\(result)")
        #expect(
            result.stdout.hasSuffix(
                "Apply complete! Slices: 3 fetched (211 B), 0 resumed, 1 up to date, 0 failed, 0 deferred; 4 without digests (4 size only, 0 unverified).\n"),
            "\(result)")
        #expect(nm.calls.count >= 4)
        let events = try EventLog.read("ev.ndjson", in: fixture.directory)
        #expect(events.all("resource_deferred").isEmpty)
    }
}

/// `max_deferral` counts from the first deferral the mirror state remembers, across runs.
@Suite struct ApplyMaxDeferralTests {
    @Test func afterMaxDeferralTheConditionsNoLongerDeferButWarn() async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        try fixture.write(
            manifest: """
                version: 1
                defaults: {output: mirror}
                resources:
                  - id: video
                    base_url: \(fixture.url("/gen/"))
                    network: {cellular: false, max_deferral: 2d}
                    slices: [{path: 100/v.ts, size: 100}]
                """)
        let first = try await fixture.apply(["--metered", "yes"])
        #expect(first.status == 0 && first.stdout.contains("? video: deferred: metered network (--metered yes)\n"), "\(first)")
        let store = try StateStore(root: fixture.directory.path("mirror"))
        let recorded = try #require(try store.deferredResources()["video"])
        #expect(recorded.reason == "metered")
        // A second deferral keeps the first time.
        _ = try await fixture.apply(["--metered", "yes"])
        #expect(try store.deferredResources()["video"]?.firstDeferredAtMilliseconds == recorded.firstDeferredAtMilliseconds)
        // Deferred since three days ago: past max_deferral.
        try store.forgetDeferred(["video"])
        try store.recordDeferred([("video", "metered")], atMilliseconds: recorded.firstDeferredAtMilliseconds - 3 * 86_400_000)
        let plan = try await fixture.run(["plan", "site.yaml", "--metered", "yes"])
        #expect(plan.stdout.contains("    warning: deferred for longer than max_deferral, runs despite: metered network (--metered yes)\n"), "\(plan)")
        let late = try await fixture.apply(["--metered", "yes", "--events", "ev.ndjson"])
        #expect(late.status == 0, "\(late)")
        #expect(
            late.stderr.contains("jobrun: warning: 'video' has been deferred for its max_deferral; it runs despite: metered network (--metered yes)\n"),
            "\(late)")
        #expect(late.stdout.contains("Apply complete! Slices: 1 fetched (100 B)"), "\(late)")
        let events = try EventLog.read("ev.ndjson", in: fixture.directory)
        events.expectValidAgainstTheSchema()
        #expect(events.all("deferral_overridden").map { $0.string("resource") } == ["video"])
        // It ran: the next deferral counts anew.
        #expect(try store.deferredResources()["video"] == nil)
    }

    /// A window that is closed defers with the instant it opens, in plan and apply alike.
    @Test func aClosedWindowDefersUntilItOpens() async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        // A one-minute window twelve hours from now (UTC): closed now, whatever the time.
        var now = time(nil)
        var parts = tm()
        gmtime_r(&now, &parts)
        let start = (Int(parts.tm_hour) + 12) % 24
        // At minute 59 the window ends in the next hour: one minute, not twenty-three hours.
        let end = (start * 60 + Int(parts.tm_min) + 1) % (24 * 60)
        let window = String(format: "%02d:%02d-%02d:%02d", start, Int(parts.tm_min), end / 60, end % 60)
        try fixture.write(
            manifest: """
                version: 1
                defaults: {output: mirror}
                resources:
                  - id: nightly
                    base_url: \(fixture.url("/gen/"))
                    network: {window: "\(window)", timezone: UTC}
                    slices: [{path: 10/n.bin, size: 10}]
                """)
        let (result, report) = try await fixture.applyJSON(["--require-complete"])
        #expect(result.status == 75, "\(result)")
        let deferral = try #require(report.resources.first?.deferral)
        #expect(deferral.reasons == ["window"])
        #expect(deferral.message.hasPrefix("deferred: outside the window \(window) (UTC); it opens at "), "\(deferral.message)")
        let opens = try #require(deferral.untilMs)
        #expect(opens > Int64(now) * 1000 + 11 * 3_600_000 && opens <= Int64(now) * 1000 + 12 * 3_600_000 + 60_000, "\(deferral)")
        #expect(try await fixture.sentRequests().isEmpty)
    }
}

/// `on_deferred`: a resource's hook when the network policy holds its work back.
@Suite struct ApplyDeferredHookTests {
    @Test func onDeferredIsToldTheCausesAndNotOnComplete() async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        let told = fixture.directory.path("told")
        try fixture.write(
            manifest: """
                version: 1
                defaults:
                  output: mirror
                  hooks:
                    on_deferred: ["sh", "-c", "{ cat; echo \\"$JOBRUN_STATUS $JOBRUN_CAUSE\\"; } >> '\(told)'"]
                    on_complete: ["sh", "-c", "echo complete >> '\(told)'"]
                resources:
                  - id: video
                    base_url: \(fixture.url("/gen/"))
                    network: {cellular: false}
                    slices: [{path: 100/v.ts, size: 100}]
                """)
        let result = try await fixture.apply(["--metered", "yes"])
        #expect(result.status == 0, "\(result)")
        let text = try String(contentsOfFile: told, encoding: .utf8)
        let lines = text.split(separator: "\n").map(String.init)
        #expect(lines.count == 2, "\(text)")
        let event = try #require(try JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: Any])
        #expect(event["hook"] as? String == "on_deferred" && event["event"] as? String == "resource_deferred")
        #expect(event["status"] as? String == "deferred" && event["cause"] as? String == "metered")
        #expect(event["reason"] as? String == "deferred: metered network (--metered yes)")
        #expect(lines[1] == "deferred metered")
        // Once it runs, on_complete tells instead.
        let later = try await fixture.apply(["--metered", "no"])
        #expect(later.status == 0, "\(later)")
        #expect(try String(contentsOfFile: told, encoding: .utf8).hasSuffix("complete\n"))
    }
}
