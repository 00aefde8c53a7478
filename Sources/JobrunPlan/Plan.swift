import JobrunCore
public import JobrunManifest
public import JobrunFiles

/// What a plan would do with one slice.
public enum SliceAction: String, Sendable, Hashable, CaseIterable, Codable {
    /// The file is missing.
    case fetch
    /// A partial download exists and can be continued (defined by the fetch engine).
    case resume
    /// The file is present but its size or a digest differs, or something else is in its place.
    case refetch
    /// Size matches and every digest was verified.
    case upToDate = "up_to_date"
    /// In place, without a digest, and due to be asked of its origin again (`refresh:`): a
    /// conditional GET when its validators are known, a whole one otherwise.
    case revalidate
    /// Held back by the network policy.
    case deferred
}

/// A slice's action and, for refetches, why.
public struct SliceDecision: Sendable, Hashable {
    public var action: SliceAction
    public var reason: String?
    /// For `resume`: the bytes the partial file already holds (the transfer fetches the rest).
    public var resumeOffset: Int64 = 0

    public init(action: SliceAction, reason: String? = nil, resumeOffset: Int64 = 0) {
        self.action = action
        self.reason = reason
        self.resumeOffset = resumeOffset
    }
}

/// Counts of a plan or of one resource.
public struct PlanCounts: Sendable, Hashable {
    public var fetch = 0
    public var resume = 0
    public var refetch = 0
    public var upToDate = 0
    public var revalidate = 0
    public var deferred = 0
    /// Bytes to transfer: declared sizes of slices to fetch or refetch, remaining bytes of resumes.
    public var bytesToTransfer: Int64 = 0
    /// Slices to transfer whose size the manifest does not declare (not in ``bytesToTransfer``).
    public var unsizedToTransfer = 0
    /// Slices, whatever their action, that declare no digest.
    public var integrity = IntegrityCounts()

    public init() {}

    public var slices: Int { fetch + resume + refetch + upToDate + revalidate + deferred }
    /// True when applying would send any request.
    public var hasChanges: Bool { fetch + resume + refetch + revalidate > 0 }

    mutating func add(_ action: SliceAction, bytes: Int64?) {
        switch action {
        case .fetch: fetch += 1
        case .resume: resume += 1
        case .refetch: refetch += 1
        case .upToDate: upToDate += 1
        case .revalidate: revalidate += 1
        case .deferred: deferred += 1
        }
        if action == .fetch || action == .refetch || action == .resume {
            if let bytes { bytesToTransfer = Self.saturatingSum(bytesToTransfer, bytes) } else { unsizedToTransfer += 1 }
        }
    }

    /// `a + b`, or `Int64.max` past it: declared sizes go up to 1 PiB each, so a manifest can
    /// declare more bytes than an `Int64` holds, and a plan must say "too much", not trap.
    static func saturatingSum(_ a: Int64, _ b: Int64) -> Int64 {
        a.saturatingAdding(b)
    }

    static func += (lhs: inout PlanCounts, rhs: PlanCounts) {
        lhs.fetch += rhs.fetch
        lhs.resume += rhs.resume
        lhs.refetch += rhs.refetch
        lhs.upToDate += rhs.upToDate
        lhs.revalidate += rhs.revalidate
        lhs.deferred += rhs.deferred
        lhs.bytesToTransfer = saturatingSum(lhs.bytesToTransfer, rhs.bytesToTransfer)
        lhs.unsizedToTransfer += rhs.unsizedToTransfer
        lhs.integrity += rhs.integrity
    }
}

/// The DAG of resources in dependency order, each slice classified against the mirror on disk.
public struct Plan: Sendable {
    public struct Entry: Sendable {
        public var resource: Resource
        /// One decision per slice, in the resource's slice order.
        public var decisions: [SliceDecision]
        public var counts: PlanCounts
        /// Why the network policy holds this resource's work back (only a resource with work to
        /// do is deferred; its slices to transfer are then `deferred`).
        public var deferral: Deferral?
        /// Conditions that would defer it, overridden because it was deferred for `max_deferral`.
        public var overridden: [Deferral.Cause] = []
        /// What each slice to revalidate is asked with, by slice index (only those slices).
        public var revalidations: [Int: Revalidation] = [:]

        public init(resource: Resource, decisions: [SliceDecision], counts: PlanCounts, deferral: Deferral? = nil) {
            self.resource = resource
            self.decisions = decisions
            self.counts = counts
            self.deferral = deferral
        }
    }

    public var manifest: Manifest
    /// Resources in dependency order (ties broken by id).
    public var entries: [Entry]
    public var counts: PlanCounts
    /// Problems met on disk that did not stop the plan (a symlink in a file's place, say).
    public var warnings: [String]
    /// The bytes to fetch per file system of the output roots, next to its free space; empty when
    /// there is nothing to fetch.
    public var space: [SpaceNeed]
    /// How present files were proven, and what to record of it (planned with a ``MirrorMemory``).
    public var proofs = CheckProofs()
    /// What `apply` would prune after a complete run, when a prune is asked for (`--prune`, `prune: true`).
    public var prune: PrunePlan?
    /// What each resource's catalog holds now against the copy the last run kept, in the
    /// manifest's order.
    public var catalogs: [CatalogReport] = []
}
