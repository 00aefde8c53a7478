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
    /// Folders that could not be listed while looking for extra files.
    public var scanErrors: [FileIOError]
    /// Wall time spent checking.
    public var elapsed: Duration
    /// How the files that passed were proven (checked with a ``MirrorMemory``), and what to record.
    public var proofs = CheckProofs()
}

extension Manifest {
    /// What should be on disk for every slice, resource by resource in `order`; with
    /// `alsoComputing`, that algorithm's digest is computed for every slice that declares none
    /// of it.
    public func fileExpectations(in order: [Int], alsoComputing extra: DigestAlgorithm? = nil) -> [FileExpectation] {
        fileExpectations(of: order.map { ($0, resources[$0].slices.indices) }, alsoComputing: extra)
    }

    /// ``fileExpectations(in:alsoComputing:)`` for some slices of some resources: `segments`
    /// are resources (by index) and the range of their slices, in the order wanted.
    public func fileExpectations(of segments: [(resource: Int, slices: Range<Int>)], alsoComputing extra: DigestAlgorithm? = nil) -> [FileExpectation] {
        var expectations: [FileExpectation] = []
        expectations.reserveCapacity(segments.reduce(0) { $0 + $1.slices.count })
        for segment in segments {
            let r = resources[segment.resource]
            for s in r.slices[segment.slices] {
                var computes: [DigestAlgorithm] = []
                if let extra, !s.digests.contains(where: { $0.algorithm == extra }) { computes = [extra] }
                expectations.append(FileExpectation(
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
    public static func verify(
        _ manifest: Manifest, parallelism: Int? = nil, findExtraFiles: Bool = false, requiresDigests: Bool = false,
        alsoComputing extra: DigestAlgorithm? = nil, timesChecks: Bool = false, memory: MirrorMemory? = nil
    ) -> MirrorVerification {
        let clock = ContinuousClock()
        let start = clock.now
        let order = manifest.dependencyOrder
        var expectations = manifest.fileExpectations(in: order, alsoComputing: extra)
        if let memory { memory.recall(into: &expectations) }
        let width = parallelism ?? FileChecker.defaultParallelism
        let results = FileChecker().check(expectations, parallelism: width, timed: timesChecks, observed: memory != nil)
        let checks = results.checks
        let seconds = results.seconds
        var entries: [MirrorVerification.Entry] = []
        var total = MirrorVerification.Counts(requiresDigests: requiresDigests)
        var k = 0
        for index in order {
            let r = manifest.resources[index]
            let slice = Array(checks[k..<(k + r.slices.count)])
            let times = seconds.isEmpty ? [] : Array(seconds[k..<(k + r.slices.count)])
            k += r.slices.count
            var counts = MirrorVerification.Counts(requiresDigests: requiresDigests)
            for (s, c) in zip(r.slices, slice) { counts.add(c, integrity: s.integrity) }
            total += counts
            entries.append(.init(resource: r, checks: slice, seconds: times, counts: counts))
        }
        var extra: [String]?
        var scanErrors: [FileIOError] = []
        if findExtraFiles {
            (extra, scanErrors) = extraFiles(manifest)
        }
        var verification = MirrorVerification(entries: entries, counts: total, extraFiles: extra, scanErrors: scanErrors, elapsed: clock.now - start)
        if let memory {
            verification.proofs = memory.proofs(of: manifest, in: order, expectations: expectations, results: results)
        } else {
            verification.proofs.hashed = CheckProofs.hashedCount(expectations, checks)
        }
        return verification
    }

    /// Lists files under each output root's resource folders that no slice names. Only the
    /// selected resources' folders are walked, but a file any declared resource names is
    /// expected: a resource left out by `--resource` may share a root or a folder.
    static func extraFiles(_ manifest: Manifest) -> ([String], [FileIOError]) {
        var byRoot: [String: (dirs: Set<String>, expected: Set<String>)] = [:]
        for r in manifest.resources { byRoot[r.outputRoot, default: ([], [])].dirs.insert(r.dest) }
        for r in manifest.declaredResources where byRoot[r.outputRoot] != nil {
            for s in r.slices { byRoot[r.outputRoot]?.expected.insert(r.relativePath(of: s)) }
        }
        var found: [String] = []
        var errors: [FileIOError] = []
        for (root, entry) in byRoot {
            let scan = ExtraFileScanner().scan(root: root, directories: entry.dirs.sorted(), expected: entry.expected)
            found += scan.extraPaths.map { root == "." ? $0 : root + "/" + $0 }
            errors += scan.errors
        }
        return (found.sorted(), errors)
    }
}
