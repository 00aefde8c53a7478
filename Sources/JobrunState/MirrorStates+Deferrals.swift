extension MirrorStates {
    /// When each deferred resource was first deferred (milliseconds since the epoch), by id,
    /// over every store in use: `max_deferral` counts from there.
    public func firstDeferrals() -> [String: Int64] {
        var first: [String: Int64] = [:]
        for root in roots {
            let deferred = use(root) { store throws(StateError) in try store.deferredResources() } ?? [:]
            for d in deferred.values {
                first[d.resource] = min(first[d.resource] ?? d.firstDeferredAtMilliseconds, d.firstDeferredAtMilliseconds)
            }
        }
        return first
    }

    /// Records in `root`'s store that `resources` (id and causes) were deferred now.
    public func recordDeferred(_ resources: [(id: String, reason: String)], root: String, atMilliseconds now: Int64) {
        guard !resources.isEmpty, mayRecord(root: root) else { return }
        _ = use(root) { store throws(StateError) in if !store.isReadOnly { try store.recordDeferred(resources, atMilliseconds: now) } }
    }

    /// Forgets in `root`'s store that `resources` were deferred (they ran).
    public func forgetDeferred(_ resources: [String], root: String) {
        guard !resources.isEmpty, mayRecord(root: root) else { return }
        _ = use(root) { store throws(StateError) in if !store.isReadOnly { try store.forgetDeferred(resources) } }
    }
}
