/// What a run did with a resource published atomically (`publish: atomic`): switched its
/// stage in, found it unchanged, left it for the next run, or failed to switch it.
public struct PublishReport: Sendable, Hashable {
    public enum State: Sendable, Hashable {
        /// The stage is the published folder now.
        case published
        /// The run changed nothing of the published version: its stage was removed, nothing switched.
        case unchanged
        /// The resource is not complete (a failure, a deferral, a stop): the published version
        /// stays, and the next run continues the stage.
        case notPublished(reason: String)
        /// The switch itself failed: the published version stays as it was.
        case failed(error: String)

        /// `published`, `unchanged`, `not_published` or `failed`, as reports name it.
        public var code: String {
            switch self {
            case .published: "published"
            case .unchanged: "unchanged"
            case .notPublished: "not_published"
            case .failed: "failed"
            }
        }

        public var reason: String? {
            switch self {
            case .published, .unchanged: nil
            case .notPublished(let reason): reason
            case .failed(let error): error
            }
        }
    }

    public var resource: String
    /// The published folder as the user would type it (`mirror/debian`).
    public var folder: String
    /// The stage's folder as the user would type it.
    public var stage: String
    public var state: State
    /// Where the replaced version is kept, as the user would type it, while its grace lasts (none
    /// at a first publication).
    public var retired: String?
    /// Until when the replaced version is kept at least, in ms since the epoch.
    public var keptUntilMilliseconds: Int64?
    /// What went wrong after a switch that happened (the replaced version not moved aside, the
    /// switch not recorded): the next run finishes it.
    public var warning: String?

    public init(resource: String, folder: String, stage: String, state: State, retired: String? = nil, keptUntilMilliseconds: Int64? = nil) {
        self.resource = resource
        self.folder = folder
        self.stage = stage
        self.state = state
        self.retired = retired
        self.keptUntilMilliseconds = keptUntilMilliseconds
    }

    public var isFailure: Bool { if case .failed = state { true } else { false } }
}
