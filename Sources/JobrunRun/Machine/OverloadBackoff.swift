/// How a fixed limit (an origin whose limit does not adapt) gives way when its origin refuses
/// requests as too many (429, 503): it keeps its limit while the origin keeps up, and only then
/// holds fewer requests in flight, returning to its limit as the origin takes them again. Unlike
/// ``ConcurrencyLimiter`` it never reads latency and never settles below the limit for good: a
/// user who chose a number gets it back.
///
/// The rules:
/// - A refused request that went while `n` were in flight there (itself included) says the
///   origin took fewer than `n` (`took`). The first refusal halves the requests in flight,
///   counted from what was under way then, and leaves no more than `took` (nor fewer than a
///   quarter: an origin may free its places a moment after it answers, and refuse one request
///   sent with few in flight).
/// - Refusals of requests sent before the last decrease do not halve again: a burst of refusals
///   counts once. Each may still say the origin took fewer than the burst's first refusal did
///   (answers come in any order): the requests in flight then go no further than the fewest any
///   of them took (nor below the quarter). A later refusal halves again.
/// - Each other answer lets one more go (doubling per round trip, as TCP's slow start) up to
///   what the origin took, and past it one more per round trip's worth of answers (for
///   `capacityHold` after the first refusal, and up to a quarter past a cap), then one more per
///   answer again up to the fixed limit, where the back-off ends.
/// - A refusal after a decrease, once the origin has answered a request sent since it, says the
///   origin has a cap: for `capacityHold` the requests in flight grow no further than what it
///   took then (or half what was in flight, whichever is more). Refusals with no answer in
///   between (after a cooldown, during an outage or a rate limiter's stall) halve, but say
///   nothing of a cap.
///
/// A part of the run's machine: told the time, it reads no clock.
struct OverloadBackoff: Equatable {
    typealias Instant = ContinuousClock.Instant

    /// How long what a refusal said of the origin's cap holds: long enough that an origin with a
    /// cap refuses a request every so often, short enough that an origin whose cap moved is soon
    /// looked at again.
    static let capacityHold: Duration = .seconds(10)

    /// What the refusals said of the origin, and until when: past `requests`, growth is one per
    /// round trip's worth of answers, or none once a refusal showed a cap (`isFirm`).
    struct Capacity: Equatable {
        var requests: Int
        var until: Instant
        var isFirm: Bool
    }

    /// Fractional, so that growth of one per round trip takes `limit` answers.
    private var value: Double
    private(set) var capacity: Capacity
    /// The origin answered a request sent since the last decrease: it is serving, so a refusal
    /// now speaks of how many it takes.
    private var answeredSinceDecrease = false
    private var lastDecrease: Instant
    /// The fewest in flight a refusal leaves: a quarter of what was in flight at the first one.
    private var floor: Int

    /// Requests that may be in flight at the origin now.
    var limit: Int { Int(value) }

    /// The origin's first refusal, at `now`, of the request `sent`, with `inFlight` under way
    /// there now (itself included), under its fixed limit `fixed`.
    init(_ sent: RequestSent, inFlight: Int, fixed: Int, now: Instant) {
        let took = max(1, sent.inFlight - 1)
        let inFlight = min(inFlight, fixed)
        floor = max(1, inFlight / 4)
        value = Double(max(1, min(inFlight / 2, max(took, floor))))
        capacity = Capacity(requests: took, until: now + Self.capacityHold, isFirm: false)
        lastDecrease = now
    }

    /// The origin refused the request `sent` at `now`, with `inFlight` under way there (itself
    /// included).
    mutating func refused(_ sent: RequestSent, inFlight: Int, now: Instant) {
        guard sent.at >= lastDecrease else {
            // Of the burst the last decrease answered: what it took may be fewer than it said.
            let took = max(1, sent.inFlight - 1)
            guard took < capacity.requests, !capacity.isFirm else { return }
            capacity.requests = took
            value = min(value, Double(max(took, floor)))
            return
        }
        let halved = max(1, min(inFlight, limit) / 2)
        value = Double(halved)
        lastDecrease = now
        if answeredSinceDecrease {
            capacity = Capacity(requests: max(halved, sent.inFlight - 1), until: now + Self.capacityHold, isFirm: true)
        }
        answeredSinceDecrease = false
    }

    /// The origin answered the request `sent` (anything but a refusal) at `now`, under its fixed
    /// limit `fixed`: more may be in flight. Whether the back-off is over (back at `fixed`).
    mutating func answered(_ sent: RequestSent, fixed: Int, now: Instant) -> Bool {
        if sent.at >= lastDecrease { answeredSinceDecrease = true }
        let growth: Double
        if limit < capacity.requests {
            growth = 1  // up to what the origin took
        } else if now < capacity.until {
            growth = capacity.isFirm ? 0 : 1 / value  // at or past it while the refusal holds
        } else if capacity.isFirm && value < Double(capacity.requests) * 1.25 + 1 {
            growth = 1 / value  // looking past a cap
        } else {
            growth = 1
        }
        value = min(value + growth, Double(fixed))
        return limit >= fixed
    }
}
