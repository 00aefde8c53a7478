public import JobrunConditions
public import JobrunManifest
public import JobrunCore
public import JobrunSystem

/// What a plan judges the resources' network policies by: the conditions read once, the time,
/// and when each resource was first deferred (from the mirror state, for `max_deferral`).
public struct PolicyContext: Sendable {
    public var conditions: Conditions
    public var nowMilliseconds: Int64
    /// The machine's zone, for windows without a `timezone`.
    public var localZone: TimeZoneRules
    /// By resource id.
    public var firstDeferred: [String: Int64]

    public init(conditions: Conditions, nowMilliseconds: Int64, localZone: TimeZoneRules, firstDeferred: [String: Int64] = [:]) {
        self.conditions = conditions
        self.nowMilliseconds = nowMilliseconds
        self.localZone = localZone
        self.firstDeferred = firstDeferred
    }

    /// The verdict of resource `resource`'s policy now.
    public func verdict(for resource: Resource) -> PolicyVerdict {
        resource.settings.network.verdict(
            conditions: conditions, nowMilliseconds: nowMilliseconds, localZone: localZone,
            firstDeferredMilliseconds: firstDeferred[resource.id])
    }

    /// Defers `entry` when it has work to do and its policy, or a deferred dependency (among
    /// `deferredDependencies`, by id), holds it back: its slices to transfer become `deferred`.
    func apply(to entry: inout Plan.Entry, deferredDependencies: Set<String>) {
        guard entry.counts.hasChanges else { return }
        var causes: [Deferral.Cause] = []
        var until: Int64?
        switch verdict(for: entry.resource) {
        case .run(let overridden):
            entry.overridden = overridden
        case .deferred(let deferral):
            causes = deferral.causes
            until = deferral.untilMilliseconds
        }
        for dependency in entry.resource.dependsOn.map(\.id).sorted() where deferredDependencies.contains(dependency) {
            causes.append(Deferral.Cause(.dependency, "depends on '\(dependency)', which is deferred"))
        }
        guard !causes.isEmpty else { return }
        let deferral = Deferral(causes: causes, untilMilliseconds: until)
        entry.overridden = []
        entry.deferral = deferral
        var counts = PlanCounts()
        counts.integrity = entry.counts.integrity
        for (i, slice) in entry.resource.slices.enumerated() {
            switch entry.decisions[i].action {
            case .fetch, .resume, .refetch, .revalidate:
                entry.decisions[i] = SliceDecision(action: .deferred, reason: deferral.message)
                entry.revalidations[i] = nil
            case .upToDate, .deferred:
                break
            }
            counts.add(entry.decisions[i].action, bytes: slice.size)
        }
        entry.counts = counts
    }
}
