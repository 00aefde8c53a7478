extension MirrorStates {
    /// The origins quarantined until after `nowMilliseconds` over every store in use, each with
    /// the latest end any store records.
    public func quarantinedOrigins(atMilliseconds now: Int64) -> [String: StateStore.QuarantinedOrigin] {
        var found: [String: StateStore.QuarantinedOrigin] = [:]
        for root in roots {
            let stored = use(root) { store throws(StateError) in try store.quarantinedOrigins(atMilliseconds: now) } ?? [:]
            for q in stored.values where q.untilMilliseconds > found[q.origin]?.untilMilliseconds ?? .min { found[q.origin] = q }
        }
        return found
    }

    /// Records in `root`'s store that an origin is quarantined (``StateStore/recordQuarantined(_:atMilliseconds:)``).
    public func recordQuarantined(_ q: StateStore.QuarantinedOrigin, root: String, atMilliseconds now: Int64) {
        guard mayRecord(root: root) else { return }
        _ = use(root) { store throws(StateError) in if !store.isReadOnly { try store.recordQuarantined(q, atMilliseconds: now) } }
    }
}
