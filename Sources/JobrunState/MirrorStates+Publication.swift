public import JobrunSystem

extension MirrorStates {
    /// The stages `root`'s store remembers, by resource; `nil` when the root has no store in use.
    public func stages(root: String) -> [String: StateStore.Stage]? {
        use(root) { store throws(StateError) in try store.stages() }
    }

    /// ``StateStore/remember(_:)`` in `root`'s store; whether it was written.
    public func remember(_ stage: StateStore.Stage, root: String) -> Bool {
        use(root) { store throws(StateError) in try store.remember(stage) } != nil
    }

    /// ``StateStore/adoptLinks(_:of:dest:stage:)`` in `root`'s store; whether it was written.
    public func adoptLinks(_ links: [StateStore.StageLink], of resource: String, dest: String, stage: String, root: String) -> Bool {
        use(root) { store throws(StateError) in try store.adoptLinks(links, of: resource, dest: dest, stage: stage) } != nil
    }

    /// ``StateStore/retime(_:dest:)`` in `root`'s store; whether it was written.
    @discardableResult
    public func retime(_ links: [StateStore.StageLink], dest: String, root: String) -> Bool {
        use(root) { store throws(StateError) in try store.retime(links, dest: dest) } != nil
    }

    /// ``StateStore/identities(under:)`` in `root`'s store (none without one).
    public func identities(under dest: String, root: String) -> [String: FileIdentity] {
        use(root) { store throws(StateError) in try store.identities(under: dest) } ?? [:]
    }

    /// ``StateStore/finishPublication(of:dest:stage:)`` in `root`'s store; whether it was written.
    public func finishPublication(of resource: String, dest: String, stage: String, root: String) -> Bool {
        use(root) { store throws(StateError) in try store.finishPublication(of: resource, dest: dest, stage: stage) } != nil
    }

    /// ``StateStore/forgetStage(of:stage:)`` in `root`'s store; whether it was written.
    public func forgetStage(of resource: String, stage: String, root: String) -> Bool {
        use(root) { store throws(StateError) in try store.forgetStage(of: resource, stage: stage) } != nil
    }
}
