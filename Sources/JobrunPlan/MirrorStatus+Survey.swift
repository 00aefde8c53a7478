public import JobrunCore
public import JobrunManifest
public import JobrunState
public import JobrunFiles
public import JobrunSystem

extension MirrorStatus {
    /// Takes the status of `manifest`'s resources: one stat per slice (no file is opened), one
    /// listing per folder that misses a slice (for partial downloads), and what `states`
    /// recorded, with its last `runLimit` runs. Writes nothing.
    /// - Parameters:
    ///   - maxAgeMilliseconds: a proof older than this counts against the status (`--max-age`).
    ///   - clock: the wall clock in ms since the epoch, read once everything else is: ages are
    ///     counted from it, so no record read is younger than it.
    ///   - batchSize: slices stat'ed at once (``Manifest/checkBatchSize``; tests make it small):
    ///     what checking holds per slice besides its result is bounded by it.
    public static func survey(
        _ manifest: Manifest, states: MirrorStates, runLimit: Int, maxAgeMilliseconds: Int64?,
        clock: () -> Int64 = { FileIdentity.now() / 1_000_000 }, batchSize: Int = Manifest.checkBatchSize
    ) -> MirrorStatus {
        var checks: [FileCheck] = []
        checks.reserveCapacity(manifest.sliceCount)
        var identities: [FileIdentity?] = []
        identities.reserveCapacity(manifest.sliceCount)
        var partials: [String: [String: PartialDownload.Found]] = [:]
        var listings = PartialScan.Listings()
        let resources = manifest.resources
        manifest.forEachCheckBatch(in: Array(resources.indices), size: batchSize) { segments in
            // The declared size but no digest: the checker stats each file and reads none.
            let expectations = manifest.fileExpectations(of: segments, withDigests: false)
            let results = FileChecker().check(expectations, observed: true)
            let found = PartialScan.find(
                for: segments.lazy.map { (resources[$0.resource], $0.slices.count) }, checks: results.checks, expectations: expectations,
                listings: &listings
            ) { $0 == .missing }
            for (root, byPath) in found { partials[root, default: [:]].merge(byPath) { first, _ in first } }
            checks += results.checks
            identities += results.observations.map(\.identity)
        }
        // Read first: a store that fails to read is dropped, and is not in use.
        let records = states.provenFiles()
        let inUse = Set(states.roots)
        let roots = Set(manifest.resources.map(\.outputRoot)).sorted().map { root in
            let store: Root.Store =
                inUse.contains(root) ? .inUse : FileStatus.kind(atPath: StateStore.path(forRoot: root)) == nil ? .none : .unusable
            return Root(path: root, store: store)
        }
        let runs = states.lastRuns(limit: runLimit)
        return MirrorStatus(
            manifest: manifest, checks: checks, identities: identities, records: records,
            partials: partials, roots: roots, runs: runs, nowMilliseconds: clock(), maxAgeMilliseconds: maxAgeMilliseconds)
    }
}
