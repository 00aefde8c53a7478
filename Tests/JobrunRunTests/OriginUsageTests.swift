import Testing

@testable import JobrunRun

/// What an origin carried: requests, connections, the time-weighted mean and peak of requests in
/// flight, and a bounded path of its limit, all from made-up instants.
@Suite struct OriginUsageTests {
    static let t0 = ContinuousClock.now
    static func at(_ ms: Int) -> ContinuousClock.Instant { t0 + .milliseconds(ms) }

    @Test func inFlightIsWeightedByTime() {
        var u = OriginUsage()
        #expect(u.meanInFlight == nil)
        // Two at once for 100 ms, then one alone for 100 ms: 1.5 on average, 2 at most.
        u.started(now: Self.at(0))
        u.started(now: Self.at(0))
        u.ended(now: Self.at(100), duration: .milliseconds(100), connections: 1)
        #expect(u.meanInFlight == nil, "not while one is in flight")
        u.ended(now: Self.at(200), duration: .milliseconds(200), connections: 0)
        #expect(u.requests == 2 && u.connections == 1 && u.peakInFlight == 2 && u.inFlight == 0)
        #expect(abs((u.meanInFlight ?? 0) - 1.5) < 1e-9)
        // Idle for 800 ms, then one for 1 s: the idle time is in the span (first start to last answer).
        u.started(now: Self.at(1_000))
        u.ended(now: Self.at(2_000), duration: .seconds(1), connections: 0)
        #expect(abs((u.meanInFlight ?? 0) - 0.65) < 1e-9 && u.peakInFlight == 2)
    }

    /// The time is read only at an origin's first start and when it falls idle.
    @Test func aBusyOriginAsksForNoTime() {
        var u = OriginUsage()
        var reads = 0
        func now() -> ContinuousClock.Instant {
            reads += 1
            return Self.at(reads)
        }
        u.started(now: now())
        for _ in 0..<100 {
            u.started(now: now())
            u.ended(now: now(), duration: .milliseconds(1), connections: 0)
        }
        #expect(reads == 1)
        u.ended(now: now(), duration: .milliseconds(1), connections: 0)
        #expect(reads == 2)
    }

    @Test func theLimitsPathKeepsChangesOnlyAndStaysBounded() {
        var u = OriginUsage()
        u.limit(is: 4, now: Self.at(0))
        u.limit(is: 4, now: Self.at(1))
        u.limit(is: 5, now: Self.at(2))
        #expect(u.limitPath.map(\.limit) == [4, 5] && u.limitPath.last?.at == Self.at(2))
        for i in 0..<1_000 { u.limit(is: 6 + i, now: Self.at(3 + i)) }
        #expect(u.limitPath.count <= OriginUsage.mostLimitChanges + 1)
        #expect(u.limitPath.first?.limit == 4 && u.limitPath.last?.limit == 1_005, "the first and the latest stay")
        #expect(zip(u.limitPath, u.limitPath.dropFirst()).allSatisfy { $0.at < $1.at }, "in time order")
    }

    /// A limit that goes back and forth thins to points that each still change it: dropping every
    /// other point of 4, 5, 4, 5 … would leave 4, 4, 4.
    @Test func aThinnedPathHasNoRepeats() {
        var u = OriginUsage()
        for i in 0..<1_000 { u.limit(is: 4 + i % 2 + (i % 7 == 0 ? 2 : 0), now: Self.at(i)) }
        #expect(u.limitPath.count <= OriginUsage.mostLimitChanges + 1 && u.limitPath.count > 2)
        #expect(zip(u.limitPath, u.limitPath.dropFirst()).allSatisfy { $0.limit != $1.limit && $0.at < $1.at })
        #expect(u.limitPath.last?.limit == u.limit)
    }
}
