import JobrunConditions
import JobrunCore
@testable import JobrunManifest
import JobrunPlan
import Testing
@testable import JobrunRun

/// The network policy's review as a machine part: the time, the wall clock and the conditions
/// in, the gate out.
@Suite struct PolicyReviewTests {
    static let t0 = ContinuousClock.now

    static let here = SourceLocation(file: "m.yaml", line: 1, column: 1)

    /// A resource whose policy keeps it off a metered network.
    static func resource(_ id: String) -> Resource {
        var settings = ResourceSettings()
        settings.network.allowsCellular = false
        return Resource(
            id: id, location: here, manifestFile: "m.yaml", baseURL: "http://h/", outputRoot: "mirror", dest: id,
            dependsOn: [], checksum: nil, settings: settings, slices: [Slice(path: "a", location: here)])
    }

    static func conditions(metered: MeteredState.Value) -> Conditions {
        Conditions(metered: MeteredState(value: metered, source: "test"), power: PowerState(isOnAC: true, reason: "test"), busy: nil)
    }

    @Test func aReviewJudgesWithTheLatestConditionsAndComesDueAgain() {
        var policy = RunPolicy(
            context: PolicyContext(conditions: Self.conditions(metered: .no), nowMilliseconds: 0, localZone: .utc), wallMilliseconds: { 0 })
        policy.interval = .seconds(30)
        var review = PolicyReview(policy: policy, now: Self.t0)
        #expect(review.isDue(at: Self.t0))
        let resources = [(entry: 3, resource: Self.resource("r"))]
        let open = review.review(now: Self.t0, wallMilliseconds: 1_000, conditions: nil, resources: resources)
        #expect(open.deferred.isEmpty && review.deferrals.isEmpty && review.context.nowMilliseconds == 1_000)
        #expect(!review.isDue(at: Self.t0 + .seconds(29)) && review.isDue(at: Self.t0 + .seconds(30)))

        let held = review.review(now: Self.t0 + .seconds(30), wallMilliseconds: 31_000, conditions: Self.conditions(metered: .yes), resources: resources)
        #expect(held.deferred.keys.sorted() == [3] && review.deferrals.keys.sorted() == [3])
        #expect(held.nextReview == Self.t0 + .seconds(60))
        // Without a new reading, the last one stands.
        let still = review.review(now: Self.t0 + .seconds(60), wallMilliseconds: 61_000, conditions: nil, resources: resources)
        #expect(still.deferred.keys.sorted() == [3])
    }
}
