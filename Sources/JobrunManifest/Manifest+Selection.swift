extension Manifest {
    /// Every resource the manifests declare, each with every slice: ``resources`` (before
    /// sharding) and those a selection left out.
    public var declaredResources: [Resource] {
        let kept = shard?.declared ?? resources
        guard let selection else { return kept }
        return kept + selection.unselected
    }

    /// The manifest narrowed to the resources `ids` name and, transitively, the resources they
    /// depend on, in the order of ``resources``; the inputs it was read from (``files``,
    /// ``sliceLists``) stay as they are.
    ///
    /// | `ids`                        | result                                         |
    /// |------------------------------|------------------------------------------------|
    /// | empty                        | the manifest unchanged (no selection)          |
    /// | all known (repeats allowed)  | the closure, ``selection`` says what was asked |
    /// | any unknown                  | `.failure`, naming every unknown id            |
    public func selecting(ids: [String]) -> Result<Manifest, ResourceSelection.UnknownIDs> {
        guard !ids.isEmpty else { return .success(self) }
        var seen = Set<String>()
        let requested = ids.filter { seen.insert($0).inserted }
        var indexByID: [String: Int] = [:]
        for (i, r) in resources.enumerated() where indexByID[r.id] == nil { indexByID[r.id] = i }

        var isSelected = [Bool](repeating: false, count: resources.count)
        var pending: [Int] = []
        var unknown: [ResourceSelection.UnknownID] = []
        for id in requested {
            guard let index = indexByID[id] else {
                unknown.append(.init(id: id, suggestion: Suggestions.closest(to: id, in: resources.map(\.id))))
                continue
            }
            pending.append(index)
        }
        guard unknown.isEmpty else { return .failure(.init(ids: unknown)) }
        // Iterative, so a chain of any length is no problem; each resource is visited once.
        while let index = pending.popLast() {
            guard !isSelected[index] else { continue }
            isSelected[index] = true
            for dependency in resources[index].dependsOn {
                if let d = indexByID[dependency.id], !isSelected[d] { pending.append(d) }
            }
        }

        var narrowed = self
        narrowed.resources = []
        var unselected = selection?.unselected ?? []
        for (i, r) in resources.enumerated() {
            if isSelected[i] { narrowed.resources.append(r) } else { unselected.append(r) }
        }
        narrowed.selection = ResourceSelection(requested: requested, unselected: unselected)
        return .success(narrowed)
    }
}
