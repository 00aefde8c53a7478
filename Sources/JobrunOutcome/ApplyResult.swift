public import JobrunPlan
public import JobrunCore
public import JobrunManifest

/// What happened to one slice during `apply`.
public struct SliceOutcome: Sendable {
    public enum Status: String, Sendable, Hashable {
        /// Downloaded from zero and verified.
        case fetched
        /// Continued from a partial file and verified.
        case resumed
        /// The file on disk was wrong (another size or digest, or something else in its place):
        /// fetched again and verified; ``SliceOutcome/repairReason`` says what differed.
        case repaired
        /// Already correct on disk; nothing sent.
        case upToDate = "up_to_date"
        /// Every attempt failed, or a permanent error.
        case failed
        /// Not started (a resource it depends on failed, or the run stopped first), or cut in
        /// flight by a stop.
        case skipped
        /// Held back by the network policy.
        case deferred

        /// The final file is in place: fetched, resumed or up to date.
        public var hasPassed: Bool {
            switch self {
            case .fetched, .resumed, .repaired, .upToDate: true
            case .failed, .skipped, .deferred: false
            }
        }

        /// Adds one slice of this status (and, when fetched or resumed, its `bytes`) to `counts`.
        public func count(into counts: inout ApplyResult.Counts, bytes: Int64) {
            switch self {
            case .fetched:
                counts.fetched += 1
                counts.fetchedBytes += bytes
            case .resumed:
                counts.resumed += 1
                counts.fetchedBytes += bytes
            case .repaired:
                counts.repaired += 1
                counts.fetchedBytes += bytes
            case .upToDate: counts.upToDate += 1
            case .failed: counts.failed += 1
            case .skipped: counts.skipped += 1
            case .deferred: counts.deferred += 1
            }
        }
    }

    public var status: Status
    /// The body's end was marked only by the connection closing (no Content-Length, no
    /// chunked coding): a connection cut short would have looked the same.
    public var hadUndeclaredLength = false
    /// What became of the slice's partial file: kept for the next run to resume (cut in
    /// flight), or removed and why; `nil` when it had none or none was cut.
    public var partial: PartialFate?
    /// Cut in flight, its partial file is kept for the next run to resume.
    public var keptPartial: Bool { partial == .kept }
    /// Why a partial file of the slice was removed in this run, when one was.
    public var discardedPartial: PartialFate.Reason? {
        if case .discarded(let reason) = partial { return reason }
        return nil
    }
    /// ``httpVersion``'s code in the low four bits, ``revalidation``'s (its index in
    /// `RevalidationResult.allCases` plus one; 0 for none) in the high four: one byte for both.
    private var codes: UInt8 = 0
    private var attemptCount: Int32
    /// Bytes received in this run.
    public var bytesTransferred: Int64
    /// `-1` for none: an optional would take another eight bytes, and a run keeps one outcome
    /// per slice.
    private var sizeOrNone: Int64
    /// Digests verified (those the manifest declares).
    public var digests: [Digest]
    /// Digests of the final file that the manifest does not declare: the SHA-256 of what was
    /// fetched for a slice that declares no digest (computed as it was written), and with
    /// `--record-sums` the SHA-256 of every other final file that declares none.
    public var computedDigests: [Digest]
    /// Boxed: few slices fail or are redirected, and the failure is the largest field.
    private var rare: Rare?
    /// Why a slice was skipped.
    public var skipReason: String?
    private var nanoseconds: Int64

    private final class Rare: Sendable {
        let failure: AttemptFailure?
        let displayURL: String?
        let repairReason: String?
        let failedAt: [OriginFailure]
        init?(failure: AttemptFailure?, displayURL: String?, repairReason: String?, failedAt: [OriginFailure]) {
            guard failure != nil || displayURL != nil || repairReason != nil || !failedAt.isEmpty else { return nil }
            self.failure = failure
            self.displayURL = displayURL
            self.repairReason = repairReason
            self.failedAt = failedAt
        }
    }

    /// Size of the file now on disk (for fetched, resumed and up-to-date slices).
    public var size: Int64? {
        get { sizeOrNone < 0 ? nil : sizeOrNone }
        set { sizeOrNone = newValue ?? -1 }
    }

    public var attempts: Int {
        get { Int(attemptCount) }
        set { attemptCount = Int32(clamping: newValue) }
    }

    /// The last attempt's failure, for failed slices.
    public var failure: AttemptFailure? {
        get { rare?.failure }
        set { rare = Rare(failure: newValue, displayURL: displayURL, repairReason: repairReason, failedAt: failedAt) }
    }

    /// The URL last used, without its query (safe to print), when it is not the slice's first
    /// own (a redirect's target, another origin); `nil` for the slice's first URL
    /// (``ApplyResult/Entry/displayURL(at:)``).
    public var displayURL: String? {
        get { rare?.displayURL }
        set { rare = Rare(failure: failure, displayURL: newValue, repairReason: repairReason, failedAt: failedAt) }
    }

    /// For a repaired slice, what was wrong with the file on disk (`size is 3 bytes, expected 4`).
    public var repairReason: String? {
        get { rare?.repairReason }
        set { rare = Rare(failure: failure, displayURL: displayURL, repairReason: newValue, failedAt: failedAt) }
    }

    /// For a slice with several URLs, its failed attempts, in order: which URL, and why (the
    /// last one is ``failure`` when the slice failed).
    public var failedAt: [OriginFailure] {
        get { rare?.failedAt ?? [] }
        set { rare = Rare(failure: failure, displayURL: displayURL, repairReason: repairReason, failedAt: newValue) }
    }

    /// From the first attempt until the slice was verified (or failed); the batched commit that
    /// follows is not its own time.
    public var duration: Duration {
        get { .nanoseconds(nanoseconds) }
        set { nanoseconds = newValue.wholeNanoseconds }
    }

    /// The HTTP version of the last response (`1.0`, `1.1`, `2`, `3`), when there was one.
    public var httpVersion: String? {
        get { Self.httpVersions[Int(codes & 0x0F)] }
        set { codes = (codes & 0xF0) | UInt8(Self.httpVersions.firstIndex(of: newValue) ?? 0) }
    }

    /// For a slice whose file was in place and asked of its origin again (`refresh:`), what that
    /// came to; `nil` for any other.
    public var revalidation: RevalidationResult? {
        get {
            let code = Int(codes >> 4)
            return code == 0 ? nil : RevalidationResult.allCases[code - 1]
        }
        set {
            let code = newValue.flatMap { v in RevalidationResult.allCases.firstIndex(of: v).map { UInt8($0 + 1) } } ?? 0
            codes = (codes & 0x0F) | (code << 4)
        }
    }

    /// The versions libcurl reports, by code; `nil` (code 0) for none.
    private static let httpVersions: [String?] = [nil, "1.0", "1.1", "2", "3"]

    /// The final file is in place: fetched, resumed or up to date.
    public var hasPassed: Bool { status.hasPassed }

    /// The SHA-256 of the final file, declared (and verified) or computed, when known.
    public var sha256: Digest? {
        digests.first { $0.algorithm == .sha256 } ?? computedDigests.first { $0.algorithm == .sha256 }
    }

    public init(
        status: Status, bytesTransferred: Int64 = 0, size: Int64? = nil, attempts: Int = 0, digests: [Digest] = [],
        computedDigests: [Digest] = [], failure: AttemptFailure? = nil, skipReason: String? = nil,
        duration: Duration = .zero, displayURL: String? = nil, httpVersion: String? = nil
    ) {
        self.status = status
        self.bytesTransferred = bytesTransferred
        self.sizeOrNone = size ?? -1
        self.attemptCount = Int32(clamping: attempts)
        self.digests = digests
        self.computedDigests = computedDigests
        self.rare = Rare(failure: failure, displayURL: displayURL, repairReason: nil, failedAt: [])
        self.skipReason = skipReason
        self.nanoseconds = duration.wholeNanoseconds
        self.httpVersion = httpVersion
    }
}

/// The result of `apply`.
public struct ApplyResult: Sendable {
    public struct Entry: Sendable {
        public var resource: Resource
        /// One outcome per slice, in the resource's slice order.
        public var outcomes: [SliceOutcome]
        /// Why the network policy held the resource's work back, when it did.
        public var deferral: Deferral?

        public init(resource: Resource, outcomes: [SliceOutcome], deferral: Deferral? = nil) {
            self.resource = resource
            self.outcomes = outcomes
            self.deferral = deferral
        }

        /// The URL slice `i` was last fetched from, as shown: the redirect's target its outcome
        /// names, or the slice's own identity.
        public func displayURL(at i: Int) -> String {
            outcomes[i].displayURL ?? resource.identity(of: resource.slices[i])
        }

        /// Every slice verified and committed durably.
        public var isComplete: Bool {
            // By index, here and below: iterating the outcomes would copy each one.
            for i in outcomes.indices {
                switch outcomes[i].status {
                case .fetched, .resumed, .repaired, .upToDate: continue
                case .failed, .skipped, .deferred: return false
                }
            }
            return true
        }
    }

    public struct Counts: Sendable, Hashable {
        public var fetched = 0
        public var fetchedBytes: Int64 = 0
        public var resumed = 0
        /// Fetched again because the file on disk was wrong (not in `fetched`).
        public var repaired = 0
        public var upToDate = 0
        public var failed = 0
        public var skipped = 0
        public var deferred = 0
        /// Slices whose file was in place and asked of its origin again (`refresh:`): those
        /// kept (a 304, or the same bytes; in `upToDate`) and those replaced (in `fetched`).
        public var unchanged = 0
        public var replaced = 0
        /// Files the run's prune moved to the trash (the run's counts only).
        public var pruned = 0
        /// Fetched, resumed and up-to-date slices that declare no digest.
        public var withoutDigests = IntegrityCounts()
        public init() {}

        public var revalidated: Int { unchanged + replaced }

        /// `; 12 revalidated (10 unchanged, 2 replaced)`, or nothing when none was.
        public var revalidatedClause: String {
            revalidated == 0 ? "" : "; \(revalidated) revalidated (\(unchanged) unchanged, \(replaced) replaced)"
        }

        /// `, 2 repaired` after the fetched slices and their bytes (which count the repairs'), or
        /// nothing when no file was repaired.
        public var repairedClause: String { repaired == 0 ? "" : ", \(repaired) repaired" }

        /// Adds one slice: its status (and, fetched or resumed, its `bytes`), and, when its file is
        /// in place, its `integrity`. Takes the fields, not the outcome: counting must not copy
        /// thousands of outcomes.
        public mutating func add(_ status: SliceOutcome.Status, bytes: Int64, integrity: SliceIntegrity, revalidation: RevalidationResult? = nil) {
            status.count(into: &self, bytes: bytes)
            if status.hasPassed { withoutDigests.add(integrity) }
            switch revalidation {
            case .notModified?, .sameBytes?: unchanged += 1
            case .replaced?: replaced += 1
            case nil: break
            }
        }

        /// The counts named as in the JSON summary (`fetched`, `bytes_transferred`, …), in its order.
        public var named: [(name: String, value: Int64)] {
            [
                ("fetched", Int64(fetched)), ("resumed", Int64(resumed)), ("repaired", Int64(repaired)), ("bytes_transferred", fetchedBytes),
                ("up_to_date", Int64(upToDate)), ("failed", Int64(failed)), ("skipped", Int64(skipped)),
                ("deferred", Int64(deferred)), ("size_only", Int64(withoutDigests.sizeOnly)),
                ("unverified", Int64(withoutDigests.unverified)), ("revalidated", Int64(revalidated)), ("unchanged", Int64(unchanged)),
                ("replaced", Int64(replaced)), ("pruned", Int64(pruned)),
            ]
        }
    }

    /// Resources in plan order.
    public var entries: [Entry]
    /// Set when the run stopped before its end (a signal, the deadline).
    public var stopReason: StopReason?
    public var elapsed: Duration
    /// How the hooks of this run's resources ended (redeliveries and the run's end are not
    /// part of it), in the order they ended.
    public var hooks: [HookEnd] = []
    /// How long the run was offline (every origin with work unreachable), all periods together.
    public var offline: Duration = .zero
    /// What each origin the run sent requests to carried, by origin.
    public var origins: [OriginUsageReport] = []
    /// What the run's prune did, when one was asked for.
    public var prune: PruneReport?
    /// What became of each staged resource (`publish: atomic`), in the manifest's order.
    public var publications: [PublishReport] = []
    /// What became of each resource's catalog before planning, in the manifest's order.
    public var catalogs: [CatalogReport] = []

    public init(entries: [Entry], stopReason: StopReason?, elapsed: Duration) {
        self.entries = entries
        self.stopReason = stopReason
        self.elapsed = elapsed
    }

    public var counts: Counts {
        var c = Counts()
        for e in entries.indices {
            for i in entries[e].outcomes.indices {
                c.add(
                    entries[e].outcomes[i].status, bytes: entries[e].outcomes[i].bytesTransferred, integrity: entries[e].resource.slices[i].integrity,
                    revalidation: entries[e].outcomes[i].revalidation)
            }
        }
        c.pruned = prune?.prunedCount ?? 0
        return c
    }

    /// How a run ended, the first word of its last line.
    public enum Ending: Sendable, Hashable {
        /// Every slice verified and committed, or up to date (deferred ones held back by policy):
        /// exit status 0.
        case complete
        /// The run went through and some slice failed (its dependents are skipped): exit status 1.
        case failed
        /// The run stopped before its end: a signal (SIGINT or SIGTERM, exit status 130 or 143),
        /// the deadline or the network staying offline (exit status 75).
        case stopped(StopReason)
    }

    public var ending: Ending {
        if let stopReason { return .stopped(stopReason) }
        return isSuccess ? .complete : .failed
    }

    /// The exit status: 0 complete, 1 when a slice failed or was skipped or a hook failed the run
    /// (`on_hook_failure: fail`), else the stop reason's
    /// (a signal's 130 or 143 even then; the deadline's or the offline stop's 75 only without failures).
    public var exitStatus: ExitStatus {
        if case .signal = stopReason, let stopReason { return stopReason.exitStatus }
        // One pass over the outcomes: the failed and skipped counts say what `isSuccess` would.
        let c = counts
        if c.failed > 0 || failedHookCount > 0 || prune?.isFailure == true || publications.contains(where: \.isFailure) || refusedCatalogs > 0 {
            return .failure
        }
        if let stopReason { return stopReason.exitStatus }
        return c.skipped == 0 ? .ok : .failure
    }

    public var isSuccess: Bool {
        guard stopReason == nil, failedHookCount == 0, prune?.isFailure != true, !publications.contains(where: \.isFailure), refusedCatalogs == 0 else {
            return false
        }
        for e in entries.indices {
            for i in entries[e].outcomes.indices {
                let status = entries[e].outcomes[i].status
                if status == .failed || status == .skipped { return false }
            }
        }
        return true
    }
}
