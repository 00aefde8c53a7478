import JobrunOutcome
import JobrunPlan

/// The run's resources as their dependencies make them: which may start, which a dependency's
/// failure skips or its deferral defers, and how each ends. A part of the run's machine: the
/// only place a resource's state changes, with no clock, file or event of its own. The
/// driver carries out each decision (queues, settles and tells) and reports back the
/// slices that end.
struct ResourceGraph {
    enum State: Equatable {
        /// `unfinished`: the run stopped before all its slices ended (none failed); its
        /// dependents are not started rather than skipped as dependency failures. `deferred`: the
        /// network policy held (the rest of) its work back; its dependents are deferred too.
        case waiting, active, complete, failed, unfinished, deferred, skipped(String)
    }

    struct Dependency: Equatable {
        var id: String
        /// The dependency's index among the resources.
        var resource: Int
    }

    /// What the graph decided for a waiting resource (whose state it has changed already).
    enum Decision: Equatable {
        /// A dependency failed or was skipped: so is this one, for `reason`.
        case skip(reason: String)
        /// Deferred before it started: by the plan, or with a deferred dependency.
        case `defer`(Deferral)
        /// Active now; its slices not done may start.
        case start
    }

    /// How an active resource whose slices have all ended ends, by their counts.
    enum Ending: Equatable {
        /// Conditions turned bad while it ran: what it fetched is in place (once synced), the
        /// rest waits.
        case deferred
        /// Every slice is in place: complete once its root's sync succeeds, failed otherwise.
        case complete
        case failed(count: Int, total: Int)
        /// Skipped slices: the run was stopped before they finished.
        case unfinished(count: Int, total: Int)
    }

    private(set) var states: [State]
    let dependencies: [[Dependency]]
    /// What the plan defers, by resource.
    private let plannedDeferrals: [Deferral?]
    /// Slices of each resource not done yet.
    private var remaining: [Int]
    /// Where the scan for the next decision stands, and whether its pass decided something.
    private var cursor = 0
    private var passDecided = false

    /// - Parameters: by resource, in plan order: its dependencies, the plan's deferral, and how
    ///   many of its slices are still to be done.
    init(dependencies: [[Dependency]], plannedDeferrals: [Deferral?], remaining: [Int]) {
        self.dependencies = dependencies
        self.plannedDeferrals = plannedDeferrals
        self.remaining = remaining
        states = Array(repeating: .waiting, count: dependencies.count)
    }

    func isDone(_ r: Int) -> Bool { remaining[r] == 0 }

    /// One more slice of resource `r` is done.
    mutating func sliceDone(of r: Int) {
        assert(remaining[r] > 0, "a slice of resource \(r) was done twice")
        remaining[r] -= 1
    }

    // MARK: Starting

    /// Begins looking at every waiting resource again, in plan order (at the run's start, and
    /// whenever a resource has ended).
    mutating func rescan() {
        cursor = 0
        passDecided = false
    }

    /// The next waiting resource its dependencies decide, and the decision, already in its
    /// state; `nil` once a whole pass over the waiting resources decides nothing. Passes go in
    /// plan order: a decision that frees a later resource is followed by that one's in the same
    /// pass, one that frees an earlier resource by that one's in the next.
    mutating func nextDecision() -> (resource: Int, decision: Decision)? {
        while true {
            while cursor < states.count {
                let r = cursor
                cursor += 1
                guard states[r] == .waiting, let decision = decide(r) else { continue }
                passDecided = true
                switch decision {
                case .skip(let reason): states[r] = .skipped(reason)
                case .defer: states[r] = .deferred
                case .start: states[r] = .active
                }
                return (r, decision)
            }
            guard passDecided else { return nil }
            rescan()
        }
    }

    private func decide(_ r: Int) -> Decision? {
        let deps = dependencies[r]
        if let failed = deps.first(where: { Self.didNotComplete(states[$0.resource]) }) {
            return .skip(reason: "depends on '\(failed.id)', which did not complete")
        }
        // Left waiting: not started at the end of the run (its dependency was cut short).
        if deps.contains(where: { states[$0.resource] == .unfinished }) { return nil }
        if let deferral = plannedDeferrals[r] { return .defer(deferral) }
        guard deps.allSatisfy({ states[$0.resource] == .complete || states[$0.resource] == .deferred }) else { return nil }
        // Work that waits for a deferred dependency is deferred with it; a resource with nothing
        // to do is complete all the same.
        if !isDone(r), let deferral = dependencyDeferral(of: r) { return .defer(deferral) }
        return .start
    }

    private static func didNotComplete(_ state: State) -> Bool {
        switch state {
        case .failed, .skipped: true
        default: false
        }
    }

    /// The dependencies of `r` that are deferred, as a deferral of `r`.
    func dependencyDeferral(of r: Int) -> Deferral? {
        let deferred = dependencies[r].filter { states[$0.resource] == .deferred }.map(\.id).sorted()
        guard !deferred.isEmpty else { return nil }
        return Deferral(causes: deferred.map { Deferral.Cause(.dependency, "depends on '\($0)', which is deferred") })
    }

    // MARK: Ending

    /// Whether resource `r` is active with every slice done: ready for ``ending(counts:total:)``.
    func isReadyToEnd(_ r: Int) -> Bool {
        states[r] == .active && remaining[r] == 0
    }

    /// How a resource of `total` slices whose slices ended with `counts` ends.
    static func ending(counts: ApplyResult.Counts, total: Int) -> Ending {
        if counts.failed == 0 && counts.skipped == 0 {
            return counts.deferred > 0 ? .deferred : .complete
        }
        if counts.failed > 0 { return .failed(count: counts.failed, total: total) }
        return .unfinished(count: counts.skipped, total: total)
    }

    /// Resource `r` has ended as `state` (the driver has synced and told it); the waiting
    /// resources are looked at again.
    mutating func ended(_ r: Int, as state: State) {
        states[r] = state
        rescan()
    }

    /// The resources the network policy may still defer: those waiting or under way.
    func isUndecidedOrActive(_ r: Int) -> Bool {
        states[r] == .waiting || states[r] == .active
    }
}
