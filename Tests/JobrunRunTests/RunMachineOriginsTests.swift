import JobrunCore
import JobrunManifest
import JobrunOutcome
import Testing
@testable import JobrunRun

/// A resource with several origins (`base_urls`) in the run's machine, at made-up instants: a
/// failed attempt goes to the next origin at once, a round of them backs off, and an origin
/// whose breaker opens or gives up hands what waits for it to the next.
@Suite struct RunMachineOriginsTests {
    typealias T = RunMachineTests
    static let http404 = AttemptFailure(kind: .http, status: 404, message: "HTTP 404", isTransient: false)

    static func resource(_ id: String, hosts: [String], _ names: [String], extra: String = "") -> String {
        """
          - id: \(id)
            base_urls: [\(hosts.map { "http://\($0)/" }.joined(separator: ", "))]
        \(extra.isEmpty ? "" : "    \(extra)\n")    slices:
        \(names.map { "      - {path: \($0), size: 1000}" }.joined(separator: "\n"))
        """
    }

    @Test func aFailedAttemptGoesToTheNextOriginAtOnceThenRoundsBackOff() throws {
        var m = try T.machine(Self.resource("r", hosts: ["a.test", "b.test"], ["f"]))
        #expect(T.drain(&m, now: T.at(0)).started == [0])
        #expect(m.origin(0) == "http://a.test")
        #expect(T.fails(&m, 0, T.failure500, attempts: 1, now: T.at(0)) == .retry(at: T.at(0), delay: .zero, coolsDownOrigin: false))
        #expect(m.origin(0) == "http://b.test" && m.address(0).url == "http://b.test/f")
        #expect(T.drain(&m, now: T.at(0)).started == [0], "no wait")
        // Both failed this round: the next starts at the first after the backoff.
        #expect(T.fails(&m, 0, T.failure500, attempts: 2, now: T.at(0)) == .retry(at: T.at(1), delay: .seconds(1), coolsDownOrigin: false))
        #expect(m.origin(0) == "http://a.test")
        m.releaseDue(at: T.at(1))
        #expect(T.drain(&m, now: T.at(1)).started == [0])
        #expect(T.fails(&m, 0, T.failure500, attempts: 3, now: T.at(1)) == .fail, "retries.attempts 3 spent")
    }

    @Test func everyOriginIsTriedOnceWhateverTheAttemptsAndA404IsForGood() throws {
        var m = try T.machine(Self.resource("r", hosts: ["a.test", "b.test", "c.test", "d.test"], ["f"]))
        _ = T.drain(&m, now: T.at(0))
        for (attempt, next) in [(1, "b"), (2, "c"), (3, "d")] {
            #expect(T.fails(&m, 0, Self.http404, attempts: attempt, now: T.at(0)) == .retry(at: T.at(0), delay: .zero, coolsDownOrigin: false))
            #expect(m.origin(0) == "http://\(next).test")
            _ = T.drain(&m, now: T.at(0))
        }
        #expect(T.fails(&m, 0, Self.http404, attempts: 4, now: T.at(0)) == .fail, "no origin has it")
        #expect(m.choice.failures(0).map(\.url) == [0, 1, 2, 3])
    }

    @Test func aRefusalCoolsItsOriginDownWhileTheSliceGoesOn() throws {
        var m = try T.machine(Self.resource("r", hosts: ["a.test", "b.test"], ["f", "g", "h"], extra: "concurrency: {per_host: 1}"))
        #expect(T.drain(&m, now: T.at(0)).started == [0, 2], "f at a.test, and b.test takes the last")
        let busy = AttemptFailure(kind: .http, status: 503, message: "HTTP 503", isTransient: true, retryAfter: .seconds(5), coolsDownHost: true)
        #expect(T.fails(&m, 0, busy, attempts: 1, now: T.at(0)) == .retry(at: T.at(0), delay: .zero, coolsDownOrigin: true))
        #expect(m.origin(0) == "http://b.test")
        #expect(T.drain(&m, now: T.at(1)).started.isEmpty, "g waits for a.test's cooldown, f for b.test's slot")
        #expect(m.scheduler.nextCooldownEnd(after: T.at(0)) == T.at(5))
        #expect(T.drain(&m, now: T.at(5)).started == [1])
    }

    @Test func anOpenBreakerHandsItsWaitingSlicesToTheNextOrigin() throws {
        var m = try T.machine(Self.resource("r", hosts: ["a.test", "b.test"], ["1", "2", "3", "4"], extra: "concurrency: {per_host: 1}"))
        #expect(T.drain(&m, now: T.at(0)).started == [0, 3])
        let a = m.origin(0)
        let refused = AttemptReport(verdict: .refused(T.failure500))
        _ = m.attemptEndedAtOrigin(0, refused, now: T.at(0), random: 0)
        guard case .tripped(let origin, _)? = m.attemptEndedAtOrigin(1, refused, now: T.at(0), random: 0) else {
            Issue.record("two failures in a row across slices trip the breaker")
            return
        }
        #expect(origin == a)
        m.moveWaiting(off: a)
        #expect(m.origin(1) == "http://b.test" && m.origin(2) == "http://b.test")
        m.scheduler.ended(at: "http://b.test", now: T.t0)
        #expect(T.drain(&m, now: T.at(0)).started == [1], "b.test takes them as its slot frees")
        // The failed slices fail over too; a.test is passed over while its breaker is open.
        #expect(T.fails(&m, 0, T.failure500, attempts: 1, now: T.at(0)) == .retry(at: T.at(0), delay: .zero, coolsDownOrigin: false))
        #expect(m.origin(0) == "http://b.test")
    }

    @Test func anOriginGivenUpOnFailsOnlyTheSlicesWithNowhereElseToGo() throws {
        var m = try T.machine(
            Self.resource("two", hosts: ["a.test", "b.test"], ["1", "2"], extra: "concurrency: {per_host: 1}") + "\n"
                + RunMachineTests.resource("one", ["3", "4"], extra: "concurrency: {per_host: 1}"))
        let a = "http://a.test"
        // Its breaker's probes all fail.
        var policy = RetryPolicy()
        policy.attempts = 2
        policy.hostFailures = 1
        var now = 0
        for probe: SliceID in [0, 1, 0, 1, 0, 1] where !m.health.isFailed(a) {
            _ = m.health.starting(job: probe, at: a, now: T.at(now))
            _ = m.health.attemptEnded(job: probe, at: a, failure: T.failure500, now: T.at(now), policy: policy, random: 0)
            now += 100
        }
        #expect(m.health.isFailed(a))
        // Resources are planned by id: jobs 0 and 1 are `one`'s; none has started.
        #expect(m.takeUnrequested(at: a) == [0, 1], "the single-origin slices fail; the others move to b.test")
        #expect(m.origin(2) == "http://b.test" && m.origin(3) == "http://b.test")
        #expect(T.drain(&m, now: T.at(now)).started == [2])
    }

    @Test func aQuarantinedOriginIsPassedOverByFreshSlices() throws {
        var m = try T.machine(Self.resource("r", hosts: ["a.test", "b.test"], ["1", "2", "3", "4"], extra: "concurrency: {per_host: 1}"))
        #expect(T.drain(&m, now: T.at(0)).started == [0, 3], "a.test takes the first, b.test the last; 1 and 2 wait at a.test")
        let wrong = AttemptFailure(kind: .checksumMismatch, message: "sha256 differs", isTransient: true)
        // Slice 0 twice is one slice; slice 3 was answered at b.test; 1 and 2 make three at a.test.
        let quarantined = [SliceID(0), 0, 3, 1, 2].map { m.attemptFailedAtOrigin($0, wrong) }
        #expect(quarantined == [nil, nil, nil, nil, "http://a.test"])
        #expect(m.attemptFailedAtOrigin(0, wrong, isOriginsAnswer: true) == nil, "told once")
        m.moveWaiting(off: "http://a.test")
        #expect(m.origin(1) == "http://b.test" && m.origin(2) == "http://b.test")
        m.scheduler.ended(at: "http://a.test", now: T.t0)
        #expect(T.drain(&m, now: T.at(0)).started.isEmpty, "a.test has room, but is passed over")
        m.scheduler.ended(at: "http://b.test", now: T.t0)
        #expect(T.drain(&m, now: T.at(0)).started == [1])
        // A resume's bytes are not all the origin's answer: they say nothing of it.
        var n = try T.machine(Self.resource("r", hosts: ["a.test", "b.test"], ["1"]))
        for _ in 0..<5 { #expect(n.attemptFailedAtOrigin(0, wrong, isOriginsAnswer: false) == nil) }
        #expect(n.health.takesWork("http://a.test"))
    }

    /// Every origin of a slice with its breaker open: the slice waits for a probe, it does not
    /// fail; and a refused retry leaves the slice at the URL its last attempt went to.
    @Test func openBreakersEverywhereMeanAWaitNotAFailure() throws {
        var m = try T.machine(Self.resource("r", hosts: ["a.test", "b.test"], ["1", "2"], extra: "concurrency: {per_host: 2}"))
        #expect(T.drain(&m, now: T.at(0)).started == [0, 1])
        for origin in ["http://a.test", "http://b.test"] {
            for j: SliceID in [0, 1] {
                _ = m.health.attemptEnded(
                    job: j, at: origin, failure: T.failure500, now: T.at(0),
                    policy: {
                        var p = RetryPolicy()
                        p.hostFailures = 2
                        return p
                    }(), random: 0)
            }
        }
        #expect(!m.health.takesWork("http://a.test") && !m.health.takesWork("http://b.test") && !m.health.isFailed("http://a.test"))
        #expect(T.fails(&m, 0, T.failure500, attempts: 1, now: T.at(0)) == .retry(at: T.at(0), delay: .zero, coolsDownOrigin: false))
        #expect(m.origin(0) == "http://b.test", "to the other, to wait for its probe")
        if case .fail = T.fails(&m, 0, T.failure500, attempts: 2, now: T.at(0)) { Issue.record("a round of open breakers waits") }
        // Its last attempt (of 3) spent at a.test: the slice fails there, where its error came from.
        #expect(T.fails(&m, 1, T.failure500, attempts: 3, now: T.at(0)) == .fail)
        #expect(m.origin(1) == "http://a.test", "a refused retry does not move it")
    }

    /// A resource's slices spread over its origins: each idle origin takes the last slice
    /// waiting at another, so the two work from the two ends, up to its weight's share of the
    /// requests in flight; a per_host of an origin's own bounds it there.
    @Test func slicesSpreadOverIdleOriginsFromTheOtherEnd() throws {
        for (weight, expected): (Int, [SliceID]) in [(1, [0, 5]), (2, [0, 5, 4]), (0, [0])] {
            var m = try T.machine(
                """
                  - id: r
                    base_urls: [http://a.test/, {url: "http://b.test/", per_host: 2, weight: \(weight)}]
                    concurrency: {per_host: 1}
                    slices:
                \((1...6).map { "      - {path: \($0), size: 1000}" }.joined(separator: "\n"))
                """)
            #expect(T.drain(&m, now: T.at(0)).started == expected, "weight \(weight)")
        }
        var m = try T.machine(
            """
              - id: r
                base_urls: [http://a.test/, {url: "http://b.test/", per_host: 2, weight: 2}]
                concurrency: {per_host: 1}
                slices:
            \((1...6).map { "      - {path: \($0), size: 1000}" }.joined(separator: "\n"))
            """)
        let started = T.drain(&m, now: T.at(0)).started
        #expect(Set(started) == [0, 5, 4], "a.test takes the first; b.test (per_host 2) the last two")
        #expect(m.origin(0) == "http://a.test" && m.origin(5) == "http://b.test" && m.origin(4) == "http://b.test")
        // A slice that failed somewhere stays where its failover put it.
        #expect(T.fails(&m, 5, T.failure500, attempts: 1, now: T.at(0)) == .retry(at: T.at(0), delay: .zero, coolsDownOrigin: false))
        #expect(m.origin(5) == "http://a.test")
    }

    /// Spreading leaves alone what it may not move, without churning: a slice that failed at
    /// the idle origin stays, and the next one is not reached past it; a busy origin in its
    /// cooldown lends its slices to an idle one.
    @Test func spreadingMovesOnlyWhatMayMoveAndLendsThroughACooldown() throws {
        var m = try T.machine(Self.resource("r", hosts: ["a.test", "b.test"], ["1", "2", "3", "4"], extra: "concurrency: {per_host: 1}"))
        #expect(T.drain(&m, now: T.at(0)).started == [0, 3])
        // Slice 3 fails at b.test and goes to a.test, where it waits last (the queue keeps plan order).
        #expect(T.fails(&m, 3, T.failure500, attempts: 1, now: T.at(0)) == .retry(at: T.at(0), delay: .zero, coolsDownOrigin: false))
        #expect(m.origin(3) == "http://a.test")
        #expect(T.drain(&m, now: T.at(0)).started.isEmpty, "b.test is idle, but the last slice at a.test failed there")
        #expect(m.origin(2) == "http://a.test" && m.origin(3) == "http://a.test")
        // a.test cools down (a 503 to slice 0): what waits there goes to b.test, whatever the weights.
        var n = try T.machine(Self.resource("r", hosts: ["a.test", "b.test"], ["1", "2", "3", "4"], extra: "concurrency: {per_host: 1}"))
        #expect(T.drain(&n, now: T.at(0)).started == [0, 3])
        n.scheduler.ended(at: "http://b.test", now: T.t0)
        n.scheduler.coolDown("http://a.test", until: T.at(5))
        n.scheduler.ended(at: "http://a.test", now: T.t0)
        #expect(T.drain(&n, now: T.at(1)).started == [2], "b.test takes the last slice waiting at the cooling a.test")
    }

    /// An entry's per_host is its resource's at that origin, not another resource's there.
    @Test func anOriginsPerHostIsItsResourcesOnly() throws {
        var m = try T.machine(
            """
              - id: a
                base_urls: [{url: "http://a.test/", per_host: 1}, http://b.test/]
                concurrency: {per_host: 4}
                slices: [{path: "1", size: 1000}, {path: "2", size: 1000}]
            """ + "\n" + RunMachineTests.resource("b", ["3", "4", "5"], extra: "concurrency: {per_host: 4}"))
        let started = T.drain(&m, now: T.at(0)).started
        // a's slices: one at a.test (its entry's per_host), the other spread to b.test; b's three at a.test.
        #expect(Set(started) == [0, 1, 2, 3, 4], "\(started)")
        #expect(m.origin(1) == "http://b.test")
    }
}
