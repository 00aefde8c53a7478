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
