import JobrunCore
public import JobrunManifest
public import JobrunFiles
import JobrunState
public import JobrunSystem

/// Builds a ``Plan``: orders resources, then classifies every slice against the files on disk.
public enum Planner {
    /// Plans `manifest` against the mirror on disk, without any network.
    /// - Parameters:
    ///   - parallelism: threads used to hash present files (default: every core).
    ///   - measure: the room on an output root's file system (tests pass fixed figures).
    ///   - memory: what the output roots' mirror states recorded (``MirrorMemory``): files
    ///     unchanged since their last proof are not read, and what this plan proves is
    ///     collected in ``Plan/proofs`` to be recorded.
    ///   - policy: the conditions and time the network policies are judged by; without it no
    ///     resource is deferred.
    ///   - batchSize: slices checked at once (tests make it small).
    ///   - now: the wall clock's time (ms since the epoch) a `refresh:` `max_age` is judged at.
    public static func plan(
        for manifest: Manifest, parallelism: Int? = nil,
        measure: (String) -> Result<FileSystemUsage, FileSystemUsage.Failure> = FileSystemUsage.measure(nearest:),
        memory: MirrorMemory? = nil, policy: PolicyContext? = nil, batchSize: Int = Planner.batchSize,
        now: Int64 = FileIdentity.now() / 1_000_000
    ) -> Plan {
        var builder = Builder(
            manifest: manifest, memory: memory, policy: policy, parallelism: parallelism ?? FileChecker.defaultParallelism, now: now)
        manifest.forEachCheckBatch(in: manifest.dependencyOrder, size: batchSize) { builder.check($0) }
        return builder.finish(space: measure)
    }

    /// Slices checked at once (``Manifest/checkBatchSize``).
    public static let batchSize = Manifest.checkBatchSize

    /// A plan made batch by batch: each resource's decisions and counts as its slices are
    /// checked; its entry when its last slice is.
    struct Builder {
        let manifest: Manifest
        let memory: MirrorMemory?
        let policy: PolicyContext?
        let parallelism: Int
        let now: Int64
        var entries: [Plan.Entry] = []
        var total = PlanCounts()
        var warnings: [String] = []
        var deferredIDs = Set<String>()
        var decisions: [SliceDecision] = []
        var revalidations: [Int: Revalidation] = [:]
        var counts = PlanCounts()
        var proofs: MirrorMemory.ProofCollector
        var partialListings = PartialScan.Listings()

        init(manifest: Manifest, memory: MirrorMemory?, policy: PolicyContext?, parallelism: Int, now: Int64) {
            self.manifest = manifest
            self.memory = memory
            self.policy = policy
            self.parallelism = parallelism
            self.now = now
            proofs = MirrorMemory.ProofCollector(memory: memory)
            entries.reserveCapacity(manifest.resources.count)
        }

        mutating func check(_ segments: [(resource: Int, slices: Range<Int>)]) {
            var expectations = manifest.fileExpectations(of: segments)
            if let memory { memory.recall(into: &expectations) }
            let results = FileChecker().check(expectations, parallelism: parallelism, observed: memory != nil)
            let checks = results.checks
            // Slices to transfer that have a partial download with matching metadata are resumed.
            let resources = manifest.resources
            let partials = PartialScan.find(
                for: segments.lazy.map { (resources[$0.resource], $0.slices.count) }, checks: checks, expectations: expectations,
                listings: &partialListings
            ) { check in
                switch check {
                case .missing, .sizeMismatch, .digestMismatch: true
                default: false
                }
            }
            var k = 0
            for segment in segments {
                let r = manifest.resources[segment.resource]
                if segment.slices.lowerBound == 0 {
                    decisions = []
                    decisions.reserveCapacity(r.slices.count)
                    revalidations = [:]
                    counts = PlanCounts()
                }
                for index in segment.slices {
                    let s = r.slices[index]
                    var decision = decide(checks[k], for: s)
                    if decision.action == .refetch,
                        k < results.observations.count,
                        let newer = newVersion(checks[k], observed: results.observations[k], record: memory?.known[r.outputRoot]?[r.relativePath(of: s)])
                    {
                        decision = newer
                    }
                    if decision.action == .upToDate, r.settings.refresh.mode != .never || s.refresh != nil,
                        let due = Revalidation.due(
                            r.refresh(of: s), identity: k < results.observations.count ? results.observations[k].identity : nil,
                            record: memory?.known[r.outputRoot]?[r.relativePath(of: s)], now: now)
                    {
                        decision = SliceDecision(action: .revalidate, reason: due.reason(now: now))
                        revalidations[index] = due
                    }
                    var bytes = s.size
                    if decision.action == .fetch || decision.action == .refetch,
                        let partial = partials[r.outputRoot]?[r.relativePath(of: s)],
                        partial.continues(identity: r.identity(of: s), expectedSize: s.size, hasDigest: !s.digests.isEmpty)
                    {
                        decision = SliceDecision(action: .resume, reason: "\(partial.size) bytes already downloaded", resumeOffset: partial.size)
                        bytes = s.size.map { $0 - partial.size }
                    }
                    switch checks[k] {
                    case .notRegularFile, .ioError:
                        warnings.append("\(r.id): slice '\(s.path)': \(decision.reason ?? "")")
                    default:
                        break
                    }
                    k += 1
                    counts.add(decision.action, bytes: bytes)
                    counts.integrity.add(s.integrity)
                    decisions.append(decision)
                }
                if segment.slices.upperBound == r.slices.count { finishEntry(r) }
            }
            proofs.add(segments, of: manifest, expectations: expectations, results: results)
        }

        private mutating func finishEntry(_ r: Resource) {
            var entry = Plan.Entry(resource: r, decisions: decisions, counts: counts)
            entry.revalidations = revalidations
            decisions = []
            revalidations = [:]
            if let policy { policy.apply(to: &entry, deferredDependencies: deferredIDs) }
            if entry.deferral != nil { deferredIDs.insert(r.id) }
            total += entry.counts
            entries.append(entry)
        }

        func finish(space measure: (String) -> Result<FileSystemUsage, FileSystemUsage.Failure>) -> Plan {
            var plan = Plan(
                manifest: manifest, entries: entries, counts: total, warnings: warnings,
                space: SpaceCheck.needs(of: entries, measure: measure))
            plan.proofs = proofs.finish(manifest)
            return plan
        }
    }

    /// A file that differs from its slice only because the slice now lists another version (a
    /// catalog's new digest or size): the file is still the one jobrun fetched and recorded, so
    /// the slice is fetched as new, not repaired. `nil` for a file that changed on disk.
    static func newVersion(_ check: FileCheck, observed: FileObservation, record: ProvenFile?) -> SliceDecision? {
        guard let record, record.fetchedAtMilliseconds != nil, MirrorMemory.stillDescribes(record, check, observed) else { return nil }
        switch check {
        case .sizeMismatch(let expected, let actual):
            return SliceDecision(action: .fetch, reason: "another version is listed: \(expected) bytes, the one in place has \(actual)")
        case .digestMismatch(let expected, _, _):
            return SliceDecision(action: .fetch, reason: "another version is listed: \(expected.algorithm.rawValue) \(expected.hex)")
        default:
            return nil
        }
    }

    /// The action for one slice given what is on disk. A pure function:
    ///
    /// | on disk                                  | action      |
    /// |------------------------------------------|-------------|
    /// | nothing                                  | fetch       |
    /// | regular file, size and digests match     | up-to-date  |
    /// | regular file, size or a digest differs   | refetch     |
    /// | symlink, folder or other non-file        | refetch (apply refuses to replace it) |
    /// | unreadable                               | refetch     |
    ///
    /// A refetch of a file that is still the version jobrun fetched and recorded becomes a fetch
    /// of the version now listed (``newVersion(_:observed:record:)``): not a repair.
    public static func decide(_ check: FileCheck, for slice: Slice) -> SliceDecision {
        switch check {
        case .ok:
            return SliceDecision(action: .upToDate)
        case .missing:
            return SliceDecision(action: .fetch)
        case .sizeMismatch(let expected, let actual):
            return SliceDecision(action: .refetch, reason: "size is \(actual) bytes, expected \(expected)")
        case .digestMismatch(_, let actual, _):
            return SliceDecision(action: .refetch, reason: Digest.mismatchDescription(expected: slice.digests, actual: actual))
        case .notRegularFile:
            return SliceDecision(action: .refetch, reason: check.wrongKindText)
        case .ioError(let path, _, let message):
            return SliceDecision(action: .refetch, reason: "cannot read '\(path)': \(message)")
        }
    }
}
