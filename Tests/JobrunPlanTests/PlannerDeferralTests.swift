import JobrunConditions
import JobrunCore
import JobrunManifest
import JobrunTestSupport
import Testing
@testable import JobrunPlan

/// The plan's deferrals: only work is deferred, dependents go with it, counts and text say why.
@Suite struct PlannerDeferralTests {
    static let metered = PolicyContext(
        conditions: Conditions(
            metered: MeteredState(value: .yes, source: "--metered yes"), power: PowerState(isOnAC: true, reason: "no power supply"), busy: nil),
        nowMilliseconds: 0, localZone: .utc)

    static func plan(_ yaml: String, files: [String: String] = [:], policy: PolicyContext?) throws -> Plan {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        _ = try dir.write(file: "m.yaml", contents: yaml)
        for (path, contents) in files { _ = try dir.write(file: "mirror/" + path, contents: contents) }
        let manifest = try PlannerTests.manifestWithMirror(in: dir)
        return Planner.plan(
            for: manifest, parallelism: 1,
            measure: { _ in
                .success(FileSystemUsage(device: 1, freeBytes: 10 << 30, sizeBytes: 100 << 30))
            }, policy: policy)
    }

    static let yaml = """
        version: 1
        resources:
          - id: video
            base_url: https://h/v/
            network: {cellular: false}
            slices: [{path: a.ts, size: 3}, {path: b.ts, size: 4}]
          - id: index
            base_url: https://h/i/
            depends_on: [video]
            network: {cellular: true}
            slices: [{path: index.json, size: 2}]
          - id: done
            base_url: https://h/d/
            network: {cellular: false}
            slices: [{path: ok.txt, size: 3}]
          - id: free
            base_url: https://h/f/
            network: {cellular: true}
            slices: [{path: any.bin, size: 5}]
        """

    @Test func workIsDeferredWithItsCausesAndDependentsFollow() throws {
        let plan = try Self.plan(Self.yaml, files: ["done/ok.txt": "abc", "video/a.ts": "abc"], policy: Self.metered)
        let byID = Dictionary(uniqueKeysWithValues: plan.entries.map { ($0.resource.id, $0) })
        // A resource with work to do is deferred: its slices to fetch, not those up to date.
        let video = try #require(byID["video"])
        #expect(video.deferral?.reasons == [.metered])
        #expect(video.decisions.map(\.action) == [.upToDate, .deferred])
        #expect(video.decisions[1].reason == "deferred: metered network (--metered yes)")
        #expect(video.counts.deferred == 1 && video.counts.upToDate == 1 && video.counts.fetch == 0 && video.counts.bytesToTransfer == 0)
        // Its dependent may use a metered network, but waits for it.
        #expect(byID["index"]?.deferral?.reasons == [.dependency])
        #expect(byID["index"]?.deferral?.message == "deferred: depends on 'video', which is deferred")
        // Nothing to do: nothing to defer.
        #expect(byID["done"]?.deferral == nil && byID["done"]?.counts.upToDate == 1)
        #expect(byID["free"]?.deferral == nil && byID["free"]?.counts.fetch == 1)
        #expect(plan.counts.deferred == 2 && plan.counts.fetch == 1 && plan.counts.upToDate == 2)
        #expect(plan.summaryLine.hasPrefix("Plan: 1 to fetch, 0 to resume, 0 to refetch (5 B), 2 up to date, 2 deferred (metered 1, dependency 1);"))
        // No space is asked for deferred work.
        #expect(plan.space.map(\.bytesToTransfer) == [5])
        let text = plan.renderText(verbose: false)
        #expect(text.contains("? video -> "))
        #expect(text.contains(": 1 up to date, 1 deferred\n    deferred: metered network (--metered yes)\n"))
    }

    @Test func withoutAPolicyOrWithGoodConditionsNothingIsDeferred() throws {
        for policy in [nil, PolicyContext(conditions: .notRead, nowMilliseconds: 0, localZone: .utc)] {
            let plan = try Self.plan(Self.yaml, policy: policy)
            #expect(plan.entries.allSatisfy { $0.deferral == nil })
            #expect(plan.counts.deferred == 0 && plan.counts.fetch == 5)
            #expect(plan.summaryLine.hasPrefix("Plan: 5 to fetch, 0 to resume, 0 to refetch (17 B), 0 up to date, 0 deferred;"))
        }
    }
}
