/// How a fixed limit (an origin whose limit does not adapt) gives way when its origin refuses
/// requests as too many (429, 503): it keeps its limit while the origin keeps up, and only then
/// holds fewer requests in flight, returning to its limit as the origin takes them again. Unlike
/// ``ConcurrencyLimiter`` it never reads latency and never settles below the limit for good: a
/// user who chose a number gets it back.
///
/// The rules:
/// - A refused request that went while `n` were in flight there (itself included) says the
///   origin took fewer than `n` (`took`). A refusal halves the requests in flight, counted from
///   what was under way then, and leaves no more than `took`.
/// - Refusals of requests sent before the last decrease say nothing of the limit it left: a
///   burst of refusals counts once.
/// - Each other answer lets one more go (doubling per round trip, as TCP's slow start), up to the
///   fixed limit, where the back-off ends; for `capacityHold` after a refusal, past `took` only
///   one more per round trip's worth of answers (as TCP past its slow-start threshold).
/// - A refusal of a request sent after a decrease says the origin's cap is real: for
///   `capacityHold` the requests in flight grow no further than `took` (and never below the
///   halved limit, in case the origin freed its places later than it answered). Then they grow
///   on, and a refusal past the cap renews it.
///
/// A part of the run's machine: told the time, it reads no clock.
struct OverloadBackoff: Equatable {
    typealias Instant = ContinuousClock.Instant

    /// How long what a refusal said of the origin's cap holds: long enough that an origin with a
    /// cap refuses a request every so often, short enough that an origin that refused
    /// everything for a moment is soon back at its limit.
    static let capacityHold: Duration = .seconds(10)

    /// What the last refusal said of the origin, and until when: past `requests`, growth is
    /// one per round trip's worth of answers, or none once the origin has refused again
    /// (`isFirm`).
    struct Capacity: Equatable {
        var requests: Int
        var until: Instant
        var isFirm: Bool
    }

    /// Fractional, so that growth of one per round trip takes `limit` answers.
    private var value: Double
    private(set) var capacity: Capacity
    private var lastDecrease: Instant

    /// Requests that may be in flight at the origin now.
    var limit: Int { Int(value) }

    /// The origin's first refusal, at `now`, of the request `sent`, with `inFlight` under way
    /// there now (itself included), under its fixed limit `fixed`.
    init(_ sent: RequestSent, inFlight: Int, fixed: Int, now: Instant) {
        value = Double(fixed)
        capacity = Capacity(requests: fixed, until: now, isFirm: false)
        lastDecrease = now
        decrease(sent, inFlight: inFlight, isFirm: false, now: now)
    }

    /// The origin refused the request `sent` at `now`, with `inFlight` under way there (itself
    /// included).
    mutating func refused(_ sent: RequestSent, inFlight: Int, now: Instant) {
        guard sent.at >= lastDecrease else { return }
        decrease(sent, inFlight: inFlight, isFirm: true, now: now)
    }

    private mutating func decrease(_ sent: RequestSent, inFlight: Int, isFirm: Bool, now: Instant) {
        let took = max(1, sent.inFlight - 1)
        let halved = max(1, min(inFlight, limit) / 2)
        value = Double(min(halved, took))
        capacity = Capacity(requests: isFirm ? max(halved, took) : took, until: now + Self.capacityHold, isFirm: isFirm)
        lastDecrease = now
    }

    /// The origin answered (anything but a refusal) at `now`, under its fixed limit `fixed`:
    /// more may be in flight. Whether the back-off still holds it below `fixed`.
    mutating func answered(fixed: Int, now: Instant) -> Bool {
        if now >= capacity.until || limit < capacity.requests {
            value += 1
        } else if !capacity.isFirm {
            value += 1 / value
        }
        value = min(value, Double(fixed))
        return limit < fixed
    }
}
