import JobrunCore
import JobrunSystem

/// The completion hooks' outbox in each root's store. A root without a usable store has none:
/// its hooks still run, but one due when jobrun dies is not run again.
extension MirrorStates {
    /// How long a delivered hook stays in the outbox.
    static let deliveredKept: Int64 = 7 * 86_400_000

    /// Records a due hook in `root`'s store (creating the store if `apply` may).
    /// - Returns: its id, `nil` when the root has no writable store.
    public func addHook(_ entry: HookOutboxEntry, root: String) -> Int64? {
        use(root) { store throws(StateError) -> Int64? in
            store.isReadOnly ? nil : try store.addHook(entry)
        } ?? nil
    }

    public func markHookDelivered(id: Int64, root: String, atMilliseconds delivered: Int64) {
        _ = use(root) { store throws(StateError) in
            if !store.isReadOnly { try store.markHookDelivered(id: id, atMilliseconds: delivered) }
        }
    }

    /// The hooks due in `root`'s store and not delivered, oldest first, once those delivered
    /// more than a week before `now` (ms since the epoch) are forgotten. A root without a store
    /// has none (and gets no store for asking).
    public func undeliveredHooks(root: String, now: Int64) -> [HookOutboxEntry] {
        guard FileStatus.kind(atPath: StateStore.path(forRoot: root)) != nil else { return [] }
        return use(root) { store throws(StateError) -> [HookOutboxEntry] in
            if !store.isReadOnly { try store.forgetDeliveredHooks(before: now - Self.deliveredKept) }
            return try store.undeliveredHooks()
        } ?? []
    }
}
