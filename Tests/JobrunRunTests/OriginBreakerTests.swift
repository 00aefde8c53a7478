import JobrunManifest
import JobrunOutcome
import Testing
@testable import JobrunRun

@Suite struct OriginBreakerTests {
    static let t0 = ContinuousClock.now
    static let policy: RetryPolicy = {
        var p = RetryPolicy()
        p.attempts = 3
        p.hostFailures = 4
        p.backoff.initial = .seconds(1)
        p.backoff.maximum = .seconds(8)
        return p
    }()
    static let failure = AttemptFailure(kind: .http, status: 500, message: "HTTP 500", isTransient: true)

    static func at(_ seconds: Int) -> ContinuousClock.Instant { t0 + .seconds(seconds) }

    @Test func tripsAfterNFailuresInARowAcrossSlices() {
        var b = OriginBreaker()
        for job in 0..<3 { #expect(b.attemptEnded(job: SliceID(job), failure: Self.failure, now: Self.at(0), policy: Self.policy, random: 0) == .none) }
        #expect(b.admission(now: Self.at(0)) == .any)
        #expect(b.attemptEnded(job: 3, failure: Self.failure, now: Self.at(0), policy: Self.policy, random: 0) == .tripped)
        // The first probe waits one backoff step (random 0: the initial wait).
        #expect(b.admission(now: Self.at(0)) == .notBefore(Self.at(1)))
        #expect(b.admission(now: Self.at(1)) == .probe)
        #expect(b.failuresInARow == 4 && b.lastFailure == Self.failure)
    }

    /// One slice's own retries are not an origin failing: it takes more than one slice.
    @Test func oneSlicesRetriesDoNotTripIt() {
        var b = OriginBreaker()
        for _ in 0..<10 { #expect(b.attemptEnded(job: 7, failure: Self.failure, now: Self.at(0), policy: Self.policy, random: 0) == .none) }
        #expect(b.admission(now: Self.at(0)) == .any)
        #expect(b.attemptEnded(job: 8, failure: Self.failure, now: Self.at(0), policy: Self.policy, random: 0) == .tripped)
    }

    @Test func aSuccessInBetweenStartsTheCountAgain() {
        var b = OriginBreaker()
        for job in 0..<3 { _ = b.attemptEnded(job: SliceID(job), failure: Self.failure, now: Self.at(0), policy: Self.policy, random: 0) }
        #expect(b.attemptEnded(job: 9, failure: nil, now: Self.at(0), policy: Self.policy, random: 0) == .none)
        for job in 0..<3 { #expect(b.attemptEnded(job: SliceID(job), failure: Self.failure, now: Self.at(0), policy: Self.policy, random: 0) == .none) }
        #expect(b.admission(now: Self.at(0)) == .any)
    }

    @Test func probesOneAtATimeOnTheBackoffScheduleThenGivesUp() {
        var b = OriginBreaker()
        for job in 0..<4 { _ = b.attemptEnded(job: SliceID(job), failure: Self.failure, now: Self.at(0), policy: Self.policy, random: 1) }
        b.probeStarted(job: 10)
        #expect(b.admission(now: Self.at(5)) == .none, "one probe at a time")
        // A transfer from before the trip failing is not a probe.
        #expect(b.attemptEnded(job: 3, failure: Self.failure, now: Self.at(1), policy: Self.policy, random: 1) == .none)
        #expect(b.attemptEnded(job: 10, failure: Self.failure, now: Self.at(1), policy: Self.policy, random: 1) == .none)
        // Second probe: after attempt 2's ceiling (random 1: 2 s).
        #expect(b.admission(now: Self.at(2)) == .notBefore(Self.at(3)))
        b.probeStarted(job: 11)
        #expect(b.attemptEnded(job: 11, failure: Self.failure, now: Self.at(3), policy: Self.policy, random: 1) == .none)
        #expect(b.admission(now: Self.at(3)) == .notBefore(Self.at(7)))
        b.probeStarted(job: 12)
        #expect(b.attemptEnded(job: 12, failure: Self.failure, now: Self.at(7), policy: Self.policy, random: 1) == .gaveUp)
        #expect(b.isFailed && b.admission(now: Self.at(100)) == .failed)
        #expect(b.attemptEnded(job: 13, failure: nil, now: Self.at(100), policy: Self.policy, random: 1) == .none, "given up is final")
    }

    @Test func anAnswerWhileOpenRecovers() {
        var b = OriginBreaker()
        for job in 0..<4 { _ = b.attemptEnded(job: SliceID(job), failure: Self.failure, now: Self.at(0), policy: Self.policy, random: 0) }
        b.probeStarted(job: 5)
        #expect(b.attemptEnded(job: 5, failure: nil, now: Self.at(1), policy: Self.policy, random: 0) == .recovered)
        #expect(b.admission(now: Self.at(1)) == .any)
    }

    @Test func aProbeThatNeverStartedIsReleased() {
        var b = OriginBreaker()
        for job in 0..<4 { _ = b.attemptEnded(job: SliceID(job), failure: Self.failure, now: Self.at(0), policy: Self.policy, random: 0) }
        b.probeStarted(job: 5)
        b.probeAbandoned(job: 5)
        #expect(b.admission(now: Self.at(1)) == .probe)
    }

    @Test func zeroNeverTrips() {
        var policy = Self.policy
        policy.hostFailures = 0
        var b = OriginBreaker()
        for job in 0..<1000 { #expect(b.attemptEnded(job: SliceID(job), failure: Self.failure, now: Self.at(0), policy: policy, random: 0) == .none) }
    }

    @Test func whatCountsAgainstAnOrigin() {
        #expect(AttemptFailure(kind: .http, status: 503, message: "", isTransient: true).countsAgainstOrigin)
        #expect(AttemptFailure(kind: .http, status: 429, message: "", isTransient: true).countsAgainstOrigin)
        #expect(AttemptFailure(kind: .connect, message: "", isTransient: true).countsAgainstOrigin)
        #expect(!AttemptFailure(kind: .http, status: 404, message: "", isTransient: false).countsAgainstOrigin)
        #expect(!AttemptFailure(kind: .checksumMismatch, message: "", isTransient: true).countsAgainstOrigin)
        #expect(!AttemptFailure(kind: .diskFull, message: "", isTransient: false).countsAgainstOrigin)
    }
}
