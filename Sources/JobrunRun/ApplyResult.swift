public import JobrunCore
public import JobrunManifest

/// What happened to one slice during `apply`.
public struct SliceOutcome: Sendable {
    public enum Status: String, Sendable, Hashable {
        /// Downloaded from zero and verified.
        case fetched
        /// Continued from a partial file and verified.
        case resumed
        /// Already correct on disk; nothing sent.
        case upToDate = "up-to-date"
        /// Every attempt failed, or a permanent error.
        case failed
        /// Not attempted: a resource it depends on failed, or the run was interrupted.
        case skipped
        /// Held back by the network policy.
        case deferred
    }

    public var status: Status
    /// Bytes received in this run.
    public var bytesTransferred: Int64
    /// Size of the file now on disk (for fetched, resumed and up-to-date slices).
    public var size: Int64?
    public var attempts: Int
    /// Digests verified (those the manifest declares).
    public var digests: [Digest]
    /// The last attempt's failure, for failed slices.
    public var failure: AttemptFailure?
    /// Why a slice was skipped.
    public var skipReason: String?
    /// From the first attempt to the verified commit.
    public var duration: Duration
    /// The URL last used, without its query (safe to print).
    public var displayURL: String
    /// The HTTP version of the last response (`1.1`, `2`), when there was one.
    public var httpVersion: String?

    public init(status: Status, bytesTransferred: Int64 = 0, size: Int64? = nil, attempts: Int = 0, digests: [Digest] = [],
                failure: AttemptFailure? = nil, skipReason: String? = nil, duration: Duration = .zero, displayURL: String,
                httpVersion: String? = nil) {
        self.status = status
        self.bytesTransferred = bytesTransferred
        self.size = size
        self.attempts = attempts
        self.digests = digests
        self.failure = failure
        self.skipReason = skipReason
        self.duration = duration
        self.displayURL = displayURL
        self.httpVersion = httpVersion
    }
}

/// The result of `apply`.
public struct ApplyResult: Sendable {
    public struct Entry: Sendable {
        public var resource: Resource
        /// One outcome per slice, in the resource's slice order.
        public var outcomes: [SliceOutcome]
        /// Every slice verified and committed durably.
        public var isComplete: Bool { outcomes.allSatisfy { [.fetched, .resumed, .upToDate].contains($0.status) } }
    }

    public struct Counts: Sendable, Hashable {
        public var fetched = 0
        public var fetchedBytes: Int64 = 0
        public var resumed = 0
        public var upToDate = 0
        public var failed = 0
        public var skipped = 0
        public var deferred = 0
        public init() {}
    }

    /// Resources in plan order.
    public var entries: [Entry]
    /// Set when a signal stopped the run (SIGINT or SIGTERM).
    public var interruptedBy: Int32?
    public var elapsed: Duration

    public var counts: Counts {
        var c = Counts()
        for e in entries {
            for o in e.outcomes {
                switch o.status {
                case .fetched:
                    c.fetched += 1
                    c.fetchedBytes += o.bytesTransferred
                case .resumed:
                    c.resumed += 1
                    c.fetchedBytes += o.bytesTransferred
                case .upToDate: c.upToDate += 1
                case .failed: c.failed += 1
                case .skipped: c.skipped += 1
                case .deferred: c.deferred += 1
                }
            }
        }
        return c
    }

    /// The stable last line:
    /// `Apply complete! Slices: 412 fetched (26.3 MiB), 3 resumed, 188 up to date, 1 failed, 0 deferred.`
    public var summaryLine: String {
        let c = counts
        return "Apply complete! Slices: \(c.fetched) fetched (\(ByteCount(c.fetchedBytes))), \(c.resumed) resumed, \(c.upToDate) up to date, \(c.failed) failed, \(c.deferred) deferred."
    }

    public var isSuccess: Bool { interruptedBy == nil && entries.allSatisfy { e in e.outcomes.allSatisfy { $0.status != .failed && $0.status != .skipped } } }
}
