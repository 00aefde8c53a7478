import Testing
@testable import JobrunRun

/// A fixed limit giving way to an origin's refusals, fed made-up refusals and answers at made-up
/// instants.
@Suite struct OverloadBackoffTests {
    static let t0 = ContinuousClock.now
    static func at(_ ms: Int) -> ContinuousClock.Instant { t0 + .milliseconds(ms) }
    static func sent(_ ms: Int, with inFlight: Int) -> RequestSent { RequestSent(at: at(ms), inFlight: inFlight) }
    static let hold = Int(OverloadBackoff.capacityHold / .milliseconds(1))

    /// Answers at `ms` (to requests sent just before) until the back-off is over or `most`
    /// answers; how many it took.
    static func answers(_ b: inout OverloadBackoff, fixed: Int, at ms: Int, most: Int = 100_000) -> Int {
        var count = 0
        while count < most {
            count += 1
            if b.answered(sent(ms - 1, with: 1), fixed: fixed, now: at(ms)) { break }
        }
        return count
    }

    /// One refusal (a front end's hiccup) halves once, whatever else of its burst follows; after
    /// the hold, answers bring the limit back to the fixed one at one more each.
    @Test func oneRefusalHalvesOnceAndComesBack() {
        var b = OverloadBackoff(Self.sent(-1, with: 128), inFlight: 128, fixed: 128, now: Self.at(0))
        #expect(b.limit == 64 && !b.capacity.isFirm)
        for i in 0..<60 { b.refused(Self.sent(-1, with: 128 - i), inFlight: 127 - i, now: Self.at(1 + i)) }
        #expect(b.limit == 64 && !b.capacity.isFirm, "refusals of requests sent before the halving do not halve again")
        #expect(Self.answers(&b, fixed: 128, at: Self.hold) == 64 && b.limit == 128, "one more per answer: a doubling per round trip")
    }

    /// Answers come in any order: a later refusal of the same burst that went with fewer in
    /// flight says the origin took fewer, and the limit follows it down, to a quarter at most.
    @Test func theFewestABurstTookLeadsIt() {
        var b = OverloadBackoff(Self.sent(-1, with: 32), inFlight: 32, fixed: 32, now: Self.at(0))
        #expect(b.limit == 16 && b.capacity.requests == 31)
        b.refused(Self.sent(-1, with: 20), inFlight: 30, now: Self.at(1))
        #expect(b.limit == 16 && b.capacity.requests == 19, "took 19: the halving already left fewer")
        b.refused(Self.sent(-1, with: 9), inFlight: 29, now: Self.at(2))
        #expect(b.limit == 8 && b.capacity.requests == 8, "took 8")
        b.refused(Self.sent(-1, with: 2), inFlight: 28, now: Self.at(3))
        #expect(b.limit == 8 && b.capacity.requests == 1, "never below a quarter of what was in flight")
        b.refused(Self.sent(-1, with: 12), inFlight: 27, now: Self.at(4))
        #expect(b.limit == 8 && b.capacity.requests == 1, "a later refusal that took more says nothing new")
    }

    /// Halved from what was in flight, never below one, and never above what the refused
    /// request's own send said of the origin.
    @Test func halvesWithinWhatTheOriginTook() {
        #expect(OverloadBackoff(Self.sent(0, with: 6), inFlight: 6, fixed: 32, now: Self.at(1)).limit == 3)
        #expect(OverloadBackoff(Self.sent(0, with: 40), inFlight: 40, fixed: 32, now: Self.at(1)).limit == 16)
        #expect(OverloadBackoff(Self.sent(0, with: 1), inFlight: 1, fixed: 32, now: Self.at(1)).limit == 1)
        let early = OverloadBackoff(Self.sent(0, with: 9), inFlight: 32, fixed: 32, now: Self.at(1))
        #expect(early.limit == 8 && early.capacity.requests == 8, "refused while 8 others were in flight: it takes fewer than 9")
    }

    /// Within the hold, past what the origin took, one more per round trip's worth of answers:
    /// a hiccup that said little costs a slower climb for a while, not the rest of the run.
    @Test func pastWhatItTookItClimbsSlowlyForAWhile() {
        var b = OverloadBackoff(Self.sent(0, with: 11), inFlight: 24, fixed: 128, now: Self.at(0))
        #expect(b.limit == 10)
        #expect(Self.answers(&b, fixed: 128, at: 10, most: 10) == 10 && b.limit == 10)
        _ = Self.answers(&b, fixed: 128, at: 10, most: 60)
        let slow = b.limit
        #expect(slow > 13 && slow < 16, "about one more per round trip of 10 to 15: \(slow)")
        #expect(Self.answers(&b, fixed: 128, at: Self.hold) == 128 - slow && b.limit == 128, "after the hold, one more per answer")
    }

    /// An origin that refuses past 8 at once, under a fixed limit of 32: the first refusal says
    /// it took 8; one past that, refused too, says its cap is real, and the limit settles at it
    /// for the hold; then it climbs slowly past it, where a refusal renews the cap.
    @Test func settlesAtAnOriginsCapThenLooksPastIt() {
        var b = OverloadBackoff(Self.sent(0, with: 9), inFlight: 32, fixed: 32, now: Self.at(10))
        #expect(b.limit == 8 && b.capacity.requests == 8 && !b.capacity.isFirm)
        _ = Self.answers(&b, fixed: 32, at: 60, most: 9)
        #expect(b.limit == 9, "past 8, a round trip's worth of answers for one more")
        b.refused(Self.sent(70, with: 9), inFlight: 9, now: Self.at(100))
        #expect(b.limit == 4 && b.capacity.requests == 8 && b.capacity.isFirm)
        #expect(Self.answers(&b, fixed: 32, at: 110, most: 1_000) == 1_000 && b.limit == 8, "held at the cap")
        let past = 100 + Self.hold
        _ = Self.answers(&b, fixed: 32, at: past, most: 9)
        #expect(b.limit == 9, "after the hold it climbs past the cap a round trip at a time")
        b.refused(Self.sent(past, with: 9), inFlight: 9, now: Self.at(past + 40))
        #expect(b.limit == 4 && b.capacity == .init(requests: 8, until: Self.at(past + 40 + Self.hold), isFirm: true))
        // Past a quarter above the cap, one more per answer again.
        _ = Self.answers(&b, fixed: 32, at: past + 40 + Self.hold, most: 4)
        #expect(b.limit == 8)
        _ = Self.answers(&b, fixed: 32, at: past + 40 + Self.hold, most: 30)
        let climbed = b.limit
        #expect(climbed >= 11 && climbed <= 13, "\(climbed)")
        #expect(Self.answers(&b, fixed: 32, at: past + 40 + Self.hold) == 32 - climbed)
    }

    /// Refusals with no answer in between (after a cooldown, during an outage or a rate
    /// limiter's stall) halve what is in flight but say nothing of a cap: once the origin answers
    /// again, the limit comes back a request per answer up to what it took.
    @Test func refusalsWithNoAnswerBetweenSetNoCap() {
        var b = OverloadBackoff(Self.sent(0, with: 20), inFlight: 32, fixed: 32, now: Self.at(0))
        #expect(b.limit == 16 && b.capacity.requests == 19)
        // Answers to requests sent before the refusal say nothing of the origin since.
        _ = b.answered(Self.sent(-200, with: 10), fixed: 32, now: Self.at(100))
        for (i, ms) in [1_000, 2_000, 3_000, 4_000, 5_000].enumerated() {
            b.refused(Self.sent(ms, with: 1 + i % 2), inFlight: 2, now: Self.at(ms + 10))
        }
        #expect(b.limit == 1 && !b.capacity.isFirm && b.capacity.requests == 19, "an outage: halved, no cap")
        _ = b.answered(Self.sent(4_900, with: 1), fixed: 32, now: Self.at(5_100))
        b.refused(Self.sent(5_200, with: 2), inFlight: 2, now: Self.at(5_210))
        #expect(b.limit == 1 && !b.capacity.isFirm, "the answer was to a request sent before the last decrease")
        _ = Self.answers(&b, fixed: 32, at: 6_000, most: 18)
        #expect(b.limit == 19, "one more per answer up to what the origin took")
        // Answered, then refused at 2 in flight: now a cap, but no lower than half of what was in flight.
        b.refused(Self.sent(6_001, with: 2), inFlight: 18, now: Self.at(6_002))
        #expect(b.limit == 9 && b.capacity.isFirm && b.capacity.requests == 9)
    }

    /// A first refusal of a request sent with few in flight (an origin that frees its places a
    /// moment after it answers) leaves no fewer than a quarter of what was in flight.
    @Test func aFirstRefusalLeavesAQuarterAtLeast() {
        #expect(OverloadBackoff(Self.sent(0, with: 3), inFlight: 32, fixed: 32, now: Self.at(1)).limit == 8)
        #expect(OverloadBackoff(Self.sent(0, with: 60), inFlight: 128, fixed: 128, now: Self.at(1)).limit == 59)
        #expect(OverloadBackoff(Self.sent(0, with: 1), inFlight: 128, fixed: 128, now: Self.at(1)).limit == 32)
    }

    /// The fixed limit may change under it (an origin that turns out to multiplex carries more):
    /// the back-off holds until the limit it lets through reaches the fixed one, whichever.
    @Test func followsTheFixedLimit() {
        var b = OverloadBackoff(Self.sent(0, with: 5), inFlight: 4, fixed: 4, now: Self.at(1))
        #expect(b.limit == 2)
        let over = b.answered(Self.sent(1, with: 1), fixed: 128, now: Self.at(2))
        #expect(!over && b.limit == 3)
        let overBelow = b.answered(Self.sent(2, with: 1), fixed: 2, now: Self.at(3))
        #expect(overBelow, "a fixed limit now below it: over")
    }
}
