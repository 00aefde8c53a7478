import JobrunConditions
import JobrunManifest
import JobrunPlan

/// The network policy during the run (``RunPolicy``): its latest context, the resources it
/// defers at the last review, and when the next review is due. A part of the run's machine: it
/// is told the time, the wall clock and the conditions' latest reading, and returns the gate the
/// scheduler holds (``PolicyGate``).
struct PolicyReview {
    /// The conditions and the time of the last review.
    private(set) var context: PolicyContext
    let interval: Duration
    /// `--wait-for-conditions`: until then deferred work waits instead of being deferred.
    let waitUntil: ContinuousClock.Instant?
    /// By plan entry: the resources deferred at the last review.
    private(set) var deferrals: [Int: Deferral] = [:]
    private(set) var nextReview: ContinuousClock.Instant

    /// A review due at `now`.
    init(policy: RunPolicy, now: ContinuousClock.Instant) {
        context = policy.context
        interval = policy.interval
        waitUntil = policy.waitUntil
        nextReview = now
    }

    func isDue(at now: ContinuousClock.Instant) -> Bool { now >= nextReview }

    /// Judges `resources` (those still to run, by plan entry) again at `now`, with the wall
    /// clock at `wallMilliseconds` and the conditions' latest reading (`nil`: as they were).
    mutating func review(
        now: ContinuousClock.Instant, wallMilliseconds: Int64, conditions: Conditions?, resources: [(entry: Int, resource: Resource)]
    ) -> PolicyGate {
        if let conditions { context.conditions = conditions }
        context.nowMilliseconds = wallMilliseconds
        var deferred: [Int: Deferral] = [:]
        for (r, resource) in resources {
            if case .deferred(let deferral) = context.verdict(for: resource) { deferred[r] = deferral }
        }
        deferrals = deferred
        nextReview = now + interval
        return PolicyGate(deferred: deferred, waitUntil: waitUntil, nextReview: nextReview)
    }
}
