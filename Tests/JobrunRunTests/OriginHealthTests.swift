import JobrunManifest
import JobrunOutcome
import Testing
@testable import JobrunRun

/// The origins' health as a machine part: attempts' ends in, admissions and breaker actions out,
/// at made-up instants.
@Suite struct OriginHealthTests {
    static let t0 = ContinuousClock.now
    static func at(_ seconds: Int) -> ContinuousClock.Instant { t0 + .seconds(seconds) }
    static let policy = OriginBreakerTests.policy
    static let failure = OriginBreakerTests.failure

    static func health() -> OriginHealth {
        OriginHealth(offline: OfflinePause(wait: .seconds(600), deadline: nil))
    }

    /// Trips `origin`'s breaker at instant 0 (four failed slices).
    static func trip(_ health: inout OriginHealth, _ origin: String) -> [OriginBreaker.Action] {
        (0..<4).compactMap { health.attemptEnded(job: SliceID($0), at: origin, failure: failure, now: at(0), policy: policy, random: 0)?.action }
    }

    /// A healthy origin has no breaker, and an answer from it records nothing (nor draws a random
    /// number); a tripped one admits its probe once due, and only that one.
    @Test func aTrippedOriginAdmitsOneProbeWhenDue() {
        var health = Self.health()
        var drawn = 0
        func draw() -> Double {
            drawn += 1
            return 0
        }
        let answered = health.attemptEnded(job: 0, at: "http://a", failure: nil, now: Self.at(0), policy: Self.policy, random: draw())
        #expect(answered == nil && drawn == 0 && health.breakers.isEmpty && !health.dependsOnTime)
        #expect(Self.trip(&health, "http://a") == [.none, .none, .none, .tripped])
        // A breaker takes an attempt in, failed or answered: one number each.
        _ = health.attemptEnded(job: 5, at: "http://c", failure: Self.failure, now: Self.at(0), policy: Self.policy, random: draw())
        #expect(drawn == 1)
        _ = health.attemptEnded(job: 6, at: "http://c", failure: nil, now: Self.at(0), policy: Self.policy, random: draw())
        #expect(drawn == 2 && health.breakers["http://c"] == nil, "an answer closes a breaker that had not tripped")
        #expect(health.dependsOnTime)
        #expect(!health.mayStart(at: "http://a", now: Self.at(0)) && health.mayStart(at: "http://b", now: Self.at(0)))
        #expect(health.mayStart(at: "http://a", now: Self.at(1)))
        let probes = health.starting(job: 9, at: "http://a", now: Self.at(1))
        #expect(probes == OriginHealth.Probes(ofBreaker: true, ofNetwork: false))
        #expect(!health.mayStart(at: "http://a", now: Self.at(1)), "a second probe while the first runs")
        health.didNotStart(job: 9, at: "http://a", probes: probes)
        #expect(health.mayStart(at: "http://a", now: Self.at(1)), "the probe that never started is given back")
        let plain = health.starting(job: 10, at: "http://b", now: Self.at(1))
        #expect(plain == OriginHealth.Probes())
    }

    /// A success closes the breaker and forgets it; the network's going forgets breakers, but not
    /// one that has given up on its origin.
    @Test func recoveryAndTheNetworkForgetBreakers() {
        var health = Self.health()
        _ = Self.trip(&health, "http://a")
        _ = health.starting(job: 9, at: "http://a", now: Self.at(1))
        let recovered = health.attemptEnded(job: 9, at: "http://a", failure: nil, now: Self.at(1), policy: Self.policy, random: 0)
        #expect(recovered?.action == .recovered && health.breakers.isEmpty)

        _ = Self.trip(&health, "http://a")
        _ = Self.trip(&health, "http://b")
        var now = 1
        while !health.isFailed("http://b"), now < 600 {
            _ = health.starting(job: SliceID(100 + now), at: "http://b", now: Self.at(now))
            _ = health.attemptEnded(job: SliceID(100 + now), at: "http://b", failure: Self.failure, now: Self.at(now), policy: Self.policy, random: 0)
            now += 1
        }
        #expect(health.isFailed("http://b") && !health.mayStart(at: "http://b", now: Self.at(now + 600)))
        health.networkWent(at: ["http://a", "http://b"])
        #expect(health.breakers.keys.sorted() == ["http://b"] && health.mayStart(at: "http://a", now: Self.at(now)))
    }
}
