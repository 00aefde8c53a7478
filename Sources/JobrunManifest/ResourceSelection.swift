/// What `--resource` kept of the manifests: the resources asked for and every resource they
/// depend on, directly or not (terraform's `-target`).
public struct ResourceSelection: Sendable {
    /// The ids asked for, in the order given, each once.
    public var requested: [String]
    /// The resources left out, in load order. They are still declared: a file one of them names
    /// is no stranger in an output root it shares with a selected resource (`verify --extra`).
    public var unselected: [Resource]

    /// An id that no resource has, with the closest one when it looks like a typo.
    public struct UnknownID: Error, Hashable, Sendable, CustomStringConvertible {
        public var id: String
        public var suggestion: String?

        public var description: String {
            "no resource '\(id)' in the manifests" + (suggestion.map { " (did you mean '\($0)'?)" } ?? "")
        }
    }

    /// Every id asked for that no resource has, in the order given.
    public struct UnknownIDs: Error, Hashable, Sendable {
        public var ids: [UnknownID]
    }
}

extension Manifest {
    /// Every resource the manifests declare: ``resources`` and those a selection left out.
    public var declaredResources: [Resource] {
        guard let selection else { return resources }
        return resources + selection.unselected
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
