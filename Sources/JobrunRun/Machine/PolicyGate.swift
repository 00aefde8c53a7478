import JobrunPlan

/// The network policy as a gate: a slice of a resource its policy defers now does not start.
/// Without a wait it is deferred for the run; with `--wait-for-conditions` it waits, asking again
/// at the next review of the conditions, until the wait ends. The verdicts are the driver's
/// latest review (``RunMachine/reviewPolicy(now:wallMilliseconds:reading:)``): the gate reads no clock or file itself.
struct PolicyGate: DispatchGate {
    /// By plan entry: the resources deferred at the last review.
    var deferred: [Int: Deferral]
    /// The end of `--wait-for-conditions`, if waiting.
    var waitUntil: ContinuousClock.Instant?
    /// The next review.
    var nextReview: ContinuousClock.Instant

    func decide(_ c: Candidate, now: ContinuousClock.Instant) -> GateDecision {
        guard let deferral = deferred[c.resource] else { return .admit }
        if let waitUntil, now < waitUntil { return .later(min(nextReview, waitUntil)) }
        return .deferred(deferral.message, nil)
    }
}
