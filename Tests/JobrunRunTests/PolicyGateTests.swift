import JobrunPlan
import Testing
@testable import JobrunRun

@Suite struct PolicyGateTests {
    static let t0 = ContinuousClock.now
    static let deferral = Deferral(causes: [Deferral.Cause(.metered, "metered network (test)")])

    static func candidate(resource: Int) -> Candidate {
        Candidate(job: 7, resource: resource, origin: "http://h", throughput: nil)
    }

    @Test func resourcesNotDeferredAreAdmitted() {
        let gate = PolicyGate(deferred: [1: Self.deferral], waitUntil: nil, nextReview: Self.t0 + .seconds(30))
        #expect(gate.decide(Self.candidate(resource: 0), now: Self.t0) == .admit)
    }

    @Test func withoutAWaitADeferredResourceIsDeferredForTheRunWithoutStoppingIt() {
        let gate = PolicyGate(deferred: [1: Self.deferral], waitUntil: nil, nextReview: Self.t0 + .seconds(30))
        #expect(gate.decide(Self.candidate(resource: 1), now: Self.t0) == .deferred("deferred: metered network (test)", nil))
    }

    /// Waiting, a slice asks again at the next review, never past the wait's end; after it, it is
    /// deferred.
    @Test func aWaitParksUntilTheNextReviewThenDefers() {
        let end = Self.t0 + .seconds(100)
        let gate = PolicyGate(deferred: [1: Self.deferral], waitUntil: end, nextReview: Self.t0 + .seconds(30))
        #expect(gate.decide(Self.candidate(resource: 1), now: Self.t0) == .later(Self.t0 + .seconds(30)))
        let late = PolicyGate(deferred: [1: Self.deferral], waitUntil: end, nextReview: Self.t0 + .seconds(130))
        #expect(late.decide(Self.candidate(resource: 1), now: Self.t0 + .seconds(90)) == .later(end))
        #expect(late.decide(Self.candidate(resource: 1), now: end) == .deferred("deferred: metered network (test)", nil))
    }
}
