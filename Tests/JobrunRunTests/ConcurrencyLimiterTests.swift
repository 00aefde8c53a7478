import Testing
@testable import JobrunRun

/// The adaptive limit of one origin, fed made-up latencies at made-up instants.
@Suite struct ConcurrencyLimiterTests {
    static let t0 = ContinuousClock.now
    static func at(_ ms: Int) -> ContinuousClock.Instant { t0 + .milliseconds(ms) }

    /// Answers as fast as the path allows, with the limit in use: one more per answer until the
    /// first trouble, never past the ceiling.
    @Test func growsWhileLatencyStaysFlat() {
        var l = ConcurrencyLimiter(start: 4, ceiling: 64)
        for i in 0..<20 { l.answered(latency: .milliseconds(40), inFlight: l.limit, now: Self.at(i)) }
        #expect(l.limit == 24 && l.isInSlowStart)
        for i in 0..<100 { l.answered(latency: .milliseconds(41), inFlight: l.limit, now: Self.at(100 + i)) }
        #expect(l.limit == 64, "held at the ceiling")
    }

    /// A limit not in use (fewer in flight than half of it) does not grow: an origin with little
    /// work is not given a limit it never tried.
    @Test func anUnusedLimitDoesNotGrow() {
        var l = ConcurrencyLimiter(start: 8, ceiling: 64)
        for i in 0..<50 { l.answered(latency: .milliseconds(40), inFlight: 3, now: Self.at(i)) }
        #expect(l.limit == 8)
    }

    /// On a path of a fraction of a millisecond, answers that take a few milliseconds now and
    /// then are the machines' scheduling, not a queue: the limit still grows. Ten milliseconds
    /// more is a queue.
    @Test func aFastPathsJitterIsNotAQueue() {
        var l = ConcurrencyLimiter(start: 4, ceiling: 64)
        var now = 0
        for i in 0..<200 {
            l.answered(latency: .microseconds(i % 7 == 0 ? 4_000 : 150), inFlight: l.limit, now: Self.at(now))
            now += 1
        }
        #expect(l.limit == 64, "\(l.limit)")
        for _ in 0..<50 {
            l.answered(latency: .milliseconds(12), inFlight: l.limit, now: Self.at(now))
            now += 20
        }
        #expect(l.limit < 64, "\(l.limit)")
    }

    /// When answers slow down past twice the shortest, the limit shrinks in proportion (never
    /// below half), once per recent latency, and then grows by one per round trip only.
    @Test func shrinksWhenLatencyRises() {
        var l = ConcurrencyLimiter(start: 32, ceiling: 64)
        l.answered(latency: .milliseconds(40), inFlight: 32, now: Self.at(0))
        #expect(l.limit == 33)
        // A queue builds at the origin: the recent latency climbs past 80 ms.
        var now = 10
        while l.limit == 33 || l.isInSlowStart, now < 10_000 {
            l.answered(latency: .milliseconds(400), inFlight: 33, now: Self.at(now))
            now += 10
        }
        #expect(l.limit >= 16 && l.limit < 33 && !l.isInSlowStart, "\(l.limit)")
        let after = l.limit
        // More slow answers within the same recent latency change nothing more.
        l.answered(latency: .milliseconds(400), inFlight: after, now: Self.at(now))
        #expect(l.limit == after)
        #expect(l.minLatency == .milliseconds(40))
    }

    /// Growth after trouble is one per round trip's worth of answers.
    @Test func afterTroubleGrowthIsAdditive() {
        var l = ConcurrencyLimiter(start: 10, ceiling: 64)
        l.overloaded(RequestSent(at: Self.at(0) - .milliseconds(40), inFlight: 40), now: Self.at(0))
        #expect(l.limit == 5 && !l.isInSlowStart)
        for i in 0..<5 { l.answered(latency: .milliseconds(40), inFlight: 5, now: Self.at(100 + i)) }
        #expect(l.limit == 5 || l.limit == 6, "about one more after five answers at five: \(l.limit)")
        for i in 0..<6 { l.answered(latency: .milliseconds(40), inFlight: 6, now: Self.at(200 + i)) }
        #expect(l.limit == 6 || l.limit == 7)
    }

    /// An overload (429, 503, a reset) halves the limit once for a burst of them (those sent
    /// before the halving), and never below the floor.
    @Test func anOverloadHalvesOncePerBurst() {
        var l = ConcurrencyLimiter(start: 40, floor: 2, ceiling: 64)
        l.answered(latency: .milliseconds(50), inFlight: 40, now: Self.at(0))
        for i in 0..<30 { l.overloaded(RequestSent(at: Self.at(10 + i) - .milliseconds(40), inFlight: 64), now: Self.at(10 + i)) }
        #expect(l.limit == 20, "thirty refusals within one latency are one decrease")
        l.overloaded(RequestSent(at: Self.at(200) - .milliseconds(40), inFlight: 64), now: Self.at(200))
        #expect(l.limit == 10)
        for i in 0..<10 { l.overloaded(RequestSent(at: Self.at(1_000 * (i + 1) - 40), inFlight: 64), now: Self.at(1_000 * (i + 1))) }
        #expect(l.limit == 2, "held at the floor")
    }

    /// An origin that refuses past 8 at once: the limit halves, grows back to 8 and stays there
    /// while that holds (no refusal after the first), then looks past it.
    @Test func settlesBelowAnOriginsCap() {
        var l = ConcurrencyLimiter(ceiling: 64)
        #expect(l.limit == ConcurrencyLimiter.start)
        var now = 0
        func answer(_ count: Int) {
            for _ in 0..<count {
                l.answered(latency: .milliseconds(40), inFlight: l.limit, now: Self.at(now))
                now += 5
            }
        }
        answer(5)
        #expect(l.limit == 9)
        l.overloaded(RequestSent(at: Self.at(now) - .milliseconds(40), inFlight: 9), now: Self.at(now))
        #expect(l.limit == 4 && l.capacity?.requests == 8)
        answer(200)
        #expect(l.limit == 8, "grows back to what the origin took, no further")
        now += 30_000
        answer(40)
        #expect(l.limit > 8, "after the hold, it looks past it: \(l.limit)")
        // A burst of refusals: its first says what the origin took, the others nothing more.
        l.overloaded(RequestSent(at: Self.at(now) - .milliseconds(40), inFlight: 30), now: Self.at(now))
        l.overloaded(RequestSent(at: Self.at(now + 1) - .milliseconds(40), inFlight: 7), now: Self.at(now + 1))
        #expect(l.capacity?.requests == 29)
    }

    /// The start is kept within floor and ceiling; a ceiling that rises (the origin turns out to
    /// multiplex) lets the limit grow on, one that falls (it no longer does) takes the limit down.
    @Test func boundsAndAMovingCeiling() {
        #expect(ConcurrencyLimiter(start: 100, ceiling: 8).limit == 8)
        #expect(ConcurrencyLimiter(start: 0, floor: 3, ceiling: 8).limit == 3)
        var l = ConcurrencyLimiter(start: 4, ceiling: 4)
        l.answered(latency: .milliseconds(40), inFlight: 4, now: Self.at(0))
        #expect(l.limit == 4)
        l.changeCeiling(to: 400)
        #expect(l.ceiling == 400)
        l.answered(latency: .milliseconds(40), inFlight: 4, now: Self.at(1))
        #expect(l.limit == 5)
        l.changeCeiling(to: 2)
        #expect(l.ceiling == 2 && l.limit == 2)
        l.changeCeiling(to: 0)
        #expect(l.ceiling == 1 && l.limit == 1, "never below the floor")
        l.changeCeiling(to: 400)
        #expect(l.limit == 5, "what the lower ceilings cut comes back with the ceiling")
        l.changeCeiling(to: 2)
        l.overloaded(RequestSent(at: Self.at(2) - .milliseconds(40), inFlight: 2), now: Self.at(2))
        l.changeCeiling(to: 400)
        #expect(l.limit == 1, "not once the origin has said it had too much")
    }

    /// The path's latency is the shortest of the last window or two: one quick answer early on
    /// holds only until it has aged out, then the path's usual latency is the measure again.
    @Test func theShortestLatencyAgesOut() {
        var l = ConcurrencyLimiter(start: 8, ceiling: 64)
        l.answered(latency: .milliseconds(2), inFlight: 8, now: Self.at(0))
        #expect(l.minLatency == .milliseconds(2))
        // The path's answers take 40 ms: against 2 ms they look like a queue, and the limit falls.
        var now = 10
        for _ in 0..<20 {
            l.answered(latency: .milliseconds(40), inFlight: 8, now: Self.at(now))
            now += 100
        }
        #expect(l.limit < 8 && l.minLatency == .milliseconds(2), "\(l.limit)")
        let low = l.limit
        // Two windows on, the quick answer is forgotten and answers at 40 ms let it grow.
        now = 20_500
        for _ in 0..<40 {
            l.answered(latency: .milliseconds(40), inFlight: l.limit, now: Self.at(now))
            now += 100
        }
        #expect(l.minLatency == .milliseconds(40) && l.limit > low, "\(l.limit)")
    }
}

extension ConcurrencyLimiter {
    /// An answer to a request sent `latency` before `now`.
    mutating func answered(latency: Duration, inFlight: Int, now: Instant) {
        answered(latency: latency, sentAt: now - latency, inFlight: inFlight, now: now)
    }
}
