import JobrunCore
import JobrunManifest
import JobrunOutcome
import JobrunPlan

/// The network policy during the run: resources deferred by the plan, by a dependency, or by
/// conditions that turned bad while it ran.
extension RunDriver {
    /// Starts the policy's review: the gate, the first verdicts, the watch of the conditions.
    mutating func startPolicy() {
        guard let policy = options.policy else { return }
        machine.startPolicy(policy, now: ContinuousClock.now)
        if let read = policy.readConditions { conditionsWatch = ConditionsWatch(interval: policy.interval, read: read) }
        reviewPolicy(now: ContinuousClock.now)
    }

    /// Judges every resource still to run again, with the latest conditions and the time, and
    /// renews the gate's verdicts.
    mutating func reviewPolicy(now: ContinuousClock.Instant) {
        guard let policy = options.policy, machine.policy != nil else { return }
        machine.reviewPolicy(now: now, wallMilliseconds: policy.wallMilliseconds(), reading: conditionsWatch?.take())
    }

    /// Reviews the policy when its interval has passed.
    mutating func reviewPolicyIfDue() {
        guard let review = machine.policy, review.isDue(at: ContinuousClock.now) else { return }
        reviewPolicy(now: ContinuousClock.now)
    }

    /// Ends the watch of the conditions.
    func stopPolicy() {
        conditionsWatch?.stop()
    }

    /// Resource `r` is deferred for `deferral` before it started: its slices not done are
    /// deferred, and its dependents are deferred in turn.
    mutating func deferResource(_ r: Int, _ deferral: Deferral) {
        deferralOf[r] = deferral
        for j in machine.book.jobsOfResource[r] where !isDone(j) {
            settle(j, SliceOutcome(status: .deferred, skipReason: deferral.message, displayURL: displayURL(j)), bulk: true)
        }
        events.emit(.resourceDeferred(id: plan.entries[r].resource.id, deferral: deferral))
    }

    /// A warning, once per resource, when it runs only because `max_deferral` has passed.
    mutating func warnIfOverridden(_ r: Int) {
        var overridden = plan.entries[r].overridden
        if overridden.isEmpty, let context = machine.policy?.context, case .run(let causes) = context.verdict(for: plan.entries[r].resource) {
            overridden = causes
        }
        guard !overridden.isEmpty else { return }
        events.emit(.deferralOverridden(id: plan.entries[r].resource.id, causes: overridden))
    }

    /// Why resource `r` was deferred while it ran: the gate's verdict, or the dependency's.
    func runtimeDeferral(of r: Int) -> Deferral {
        machine.policy?.deferrals[r] ?? deferralOf[r] ?? Deferral(causes: [Deferral.Cause(.dependency, "deferred by the network policy")])
    }
}
