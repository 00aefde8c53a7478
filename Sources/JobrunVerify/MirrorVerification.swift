import JobrunCore
public import JobrunManifest

/// The result of checking every slice of a manifest against the mirror on disk.
public struct MirrorVerification: Sendable {
    public struct Entry: Sendable {
        public var resource: Resource
        /// One check per slice, in the resource's slice order.
        public var checks: [FileCheck]
        /// The seconds each slice's check took, in the same order.
        public var seconds: [Float]
        public var counts: Counts
    }

    public struct Counts: Sendable, Hashable {
        public var ok = 0
        /// Size or digest differs.
        public var mismatched = 0
        public var missing = 0
        /// Not a regular file, or unreadable.
        public var errors = 0

        public init() {}

        public var slices: Int { ok + mismatched + missing + errors }
        public var isAllOK: Bool { mismatched + missing + errors == 0 }

        mutating func add(_ check: FileCheck) {
            switch check {
            case .ok: ok += 1
            case .sizeMismatch, .digestMismatch: mismatched += 1
            case .missing: missing += 1
            case .notRegularFile, .ioError: errors += 1
            }
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
}

extension Manifest {
    /// What should be on disk for every slice, resource by resource in `order`.
    public func fileExpectations(in order: [Int]) -> [FileExpectation] {
        var expectations: [FileExpectation] = []
        expectations.reserveCapacity(sliceCount)
        for index in order {
            let r = resources[index]
            for s in r.slices {
                expectations.append(FileExpectation(root: r.outputRoot, relativePath: r.relativePath(of: s), size: s.size, digests: s.digests))
            }
        }
        return expectations
    }
}

/// Checks a mirror that is already on disk: size and every digest of every slice, in parallel.
public enum MirrorVerifier {
    public static func verify(_ manifest: Manifest, parallelism: Int? = nil, findExtraFiles: Bool = false) -> MirrorVerification {
        let clock = ContinuousClock()
        let start = clock.now
        let order = manifest.dependencyOrder
        let (checks, seconds) = FileChecker().checkAllTimed(manifest.fileExpectations(in: order), parallelism: parallelism ?? FileChecker.defaultParallelism)
        var entries: [MirrorVerification.Entry] = []
        var total = MirrorVerification.Counts()
        var k = 0
        for index in order {
            let r = manifest.resources[index]
            let slice = Array(checks[k..<(k + r.slices.count)])
            let times = Array(seconds[k..<(k + r.slices.count)])
            k += r.slices.count
            var counts = MirrorVerification.Counts()
            for c in slice { counts.add(c) }
            total.ok += counts.ok
            total.mismatched += counts.mismatched
            total.missing += counts.missing
            total.errors += counts.errors
            entries.append(.init(resource: r, checks: slice, seconds: times, counts: counts))
        }
        var extra: [String]?
        var scanErrors: [FileIOError] = []
        if findExtraFiles {
            (extra, scanErrors) = extraFiles(manifest)
        }
        return MirrorVerification(entries: entries, counts: total, extraFiles: extra, scanErrors: scanErrors, elapsed: clock.now - start)
    }

    /// Lists files under each output root's resource folders that no slice names.
    static func extraFiles(_ manifest: Manifest) -> ([String], [FileIOError]) {
        var byRoot: [String: (dirs: Set<String>, expected: Set<String>)] = [:]
        for r in manifest.resources {
            var entry = byRoot[r.outputRoot] ?? ([], [])
            entry.dirs.insert(r.dest)
            for s in r.slices { entry.expected.insert(r.relativePath(of: s)) }
            byRoot[r.outputRoot] = entry
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
