public import JobrunOutcome

/// What `--metrics-file` says of one run of `apply`, `verify` or `status` (``MetricsReport``):
/// the run, each resource's slices by state, and the origins the run asked.
public struct RunMetrics: Sendable {
    /// The states a resource's slices are counted in, each written (0 when none is in it), so
    /// that a query never meets a missing series.
    public enum SliceState: String, Sendable, CaseIterable {
        /// In place and proven: fetched, resumed, repaired or up to date (`apply`), matching
        /// (`verify`), proven by its record (`status`).
        case proven
        /// No file: not started or cut in flight (`apply`), missing (`verify`, `status`).
        case missing
        /// Failed (`apply`), wrong or unreadable (`verify`), changed or unreadable (`status`).
        case failed
        /// Held back by the network policy (`apply`).
        case deferred
        /// In place with nothing proving it: no record, a record of another file, or stale
        /// (`status`).
        case unproven
    }

    public struct Resource: Sendable {
        public var id: String
        /// Slices by state (``SliceState``).
        public var slices: [SliceState: Int] = [:]
        /// Bytes the run fetched for it (`apply`).
        public var fetchedBytes: Int64?
        /// When it was last wholly proven (ms since the epoch): the run's end when it is now
        /// (`apply`, `verify`), the mirror state's word (`status`); `nil` when unknown.
        public var lastSuccessAtMilliseconds: Int64?
        /// The oldest proof of its slices (ms since the epoch), when every one is proven.
        public var oldestProofAtMilliseconds: Int64?

        public init(id: String) { self.id = id }
    }

    /// `apply`, `verify` or `status`.
    public var command: String
    /// Labels every series has besides `command` (`--metrics-label`): which mirror, say.
    public var labels: [(String, String)] = []
    public var runID: String
    public var exitStatus: Int32 = 0
    /// `signal`, `deadline`, `offline`; `nil` for a run that went to its end.
    public var stopReason: String?
    public var duration: Duration = .zero
    /// When the run ended, ms since the epoch.
    public var endedAtMilliseconds: Int64
    /// The resources the run worked on; empty when it ended before reading its manifests.
    public var resources: [Resource] = []
    /// The resources whose catalogs were refused: none of their slices is counted.
    public var refusedCatalogs: [String] = []
    /// What each origin carried (`apply`).
    public var origins: [OriginUsageReport] = []

    public init(command: String, runID: String, endedAtMilliseconds: Int64) {
        self.command = command
        self.runID = runID
        self.endedAtMilliseconds = endedAtMilliseconds
    }
}
