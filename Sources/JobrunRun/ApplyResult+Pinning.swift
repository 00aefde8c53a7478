import JobrunCore
import JobrunManifest
import JobrunPlan
import JobrunFiles
public import JobrunOutcome

/// `apply --record-sums`: the SHA-256 of every final file in place after the run.
extension ApplyResult {
    /// Hashes the final file of every slice that passed and whose SHA-256 is not known yet (up
    /// to date, or declaring other algorithms only) and adds it to its `computedDigests`; its
    /// declared size and digests are checked in the same pass, so only a file that still
    /// matches its declaration is pinned. Returns a message per file that could not be pinned
    /// (changed or removed since), which stays out of the list.
    public mutating func computeMissingSHA256(parallelism: Int? = nil) -> [String] {
        var wanted: [(entry: Int, slice: Int)] = []
        var expectations: [FileExpectation] = []
        for e in entries.indices {
            let r = entries[e].resource
            for i in entries[e].outcomes.indices where entries[e].outcomes[i].hasPassed && entries[e].outcomes[i].sha256 == nil {
                let s = r.slices[i]
                wanted.append((e, i))
                expectations.append(
                    FileExpectation(
                        root: r.outputRoot, relativePath: r.relativePath(of: s), size: s.size, digests: s.digests, computes: [.sha256]))
            }
        }
        var problems: [String] = []
        for (k, check) in FileChecker().checkAll(expectations, parallelism: parallelism ?? FileChecker.defaultParallelism).enumerated() {
            let (e, i) = wanted[k]
            if case .ok(_, let digests) = check, let sha256 = digests.first(where: { $0.algorithm == .sha256 }) {
                entries[e].outcomes[i].computedDigests.append(sha256)
            } else {
                let r = entries[e].resource
                let s = r.slices[i]
                // The plan's words for what is on disk now (`missing` has none: nothing is there).
                let why = check.isOK ? "its SHA-256 could not be computed" : Planner.decide(check, for: s).reason ?? "missing"
                problems.append("\(r.filePath(of: s)): not recorded, the file no longer matches what was applied: \(why)")
            }
        }
        return problems
    }
}
