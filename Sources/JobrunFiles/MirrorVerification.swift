public import JobrunCore
public import JobrunManifest

/// The result of checking every slice of a manifest against the mirror on disk.
public struct MirrorVerification: Sendable {
    public struct Entry: Sendable {
        public var resource: Resource
        /// One check per slice, in the resource's slice order.
        public var checks: [FileCheck]
        /// The seconds each slice's check took, in the same order; empty when not timed.
        public var seconds: [Float]
        public var counts: Counts
    }

    public struct Counts: Sendable, Hashable {
        /// Files that passed: every declared check held (for a slice that declares no digest,
        /// only when digests are not required).
        public var ok = 0
        /// Size or digest differs.
        public var mismatched = 0
        public var missing = 0
        /// Not a regular file, or unreadable.
        public var errors = 0
        /// Files that passed the checks their slice declares, which include no digest: counted
        /// in ``ok`` too, unless ``requiresDigests`` makes them failures.
        public var withoutDigests = IntegrityCounts()
        /// `--require-digests`: a slice without a digest fails.
        public var requiresDigests = false

        public init(requiresDigests: Bool = false) {
            self.requiresDigests = requiresDigests
        }

        /// Slices that failed for declaring no digest (only with ``requiresDigests``).
        public var refusedWithoutDigests: Int { requiresDigests ? withoutDigests.withoutDigests : 0 }
        public var slices: Int { ok + mismatched + missing + errors + refusedWithoutDigests }
        public var isAllOK: Bool { mismatched + missing + errors + refusedWithoutDigests == 0 }

        mutating func add(_ check: FileCheck, integrity: SliceIntegrity) {
            switch check {
            case .ok:
                withoutDigests.add(integrity)
                if integrity == .digest || !requiresDigests { ok += 1 }
            case .sizeMismatch, .digestMismatch: mismatched += 1
            case .missing: missing += 1
            case .notRegularFile, .ioError: errors += 1
            }
        }

        static func += (lhs: inout Counts, rhs: Counts) {
            lhs.ok += rhs.ok
            lhs.mismatched += rhs.mismatched
            lhs.missing += rhs.missing
            lhs.errors += rhs.errors
            lhs.withoutDigests += rhs.withoutDigests
        }
    }

    /// Resources in dependency order.
    public var entries: [Entry]
    public var counts: Counts
    /// Files below the resources' folders that no slice names (only when asked for), as paths
    /// relative to the current directory, sorted.
    public var extraFiles: [String]?
    /// jobrun's own working files below the resources' folders that no apply under way owns, found
    /// with the extra files (partial downloads and their metadata, ``WorkingFileName``), sorted.
    public var workingFiles: [String]?
    /// Folders that could not be listed while looking for extra files.
    public var scanErrors: [FileIOError]
    /// Wall time spent checking.
    public var elapsed: Duration
    /// How the files that passed were proven (checked with a ``MirrorMemory``), and what to record.
    public var proofs = CheckProofs()
}

extension Manifest {
    /// What should be on disk for some slices of some resources: `segments` are resources (by
    /// index) and the range of their slices, in the order wanted; with `alsoComputing`, that
    /// algorithm's digest is computed for every slice that declares none of it. `withDigests`
    /// false: the declared sizes only, and nothing to compute (a check stats each file and reads
    /// none).
    public func fileExpectations(
        of segments: [(resource: Int, slices: Range<Int>)], alsoComputing extra: DigestAlgorithm? = nil, withDigests: Bool = true
    ) -> [FileExpectation] {
        var expectations: [FileExpectation] = []
        expectations.reserveCapacity(segments.reduce(0) { $0 + $1.slices.count })
        for segment in segments {
            let r = resources[segment.resource]
            for s in r.slices[segment.slices] {
                guard withDigests else {
                    expectations.append(FileExpectation(root: r.outputRoot, relativePath: r.relativePath(of: s), size: s.size))
                    continue
                }
                var computes: [DigestAlgorithm] = []
                if let extra, !s.digests.contains(where: { $0.algorithm == extra }) { computes = [extra] }
                expectations.append(
                    FileExpectation(
                        root: r.outputRoot, relativePath: r.relativePath(of: s), size: s.size, digests: s.digests, computes: computes))
            }
        }
        return expectations
    }
}

/// Checks a mirror that is already on disk: size and every digest of every slice, in parallel.
public enum MirrorVerifier {
    /// - Parameters:
    ///   - requiresDigests: a slice that declares no digest fails (`--require-digests`).
    ///   - alsoComputing: an algorithm whose digest every passing file gets in its `.ok` check,
    ///     declared or not (`--record-sums` asks for SHA-256).
    ///   - timesChecks: measure each file's check (a JUnit report's `time`); two clock reads a
    ///     file, so only when a report will show them.
    ///   - memory: the mirror states' records: with ``MirrorMemory/recognizes``, files unchanged
    ///     since their last proof are not read (`verify --quick`); either way what is proven is
    ///     collected in ``MirrorVerification/proofs``.
    ///   - batchSize: slices checked at once (``Manifest/checkBatchSize``; tests make it small):
    ///     what checking holds per slice besides its result is bounded by it.
    public static func verify(
        _ manifest: Manifest, parallelism: Int? = nil, findExtraFiles: Bool = false, requiresDigests: Bool = false,
        alsoComputing extra: DigestAlgorithm? = nil, timesChecks: Bool = false, memory: MirrorMemory? = nil,
        batchSize: Int = Manifest.checkBatchSize
    ) -> MirrorVerification {
        let clock = ContinuousClock()
        let start = clock.now
        let width = parallelism ?? FileChecker.defaultParallelism
        var entries: [MirrorVerification.Entry] = []
        entries.reserveCapacity(manifest.resources.count)
        var total = MirrorVerification.Counts(requiresDigests: requiresDigests)
        // The resource whose slices are being checked: its results so far.
        var checks: [FileCheck] = []
        var seconds: [Float] = []
        var counts = MirrorVerification.Counts(requiresDigests: requiresDigests)
        var proofs = MirrorMemory.ProofCollector(memory: memory)
        manifest.forEachCheckBatch(in: manifest.dependencyOrder, size: batchSize) { segments in
            var expectations = manifest.fileExpectations(of: segments, alsoComputing: extra)
            if let memory { memory.recall(into: &expectations) }
            let results = FileChecker().check(expectations, parallelism: width, timed: timesChecks, observed: memory != nil)
            var k = 0
            for segment in segments {
                let r = manifest.resources[segment.resource]
                if segment.slices.lowerBound == 0 {
                    checks = []
                    checks.reserveCapacity(r.slices.count)
                    seconds = []
                    counts = MirrorVerification.Counts(requiresDigests: requiresDigests)
                }
                for s in r.slices[segment.slices] {
                    counts.add(results.checks[k], integrity: s.integrity)
                    checks.append(results.checks[k])
                    if !results.seconds.isEmpty { seconds.append(results.seconds[k]) }
                    k += 1
                }
                if segment.slices.upperBound == r.slices.count {
                    total += counts
                    entries.append(.init(resource: r, checks: checks, seconds: seconds, counts: counts))
                    checks = []
                    seconds = []
                }
            }
            proofs.add(segments, of: manifest, expectations: expectations, results: results)
        }
        var extraFiles: [String]?
        var workingFiles: [String]?
        var scanErrors: [FileIOError] = []
        if findExtraFiles {
            let scan = Self.extraFiles(manifest)
            (extraFiles, workingFiles, scanErrors) = (scan.extraPaths, scan.workingPaths, scan.errors)
        }
        return MirrorVerification(
            entries: entries, counts: total, extraFiles: extraFiles, workingFiles: workingFiles, scanErrors: scanErrors, elapsed: clock.now - start,
            proofs: proofs.finish(manifest))
    }

    /// Lists files under each output root's resource folders that no slice names. Only the
    /// selected resources' folders are walked, but a file any declared resource names is
    /// expected: a resource left out by `--resource` may share a root or a folder.
    static func extraFiles(_ manifest: Manifest) -> ExtraFileScan {
        var byRoot: [String: (dirs: Set<String>, expected: Set<String>)] = [:]
        for r in manifest.resources { byRoot[r.outputRoot, default: ([], [])].dirs.insert(r.dest) }
        for r in manifest.declaredResources where byRoot[r.outputRoot] != nil {
            for s in r.slices { byRoot[r.outputRoot]?.expected.insert(r.relativePath(of: s)) }
        }
        var found = ExtraFileScan()
        for (root, entry) in byRoot {
            let scan = ExtraFileScanner().scan(root: root, directories: entry.dirs.sorted(), expected: entry.expected)
            found.extraPaths += scan.extraPaths.map { root == "." ? $0 : root + "/" + $0 }
            found.workingPaths += scan.workingPaths.map { root == "." ? $0 : root + "/" + $0 }
            found.errors += scan.errors
        }
        found.extraPaths.sort()
        found.workingPaths.sort()
        return found
    }
}
