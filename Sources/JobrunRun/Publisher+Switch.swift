import JobrunCore
public import JobrunOutcome
import JobrunFiles
import JobrunManifest
import JobrunState

extension Publisher {
    /// Switches in every staged resource that `result`'s run completed, dependencies first, and
    /// puts what became of each in `result.publications`; the reports then show a published or
    /// unchanged resource's files where they are now, in its published folder.
    public func publish(_ result: inout ApplyResult, runID: String, now: Int64) {
        result.publications = publications(after: result, runID: runID, now: now)
        let settled = Set(result.publications.filter { $0.state == .published || $0.state == .unchanged }.map(\.resource))
        for k in result.entries.indices {
            if settled.contains(result.entries[k].resource.id), let s = staged[result.entries[k].resource.id] { result.entries[k].resource.dest = s.dest }
        }
    }

    /// What becomes of each staged resource of `result`'s run, in the order they are switched: the
    /// plan's, where a resource comes after those it depends on; and one only once the staged
    /// ones it depends on are published.
    func publications(after result: ApplyResult, runID: String, now: Int64) -> [PublishReport] {
        let pruned = Set(result.prune?.files.filter { $0.trashPath != nil }.map(\.planned.resource) ?? [])
        var published: [String: Bool] = [:]
        var reports: [PublishReport] = []
        for entry in result.entries {
            guard let s = staged[entry.resource.id] else { continue }
            let held = entry.resource.dependsOn.first { published[$0.id] == false }?.id
            let report = publication(of: entry, s, heldBy: held, pruned: pruned.contains(s.id), stop: result.stopReason, runID: runID, now: now)
            published[s.id] = report.state == .published || report.state == .unchanged
            reports.append(report)
        }
        return reports
    }

    private func publication(
        of entry: ApplyResult.Entry, _ s: Staged, heldBy dependency: String?, pruned: Bool, stop: StopReason?, runID: String, now: Int64
    ) -> PublishReport {
        var report = PublishReport(resource: s.id, folder: Self.shown(s.root, s.dest), stage: Self.shown(s.root, s.stage), state: .published)
        if let why = Self.obstacle(entry, stop: stop) ?? dependency.map({ "resource '\($0)', which it depends on, was not published" }) {
            report.state = .notPublished(reason: "\(why); '\(report.folder)' stays as it was, and the next run continues the stage")
            return report
        }
        if s.isNew, !pruned, !Self.changes(entry) {
            // Nothing to switch: the stage is the published version, links and all. Its records
            // (revalidations' confirmations among them) are the published files'.
            if states.finishPublication(of: s.id, dest: s.dest, stage: s.stage, root: s.root) {
                let removal = StageFolder.discard(root: s.root, id: s.id)
                retime(removal.shared, dest: s.dest, stage: s.stage, root: s.root)
            }
            report.state = .unchanged
            return report
        }
        switch StageFolder.switchIn(root: s.root, stage: s.stage, published: s.dest) {
        case .failure(let error):
            report.state = .failed(error: "\(error.description); '\(report.folder)' stays as it was")
        case .success(let switched):
            if switched == .exchanged {
                let name: String
                switch StageFolder.retire(root: s.root, id: s.id, as: Trash.folderName(atMilliseconds: now, runID: runID)) {
                case .success(let retired): name = retired
                case .failure(let error):
                    // The journal still says where things stand: the next run moves it aside and records the switch.
                    report.warning = "the replaced version stays in '\(report.stage)' until the next run: \(error.description)"
                    return report
                }
                report.retired = Self.shown(s.root, StageFolder.base(of: s.id) + "/" + name)
                report.keptUntilMilliseconds = now + s.grace.wholeMilliseconds
            }
            if !states.finishPublication(of: s.id, dest: s.dest, stage: s.stage, root: s.root) {
                report.warning = "the switch could not be recorded in the mirror state; the next run records it"
            }
        }
        return report
    }

    /// `relative` below `root` as the user would type it.
    static func shown(_ root: String, _ relative: String) -> String { root == "." ? relative : root + "/" + relative }

    /// Whether `entry`'s run wrote any file: fetched, resumed, repaired or replaced by a revalidation.
    static func changes(_ entry: ApplyResult.Entry) -> Bool {
        entry.outcomes.indices.contains { i in
            switch entry.outcomes[i].status {
            case .fetched, .resumed, .repaired: true
            case .upToDate: entry.outcomes[i].revalidation == .replaced
            case .failed, .skipped, .deferred: false
            }
        }
    }

    /// Why `entry`'s stage may not be switched in, or `nil` when it may.
    static func obstacle(_ entry: ApplyResult.Entry, stop: StopReason?) -> String? {
        if let stop { return "the run stopped (\(stop.code)) before its end" }
        guard !entry.isComplete else { return nil }
        var failed = 0
        var skipped = 0
        var deferred = 0
        for i in entry.outcomes.indices {
            switch entry.outcomes[i].status {
            case .failed: failed += 1
            case .skipped: skipped += 1
            case .deferred: deferred += 1
            default: break
            }
        }
        let total = entry.outcomes.count
        if failed > 0 { return "\(failed) of its \(total) slices failed" }
        if skipped > 0 { return "\(skipped) of its \(total) slices \(skipped == 1 ? "was" : "were") not fetched" }
        return "\(deferred) of its \(total) slices \(deferred == 1 ? "was" : "were") deferred by the network policy"
    }
}
