import JobrunCore
public import JobrunPlan
public import JobrunOutcome
public import JobrunState
import JobrunFiles

/// The prune at a run's end: the files of a ``PrunePlan`` moved to the trash (``Trash``) and
/// their records forgotten, only after a run that completed every selected resource, and only
/// all of them or none (``PrunePlan/refusal``).
public enum Pruning {
    /// Why `result`'s run may not prune, or `nil` when it may: every selected slice in place, no
    /// failure, deferral or stop (a stopped or failed run may not have fetched what replaces
    /// what a prune would remove).
    public static func obstacle(_ result: ApplyResult) -> String? {
        if let stop = result.stopReason { return "the run stopped (\(stop.code)) before its end" }
        let c = result.counts
        if c.failed > 0 { return "\(c.failed) slice\(c.failed == 1 ? "" : "s") failed" }
        if c.skipped > 0 { return "\(c.skipped) slice\(c.skipped == 1 ? " was" : "s were") not fetched" }
        if c.deferred > 0 { return "\(c.deferred) slice\(c.deferred == 1 ? " was" : "s were") deferred by the network policy" }
        if result.failedHookCount > 0 { return "a hook failed the run" }
        return nil
    }

    /// Carries `plan` out after `result`'s run (`runID`, at `now` ms since the epoch).
    public static func run(_ plan: PrunePlan, after result: ApplyResult, states: MirrorStates, runID: String, now: Int64) -> PruneReport {
        var report = PruneReport(state: .pruned, files: plan.files.map { PruneReport.File(planned: $0) }, resources: plan.resources, limit: plan.limit)
        if let why = obstacle(result) {
            report.state = .notRun(reason: "\(why); nothing was pruned")
            return report
        }
        if let refusal = plan.refusal {
            report.state = .refused(reason: refusal)
            return report
        }
        guard !plan.files.isEmpty else { return report }
        // By root: the trash of each is its own. Every file is checked before any moves: a prune
        // that would stop part way does not start.
        let byRoot = Dictionary(grouping: report.files.indices) { report.files[$0].planned.root }.sorted { $0.key < $1.key }.map { root, indices in
            (root: root, indices: indices, locations: indices.map { report.files[$0].planned.location })
        }
        let obstacles = byRoot.flatMap { Trash.obstacles(to: $0.locations, root: $0.root) }
        if !obstacles.isEmpty {
            let more = obstacles.count > 3 ? " (and \(obstacles.count - 3) more)" : ""
            report.state = .refused(reason: "\(obstacles.prefix(3).joined(separator: "; "))\(more); nothing was pruned")
            return report
        }
        let folder = Trash.folderName(atMilliseconds: now, runID: runID)
        for (root, indices, locations) in byRoot {
            let (made, moved) = Trash.move(locations, as: indices.map { report.files[$0].planned.path }, root: root, into: folder)
            var forgotten: [String] = []
            for (k, outcome) in zip(indices, moved) {
                switch outcome {
                case .moved(let trashPath):
                    report.files[k].trashPath = trashPath
                    forgotten.append(report.files[k].planned.location)
                    if report.trashFolder == nil { report.trashFolder = made }
                case .gone:
                    // Someone removed it meanwhile: nothing left to do, and its record goes.
                    forgotten.append(report.files[k].planned.location)
                case .failed(let error):
                    report.files[k].error = "\(error.path): \(error.message)"
                }
            }
            states.forget(forgotten, root: root)
        }
        return report
    }
}
