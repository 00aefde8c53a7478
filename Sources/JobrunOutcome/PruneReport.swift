public import JobrunPlan

/// What a run's prune did (`apply --prune`, a resource's `prune: true`): the files it removed to
/// the trash, or why it removed none.
public struct PruneReport: Sendable {
    public enum State: Sendable, Hashable {
        /// Done: every file listed was moved to the trash, or failed on its own (``File/error``).
        case pruned
        /// More files than `--max-delete` allows: none was touched.
        case refused(reason: String)
        /// The run did not complete every selected resource (a failure, a deferral, a stop): none
        /// was touched.
        case notRun(reason: String)

        /// `pruned`, `refused` or `not_run`, as reports name it.
        public var code: String {
            switch self {
            case .pruned: "pruned"
            case .refused: "refused"
            case .notRun: "not_run"
            }
        }

        public var reason: String? {
            switch self {
            case .pruned: nil
            case .refused(let reason), .notRun(let reason): reason
            }
        }
    }

    /// One file to prune and what became of it.
    public struct File: Sendable, Hashable {
        public var planned: PruneFile
        /// Where it is now, below its root, once moved.
        public var trashPath: String?
        /// Why it could not be moved (it stays where it was).
        public var error: String?

        public init(planned: PruneFile, trashPath: String? = nil, error: String? = nil) {
            self.planned = planned
            self.trashPath = trashPath
            self.error = error
        }
    }

    public var state: State
    /// Every file the prune would remove, foreign ones first.
    public var files: [File]
    /// The resources it prunes, by id.
    public var resources: [String]
    public var limit: DeleteLimit
    /// The trash folder's name below each root's `.jobrun/trash`, once files went there.
    public var trashFolder: String?

    public init(state: State, files: [File], resources: [String], limit: DeleteLimit, trashFolder: String? = nil) {
        self.state = state
        self.files = files
        self.resources = resources
        self.limit = limit
        self.trashFolder = trashFolder
    }

    /// Files moved to the trash.
    public var prunedCount: Int { files.count { $0.trashPath != nil } }
    /// Files that could not be moved.
    public var failedCount: Int { files.count { $0.error != nil } }
    /// The prune was wanted and did not happen, or left files it should have moved: the run's
    /// exit status says so.
    public var isFailure: Bool {
        switch state {
        case .pruned: failedCount > 0
        case .refused: true
        case .notRun: false
        }
    }
}
