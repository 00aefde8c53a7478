extension StateStore {
    /// A resource the network policy holds back, as the store remembers it.
    public struct DeferredResource: Sendable, Hashable {
        public var resource: String
        /// When it was first deferred, in milliseconds since the epoch: `max_deferral` counts
        /// from here, across runs.
        public var firstDeferredAtMilliseconds: Int64
        /// The causes of its latest deferral (`metered`, `window`, …).
        public var reason: String

        public init(resource: String, firstDeferredAtMilliseconds: Int64, reason: String) {
            self.resource = resource
            self.firstDeferredAtMilliseconds = firstDeferredAtMilliseconds
            self.reason = reason
        }
    }

    /// Every resource deferred and not run since, by id.
    public func deferredResources() throws(StateError) -> [String: DeferredResource] {
        var found: [String: DeferredResource] = [:]
        for row in try db.query("SELECT resource, first_deferred_at_ms, reason FROM deferrals") {
            guard row.count == 3, case .text(let id) = row[0], case .integer(let first) = row[1], case .text(let reason) = row[2] else { continue }
            found[id] = DeferredResource(resource: id, firstDeferredAtMilliseconds: first, reason: reason)
        }
        return found
    }

    /// Records that `resources` (id and causes) were deferred at `nowMilliseconds`: a resource
    /// deferred before keeps its first time, and gets the new causes.
    public func recordDeferred(_ resources: [(id: String, reason: String)], atMilliseconds now: Int64) throws(StateError) {
        guard !resources.isEmpty else { return }
        try db.transaction { () throws(StateError) in
            for r in resources {
                try db.query(
                    """
                    INSERT INTO deferrals (resource, first_deferred_at_ms, reason) VALUES (?, ?, ?)
                        ON CONFLICT (resource) DO UPDATE SET reason = excluded.reason
                    """,
                    [.text(r.id), .integer(now), .text(r.reason)])
            }
        }
    }

    /// Forgets the deferral of `resources` (they ran): a later deferral starts the count anew.
    public func forgetDeferred(_ resources: [String]) throws(StateError) {
        guard !resources.isEmpty else { return }
        try db.transaction { () throws(StateError) in
            for id in resources { try db.query("DELETE FROM deferrals WHERE resource = ?", [.text(id)]) }
        }
    }
}
