import JobrunManifest

/// How many requests one origin is given at once when its limit adapts (`concurrency.adaptive`):
/// raised while answers come as fast as the fastest seen, lowered when they slow down or the
/// origin says it is overloaded. Between `floor` and `ceiling` (the user's `per_host` slots,
/// with their streams); the breaker and `Retry-After` still decide about an origin that fails.
///
/// The rules, a latency gradient with AIMD (as Netflix's concurrency-limits and Envoy's adaptive
/// concurrency filter do):
/// - The path's own latency is the shortest first-byte time of the last `latencyWindow` or two
///   (`minLatency`, as BBR keeps its shortest round trip), so that one unusually quick answer,
///   or a path that changed, does not hold the limit down for the rest of the run; the recent
///   one is a moving average of the last answers (`recentLatency`).
/// - While the recent latency stays within `tolerance` of the shortest (or `slack` of it, on a
///   path of a millisecond or so) and the limit is in use
///   (at least half of it in flight), the limit grows: by one per answer until the first sign of
///   trouble (doubling each round trip, as TCP's slow start), then by one per round trip's worth
///   of answers.
/// - When the recent latency passes both, the limit shrinks in
///   proportion (never below half): queueing at the origin shows as latency before it shows as
///   failures.
/// - An overload answer (429, 503) or a reset connection halves it. The requests that were in
///   flight when its request went, less one, are what the origin takes (`capacity`): for `capacityHold` after the
///   last overload the limit grows no further than that, so it settles below an origin's cap
///   instead of finding it again and again, and later looks past it in case the cap has moved.
/// - Only answers to requests sent after the last decrease decide another: those sent before it
///   say nothing of the limit it left, so a burst of refusals or slow answers counts once.
///
/// A part of the run's machine: told the time, it reads no clock.
struct ConcurrencyLimiter: Equatable {
    typealias Instant = ContinuousClock.Instant

    /// A recent latency up to this many times the shortest is the path, not a queue.
    static let tolerance = 2.0
    /// So is one up to this much longer than the shortest: on a path of a millisecond or less,
    /// a few milliseconds are the machines' scheduling, and would hold the limit near 1.
    static let slack: Duration = .milliseconds(5)
    /// How much of the recent latency is the newest answer's.
    static let smoothing = 0.2
    /// How long what an overload said of the origin's capacity holds.
    static let capacityHold: Duration = .seconds(30)
    static let start = ConcurrencyLimits.adaptiveStart
    /// How long the shortest latency seen stands for the path's own.
    static let latencyWindow: Duration = .seconds(10)

    let floor: Int
    private(set) var ceiling: Int
    /// Fractional, so that additive growth of one per round trip takes `limit` answers.
    private(set) var value: Double
    /// The shortest latency of this window and the one before it.
    var minLatency: Duration? { [earlierShortest, windowShortest].compactMap { $0 }.min() }
    private var earlierShortest: Duration?
    private var windowShortest: Duration?
    private var windowStart: Instant?
    private(set) var recentLatency: Duration?
    /// Until the first sign of trouble the limit grows by one per answer.
    private(set) var isInSlowStart = true
    /// What the origin took when it last said it was overloaded, and until when that holds.
    struct Capacity: Equatable {
        var requests: Int
        var until: Instant
    }
    private(set) var capacity: Capacity?
    private var lastDecrease: Instant?

    init(start: Int = Self.start, floor: Int = 1, ceiling: Int) {
        self.floor = max(1, floor)
        self.ceiling = max(self.floor, ceiling)
        let start = Double(max(start, self.floor))
        value = min(start, Double(self.ceiling))
        cutValue = start > value ? start : nil
    }

    /// Requests that may be in flight at once.
    var limit: Int { Int(value) }

    /// The ceiling changed: the origin's slots carry more (or fewer) streams than thought. A
    /// limit a lower ceiling cut comes back when the ceiling does, unless the origin has said
    /// since that it had too much.
    mutating func changeCeiling(to ceiling: Int) {
        self.ceiling = max(floor, ceiling)
        let wanted = max(value, cutValue ?? 0)
        cutValue = wanted > Double(self.ceiling) ? wanted : nil
        value = min(wanted, Double(self.ceiling))
    }
    /// The limit before a lower ceiling cut it.
    private var cutValue: Double?

    /// An answer's first byte came `latency` after its request was sent (its transfer started at
    /// `sentAt`), at `now`, with `inFlight` requests under way at the origin (this one included).
    mutating func answered(latency: Duration, sentAt: Instant, inFlight: Int, now: Instant) {
        if let start = windowStart, now - start < Self.latencyWindow {
            windowShortest = min(windowShortest ?? latency, latency)
        } else {
            // The window that ended is the earlier one, unless it ended a window or more ago.
            earlierShortest = windowStart.flatMap { now - $0 < Self.latencyWindow * 2 ? windowShortest : nil }
            windowShortest = latency
            windowStart = now
        }
        let shortest = min(earlierShortest ?? latency, windowShortest ?? latency)
        let recent = recentLatency.map { $0 + ($0 - latency) * -Self.smoothing } ?? latency
        recentLatency = recent
        let path = max(shortest * Self.tolerance, shortest + Self.slack)
        if recent > path {
            guard mayDecrease(sentAt: sentAt) else { return }
            // In proportion to how far the latency rose: a queue at the origin, not the path.
            let ratio = max(0.5, path / recent)
            decrease(to: value * ratio, now: now)
            return
        }
        // Growth only while the limit is what holds the origin back.
        guard Double(inFlight) * 2 >= value else { return }
        var top = Double(ceiling)
        if let capacity, now < capacity.until { top = min(top, Double(capacity.requests)) }
        guard value < top else { return }
        value = min(top, value + (isInSlowStart ? 1 : 1 / value))
    }

    /// The origin said at `now` that it is overloaded (429, 503), or reset a connection, of the
    /// request `sent`: it took fewer than were in flight when that went.
    mutating func overloaded(_ sent: RequestSent, now: Instant) {
        // The first refusal of a burst says what the origin took; the others come as the
        // requests in flight drain, and would say less.
        guard mayDecrease(sentAt: sent.at) else { return }
        let took = max(floor, sent.inFlight - 1)
        let known = capacity.flatMap { now < $0.until ? $0.requests : nil } ?? took
        capacity = Capacity(requests: min(took, known), until: now + Self.capacityHold)
        decrease(to: value / 2, now: now)
    }

    /// Only a request sent after the last decrease speaks of the limit that came of it.
    private func mayDecrease(sentAt: Instant) -> Bool {
        guard let lastDecrease else { return true }
        return sentAt >= lastDecrease
    }

    private mutating func decrease(to newValue: Double, now: Instant) {
        value = max(Double(floor), newValue.rounded(.down))
        cutValue = nil
        isInSlowStart = false
        lastDecrease = now
    }
}
