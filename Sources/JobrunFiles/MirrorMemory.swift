import JobrunCore
public import JobrunManifest
public import JobrunState

/// What the output roots' mirror states recorded, as a plan or a verification uses it: a file
/// whose identity is what its record proved is not read again (``ProvenFile/identity(provingSize:digests:)``).
public struct MirrorMemory: Sendable {
    /// Records by output root (as the manifests name it), then by path relative to it.
    public var known: [String: [String: ProvenFile]]
    /// Whether files may be recognized without being read (`false`: `--rehash`, every file
    /// present is read, and the records are only written).
    public var recognizes: Bool

    public init(known: [String: [String: ProvenFile]], recognizes: Bool = true) {
        self.known = known
        self.recognizes = recognizes
    }

    /// Gives every expectation whose file has a usable record the identity that proves it.
    public func recall(into expectations: inout [FileExpectation]) {
        guard recognizes, !known.isEmpty else { return }
        var root = ""
        var records: [String: ProvenFile]?
        for k in expectations.indices where !expectations[k].digests.isEmpty {
            if expectations[k].root != root || records == nil {
                root = expectations[k].root
                records = known[root] ?? [:]
            }
            guard let record = records?[expectations[k].relativePath] else { continue }
            expectations[k].proven = record.identity(provingSize: expectations[k].size, digests: expectations[k].digests)
        }
    }

    /// What checks of expectations (made by ``recall(into:)``) proved, and which records they
    /// made stale, gathered batch by batch (a plan's or a verification's), in the order the
    /// manifest's resources are checked. When the manifest is checked whole (no resource
    /// selection), records no slice names are stale too once their file is gone
    /// (``unnamedAndGone(in:records:manifest:)``). Without a memory (no mirror state in use) it
    /// only counts the files proven by hashing.
    public struct ProofCollector: Sendable {
        let memory: MirrorMemory?
        var proofs = CheckProofs()
        // Expectations with a record, counted by root in runs (expectations come root by root).
        var recorded: [String: Int] = [:]
        var runRoot = ""
        var runCount = 0

        public init(memory: MirrorMemory?) { self.memory = memory }

        /// One batch: `expectations` and their `results`, made from `segments` (resources of
        /// `manifest` by index, and the range of their slices checked).
        public mutating func add(
            _ segments: [(resource: Int, slices: Range<Int>)], of manifest: Manifest, expectations: [FileExpectation], results: FileChecker.Results
        ) {
            guard let memory else {
                proofs.hashed += CheckProofs.hashedCount(expectations, results.checks)
                return
            }
            let known = memory.known
            var k = 0
            for segment in segments {
                let id = manifest.resources[segment.resource].id
                for _ in segment.slices {
                    defer { k += 1 }
                    let expectation = expectations[k]
                    let observation = k < results.observations.count ? results.observations[k] : FileObservation()
                    // Looked up only where needed: an unchanged mirror is all `.recognized`.
                    let hasRecord = observation.proof == .recognized || known[expectation.root]?[expectation.relativePath] != nil
                    if hasRecord {
                        if expectation.root != runRoot {
                            if runCount > 0 { recorded[runRoot, default: 0] += runCount }
                            (runRoot, runCount) = (expectation.root, 0)
                        }
                        runCount += 1
                    }
                    switch observation.proof {
                    case .recognized:
                        proofs.recognized += 1
                    case .hashed, .metadata:
                        if observation.proof == .hashed { proofs.hashed += 1 }
                        guard case .ok(_, let digests) = results.checks[k], let file = observation.identity else {
                            if hasRecord, !MirrorMemory.stillDescribes(known[expectation.root]?[expectation.relativePath], results.checks[k], observation) {
                                proofs.stale[expectation.root, default: []].append(expectation.relativePath)
                            }
                            continue
                        }
                        // A stat proves nothing new of a file already recorded as it is (and must not
                        // overwrite the digests its fetch computed, nor make it look freshly proven).
                        if observation.proof == .metadata, known[expectation.root]?[expectation.relativePath]?.file == file { continue }
                        proofs.proven[expectation.root, default: []].append(
                            ProvenSlice(
                                path: expectation.relativePath, resource: id,
                                digests: digests.isEmpty ? expectation.digests : digests, file: file, seenAtNanoseconds: observation.seenAt,
                                settled: observation.isSettled,
                                provenAtMilliseconds: observation.seenAt / 1_000_000, fetchedAtMilliseconds: nil))
                    case nil:
                        if hasRecord, !MirrorMemory.stillDescribes(known[expectation.root]?[expectation.relativePath], results.checks[k], observation) {
                            proofs.stale[expectation.root, default: []].append(expectation.relativePath)
                        }
                    }
                }
            }
        }

        /// The proofs of every batch added, with, for a whole `manifest`, the records no slice
        /// names whose file is gone.
        public func finish(_ manifest: Manifest) -> CheckProofs {
            var proofs = proofs
            var recorded = recorded
            if runCount > 0 { recorded[runRoot, default: 0] += runCount }
            guard let memory, !manifest.isPartial else { return proofs }
            let known = memory.known
            let unnamed = known.keys.filter { (known[$0]?.count ?? 0) > recorded[$0] ?? 0 }
            for (root, gone) in MirrorMemory.unnamedAndGone(in: Set(unnamed), records: known, manifest: manifest) {
                proofs.stale[root, default: []].append(contentsOf: gone)
            }
            return proofs
        }
    }

    /// Whether `record` still holds for a file whose check failed: the file has the identity it
    /// had when proven, and what was read of it now (its size; its digests, when it was hashed)
    /// agrees with the record. Such a file is the version proven before, which the slice no
    /// longer lists: its record stays, for the plan to say so and for runs that fail to fetch
    /// the new one.
    public static func stillDescribes(_ record: ProvenFile?, _ check: FileCheck, _ observation: FileObservation) -> Bool {
        guard let record, let identity = observation.identity, record.file == identity else { return false }
        switch check {
        case .sizeMismatch(_, let actual): return actual == record.file.size
        case .digestMismatch(_, let actual, let size): return size == record.file.size && !actual.isEmpty && actual.allSatisfy(record.digests.contains)
        default: return false
        }
    }

    /// By output root (of `roots`), the paths of `records` that no slice of `manifest` names and where
    /// no file is any more: a slice taken out of the manifests, its file deleted. A record whose
    /// file is still there is kept: another set of manifests may mirror into the same root.
    static func unnamedAndGone(
        in roots: Set<String>, records: [String: [String: ProvenFile]], manifest: Manifest
    ) -> [String: [String]] {
        guard !roots.isEmpty else { return [:] }
        var named: [String: Set<String>] = [:]
        for r in manifest.resources where roots.contains(r.outputRoot) {
            for s in r.slices { named[r.outputRoot, default: []].insert(r.relativePath(of: s)) }
        }
        var gone: [String: [String]] = [:]
        var status = stat()
        for root in roots {
            let names = named[root] ?? []
            for path in (records[root] ?? [:]).keys where !names.contains(path) {
                if lstat(joinPath(root, path), &status) != 0, errno == ENOENT || errno == ENOTDIR { gone[root, default: []].append(path) }
            }
        }
        return gone.mapValues { $0.sorted() }
    }
}
