/// What became of one resource's catalog (`slices_from: {url: …}`) before planning.
public struct CatalogReport: Sendable, Hashable {
    public enum State: String, Sendable, Hashable {
        /// Fetched whole: new, or changed since the copy kept from the last run.
        case fetched
        /// The origin answered 304: the copy kept from the last run is current.
        case notModified = "not_modified"
        /// Read from the copy kept from the last run, without asking the origin (`verify`, `status`).
        case cached
        /// Not trusted or not readable: nothing of the resource is planned or fetched.
        case refused
    }

    /// Slices that differ from those the copy kept from the last run yields.
    public struct Changes: Sendable, Hashable {
        public var added = 0
        public var removed = 0
        /// Same path, another size or digest.
        public var changed = 0

        public init(added: Int = 0, removed: Int = 0, changed: Int = 0) {
            self.added = added
            self.removed = removed
            self.changed = changed
        }

        public var isEmpty: Bool { added == 0 && removed == 0 && changed == 0 }
    }

    public var resource: String
    public var url: String
    public var state: State
    /// Slices the resource takes from it (after `include`/`exclude`); 0 when refused.
    public var slices = 0
    /// Against the copy kept from the last run; `nil` when there was none or nothing was compared.
    public var changes: Changes?
    /// Why it was refused: the first problem, as a sentence.
    public var error: String?

    public init(resource: String, url: String, state: State, slices: Int = 0, changes: Changes? = nil, error: String? = nil) {
        self.resource = resource
        self.url = url
        self.state = state
        self.slices = slices
        self.changes = changes
        self.error = error
    }

    /// `3 new, 1 removed, 2 changed`, `unchanged`, or `first fetch`.
    public var changesText: String {
        guard let changes else { return state == .fetched ? "first fetch" : "unchanged" }
        if changes.isEmpty { return "unchanged" }
        return "\(changes.added) new, \(changes.removed) removed, \(changes.changed) changed"
    }

    /// `catalog https://…/SHA256SUMS: fetched, 3 new, 1 removed, 2 changed (412 slices)`: as
    /// the plan and the log name it.
    public var line: String {
        switch state {
        case .refused: "catalog \(url): refused: \(error ?? "")"
        case .fetched: "catalog \(url): fetched, \(changesText) (\(slices) slice\(slices == 1 ? "" : "s"))"
        case .notModified: "catalog \(url): not modified (\(slices) slice\(slices == 1 ? "" : "s"))"
        case .cached: "catalog \(url): as kept (\(slices) slice\(slices == 1 ? "" : "s"))"
        }
    }
}
