extension MirrorStates {
    /// Records in `root`'s store that origins vouched for files in place (``StateStore/confirm(_:)``).
    public func confirm(_ confirmations: [StateStore.Confirmation], root: String) {
        guard !confirmations.isEmpty, mayRecord(root: root) else { return }
        _ = use(root) { store throws(StateError) in if !store.isReadOnly { try store.confirm(confirmations) } }
    }
}
