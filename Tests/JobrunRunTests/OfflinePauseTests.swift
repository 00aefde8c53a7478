import JobrunOutcome
import Testing
@testable import JobrunRun

/// The offline pause's rules, with made-up times: events in, actions out.
@Suite struct OfflinePauseTests {
    static let t0 = ContinuousClock.now
    static let refused = AttemptFailure(kind: .connect, message: "could not connect: Connection refused", isTransient: true)
    static let a = "http://a.example"
    static let b = "http://b.example"

    static func at(_ seconds: Int) -> ContinuousClock.Instant { t0 + .seconds(seconds) }

    static func unreachable() -> OfflinePause.Reach { .unreachable(refused) }

    @Test func oneUnreachableOriginAmongReachableOnesCountsAsUsual() {
        var p = OfflinePause(wait: .seconds(600))
        #expect(p.attemptEnded(job: 1, at: Self.a, reach: Self.unreachable(), started: Self.at(0), now: Self.at(0)) { [Self.a, Self.b] } == .counts)
        #expect(!p.isOffline)
        #expect(p.admission(at: Self.a, now: Self.at(0)) == .any)
    }

    /// Every origin with work unreachable: offline, and every transport failure since each
    /// origin last answered is given back, this attempt's included.
    @Test func everyOriginUnreachableGoesOfflineAndGivesTheirFailuresBack() {
        var p = OfflinePause(wait: .seconds(600))
        #expect(p.attemptEnded(job: 1, at: Self.a, reach: .lost, started: Self.at(0), now: Self.at(0)) { [Self.a, Self.b] } == .counts)
        #expect(p.attemptEnded(job: 2, at: Self.b, reach: .lost, started: Self.at(0), now: Self.at(0)) { [Self.a, Self.b] } == .counts)
        // b answers: its lost attempt was the server's, not the network's.
        #expect(p.attemptEnded(job: 3, at: Self.b, reach: .answered, started: Self.at(1), now: Self.at(1)) { [Self.a, Self.b] } == .counts)
        #expect(p.attemptEnded(job: 4, at: Self.a, reach: Self.unreachable(), started: Self.at(2), now: Self.at(2)) { [Self.a, Self.b] } == .counts)
        let action = p.attemptEnded(job: 5, at: Self.b, reach: Self.unreachable(), started: Self.at(3), now: Self.at(3)) { [Self.a, Self.b] }
        #expect(
            action
                == .wentOffline(
                    origins: [OfflineOrigin(origin: Self.a, failure: Self.refused), OfflineOrigin(origin: Self.b, failure: Self.refused)],
                    givenBack: [1, 4, 5]))
        #expect(p.isOffline && p.stopsAt == Self.at(603))
    }

    /// Offline, each origin gets one probe at a time, on a backoff from 1 s to 30 s.
    @Test func probesBackOffFromOneToThirtySeconds() {
        var p = OfflinePause(wait: .seconds(600))
        _ = p.attemptEnded(job: 1, at: Self.a, reach: Self.unreachable(), started: Self.at(0), now: Self.at(0)) { [Self.a] }
        #expect(p.admission(at: Self.a, now: Self.at(0)) == .notBefore(Self.at(1)))
        var now = 1
        for delay in [2, 4, 8, 16, 30, 30, 30] {
            #expect(p.admission(at: Self.a, now: Self.at(now)) == .probe)
            p.probeStarted(job: 7, at: Self.a, now: Self.at(now))
            #expect(p.admission(at: Self.a, now: Self.at(now)) == .none)
            #expect(p.attemptEnded(job: 7, at: Self.a, reach: Self.unreachable(), started: Self.at(now), now: Self.at(now)) { [Self.a] } == .givenBack)
            #expect(p.admission(at: Self.a, now: Self.at(now)) == .notBefore(Self.at(now + delay)))
            #expect(p.nextProbe(among: [Self.a]) == Self.at(now + delay))
            now += delay
        }
    }

    /// An attempt in flight when the run went offline that fails is given back without moving
    /// the probes; a probe that never reached the origin frees its place.
    @Test func otherFailuresWhileOfflineAreGivenBack() {
        var p = OfflinePause(wait: .seconds(600))
        _ = p.attemptEnded(job: 1, at: Self.a, reach: Self.unreachable(), started: Self.at(0), now: Self.at(0)) { [Self.a] }
        #expect(p.attemptEnded(job: 2, at: Self.a, reach: .lost, started: Self.at(0), now: Self.at(0)) { [Self.a] } == .givenBack)
        #expect(p.admission(at: Self.a, now: Self.at(1)) == .probe)
        p.probeStarted(job: 3, at: Self.a, now: Self.at(1))
        p.probeAbandoned(job: 3, at: Self.a)
        #expect(p.admission(at: Self.a, now: Self.at(1)) == .probe)
        // An origin that has not been probed yet gets its first probe at once.
        #expect(p.admission(at: Self.b, now: Self.at(0)) == .probe)
        // Nothing known of the network: counts as usual.
        #expect(p.attemptEnded(job: 4, at: Self.a, reach: .unknown, started: Self.at(1), now: Self.at(1)) { [Self.a] } == .counts)
    }

    @Test func anAnswerEndsItAndTheTimeOfflineAddsUp() {
        var p = OfflinePause(wait: .seconds(600))
        _ = p.attemptEnded(job: 1, at: Self.a, reach: Self.unreachable(), started: Self.at(0), now: Self.at(0)) { [Self.a] }
        #expect(p.offlineDuration(now: Self.at(5)) == .seconds(5))
        #expect(
            p.attemptEnded(job: 1, at: Self.a, reach: .answered, started: Self.at(12), now: Self.at(12)) { [Self.a] }
                == .cameOnline(origin: Self.a, after: .seconds(12)))
        #expect(!p.isOffline && p.stopsAt == nil && p.admission(at: Self.a, now: Self.at(12)) == .any)
        #expect(p.offlineDuration(now: Self.at(100)) == .seconds(12))
        // Offline again: the periods add up, and failures before the answer are not given back twice.
        #expect(
            p.attemptEnded(job: 2, at: Self.a, reach: Self.unreachable(), started: Self.at(200), now: Self.at(200)) { [Self.a] }
                == .wentOffline(
                    origins: [OfflineOrigin(origin: Self.a, failure: Self.refused)], givenBack: [2]))
        #expect(
            p.attemptEnded(job: 3, at: Self.a, reach: .answered, started: Self.at(203), now: Self.at(203)) { [Self.a] }
                == .cameOnline(origin: Self.a, after: .seconds(3)))
        #expect(p.offlineDuration(now: Self.at(300)) == .seconds(15))
    }

    /// The last answers of a server going away, to requests sent before the first refusal,
    /// do not make it reachable again, nor clear the failures to give back.
    @Test func anAnswerToAnEarlierRequestDoesNotClearLaterFailures() {
        var p = OfflinePause(wait: .seconds(600))
        #expect(p.attemptEnded(job: 1, at: Self.a, reach: .lost, started: Self.at(0), now: Self.at(2)) { [Self.a] } == .counts)
        #expect(p.attemptEnded(job: 2, at: Self.a, reach: .answered, started: Self.at(1), now: Self.at(3)) { [Self.a] } == .counts)
        #expect(
            p.attemptEnded(job: 3, at: Self.a, reach: Self.unreachable(), started: Self.at(3), now: Self.at(3)) { [Self.a] }
                == .wentOffline(
                    origins: [OfflineOrigin(origin: Self.a, failure: Self.refused)], givenBack: [1, 3]))
    }

    /// Offline, an answer to a request sent before the run went offline is no news of the
    /// network: only one sent since ends the pause.
    @Test func onlyAnAnswerToARequestSentSinceEndsThePause() {
        var p = OfflinePause(wait: .seconds(600))
        _ = p.attemptEnded(job: 1, at: Self.a, reach: Self.unreachable(), started: Self.at(10), now: Self.at(10)) { [Self.a] }
        #expect(p.attemptEnded(job: 2, at: Self.a, reach: .answered, started: Self.at(9), now: Self.at(11)) { [Self.a] } == .counts)
        #expect(p.isOffline)
        #expect(
            p.attemptEnded(job: 3, at: Self.a, reach: .answered, started: Self.at(11), now: Self.at(12)) { [Self.a] }
                == .cameOnline(origin: Self.a, after: .seconds(2)))
    }

    /// A pause never lasts past the run's deadline.
    @Test func thePauseEndsAtTheDeadlineAtTheLatest() {
        var p = OfflinePause(wait: .seconds(600), deadline: Self.at(100))
        _ = p.attemptEnded(job: 1, at: Self.a, reach: Self.unreachable(), started: Self.at(10), now: Self.at(10)) { [Self.a] }
        #expect(p.stopsAt == Self.at(100))
        var q = OfflinePause(wait: .seconds(60), deadline: Self.at(100))
        _ = q.attemptEnded(job: 1, at: Self.a, reach: Self.unreachable(), started: Self.at(10), now: Self.at(10)) { [Self.a] }
        #expect(q.stopsAt == Self.at(70))
    }

    @Test func aWaitOfZeroTurnsItOff() {
        var p = OfflinePause(wait: .zero)
        #expect(p.attemptEnded(job: 1, at: Self.a, reach: Self.unreachable(), started: Self.at(0), now: Self.at(0)) { [Self.a] } == .counts)
        #expect(!p.isOffline)
    }

    /// The origin that just failed counts as one with work even when nothing else is waiting
    /// there (its slice is about to be retried).
    @Test func theFailingOriginItselfHasWork() {
        var p = OfflinePause(wait: .seconds(60))
        #expect(
            p.attemptEnded(job: 1, at: Self.a, reach: Self.unreachable(), started: Self.at(0), now: Self.at(0)) { [] }
                == .wentOffline(
                    origins: [OfflineOrigin(origin: Self.a, failure: Self.refused)], givenBack: [1]))
        #expect(p.stopsAt == Self.at(60))
    }

    @Test(arguments: [(0, 1), (1, 2), (2, 4), (3, 8), (4, 16), (5, 30), (9, 30), (64, 30)])
    func probeDelays(failed: Int, seconds: Int) {
        #expect(OfflinePause.probeDelay(afterFailures: failed) == .seconds(seconds))
    }
}
