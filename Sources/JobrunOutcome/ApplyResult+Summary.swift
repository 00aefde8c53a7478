import JobrunCore
import JobrunPlan

/// The run's last line and its clauses.
extension ApplyResult {
    /// The stable last line, one of
    /// `Apply complete! Slices: 412 fetched (26.3 MiB), 3 resumed, 188 up to date, 0 failed, 0 deferred.`
    /// (`412 fetched (26.3 MiB), 2 repaired, 3 resumed` when files on disk were repaired)
    /// `Apply failed! Slices: …` and `Apply interrupted! Slices: …`, with the same counts after the
    /// word; when slices that passed declare no digest, ``IntegrityCounts/summaryClause`` goes
    /// before the period: `…, 0 deferred; 6 without digests (2 size only, 4 unverified).`, and
    /// before it, when hooks failed the run, `; 1 hook failed`, and before that, when the run was
    /// offline for a while, `; offline for 42 s`.
    public var summaryLine: String {
        let c = counts
        let word: String
        switch ending {
        case .complete: word = "complete"
        case .failed: word = "failed"
        case .stopped(.signal): word = "interrupted"
        case .stopped(.deadline): return stoppedLine(c, "Apply stopped at deadline")
        case .stopped(.offline): return stoppedLine(c, "Apply stopped offline")
        }
        return
            "Apply \(word)! Slices: \(c.fetched) fetched (\(ByteCount(c.fetchedBytes)))\(c.repairedClause), \(c.resumed) resumed, \(c.upToDate) up to date, \(c.failed) failed, \(c.deferred) deferred\(deferredBreakdown)\(c.revalidatedClause)\(catalogClause)\(pruneClause)\(publishClause)\(offlineClause)\(hookClause)\(c.withoutDigests.summaryClause)."
    }

    /// Resources whose catalog was refused: nothing of them was planned or fetched.
    public var refusedCatalogs: Int { catalogs.count { $0.state == .refused } }

    /// `; 1 catalog refused` when a resource's catalog was; nothing otherwise.
    public var catalogClause: String {
        let refused = refusedCatalogs
        return refused == 0 ? "" : "; \(refused) catalog\(refused == 1 ? "" : "s") refused"
    }

    /// `; 3 pruned` (`, 1 could not be moved`), `; prune refused` or `; nothing pruned`, when a
    /// prune was asked for with files to remove; nothing otherwise.
    public var pruneClause: String {
        guard let prune, !prune.files.isEmpty else { return "" }
        switch prune.state {
        case .pruned:
            guard prune.prunedCount + prune.failedCount > 0 else { return "" }
            return "; \(prune.prunedCount) pruned" + (prune.failedCount > 0 ? " (\(prune.failedCount) could not be moved)" : "")
        case .refused: return "; prune refused"
        case .notRun: return "; nothing pruned"
        }
    }

    /// `; 2 published` (`, 1 could not be switched`) when resources published atomically were
    /// switched in or failed to be; nothing otherwise.
    public var publishClause: String {
        let published = publications.count { $0.state == .published }
        let failed = publications.count(where: \.isFailure)
        guard published + failed > 0 else { return "" }
        return "; \(published) published" + (failed > 0 ? " (\(failed) could not be switched)" : "")
    }

    /// `; offline for 42 s` (tenths under ten seconds), or nothing when the run never was.
    public var offlineClause: String {
        guard offline > .zero else { return "" }
        return "; offline for " + offline.secondsText
    }

    /// Deferred slices by cause, ` (metered 8, window 4)`, or nothing when none is deferred (as
    /// in the plan's summary line).
    public var deferredBreakdown: String {
        var slices: [DeferralReason: Int] = [:]
        for e in entries.indices {
            guard let deferral = entries[e].deferral else { continue }
            let count = entries[e].outcomes.indices.count { entries[e].outcomes[$0].status == .deferred }
            for reason in deferral.reasons { slices[reason, default: 0] += count }
        }
        return DeferralReason.breakdown(slices)
    }

    /// What a stopped run left for the next one.
    public struct Remaining: Sendable, Hashable {
        /// Slices cut in flight, and of those the ones whose partial file is kept to resume and
        /// those whose partial file was removed (nothing could resume it).
        public var cutInFlight = 0
        public var kept = 0
        public var discarded = 0
        /// Slices never started, and their declared bytes (a lower bound when `unsized` > 0).
        public var notStarted = 0
        public var notStartedBytes: Int64 = 0
        public var unsized = 0
    }

    /// The slices this run did not finish, by what the next run does with them.
    public var remaining: Remaining {
        var r = Remaining()
        for e in entries.indices {
            for i in entries[e].outcomes.indices where entries[e].outcomes[i].status == .skipped {
                if entries[e].outcomes[i].failure?.kind == .interrupted {
                    r.cutInFlight += 1
                    switch entries[e].outcomes[i].partial {
                    case .kept?: r.kept += 1
                    case .discarded?: r.discarded += 1
                    case nil: break
                    }
                } else {
                    r.notStarted += 1
                    if let size = entries[e].resource.slices[i].size { r.notStartedBytes = r.notStartedBytes.saturatingAdding(size) } else { r.unsized += 1 }
                }
            }
        }
        return r
    }

    /// `Apply stopped at deadline: 40 fetched (1.2 GiB), 3 cut in flight (2 partial files kept to resume), 57 not
    /// started (3.4 GiB). Run the same command again to continue.`: what was done, what a next run
    /// continues and what it starts (`Apply stopped offline: …; offline for 600 s. Run …` when the
    /// network stayed gone).
    func stoppedLine(_ c: Counts, _ head: String) -> String {
        let r = remaining
        let failed = c.failed > 0 ? ", \(c.failed) failed" : ""
        // Their declared bytes, a lower bound when some declare no size.
        let bytes = r.notStartedBytes == 0 ? "" : " (\(r.unsized > 0 ? "at least " : "")\(ByteCount(r.notStartedBytes)))"
        return
            "\(head): \(c.fetched + c.resumed + c.repaired) fetched (\(ByteCount(c.fetchedBytes)))\(failed), \(r.cutInFlight) cut in flight (\(r.kept) partial file\(r.kept == 1 ? "" : "s") kept to resume), \(r.notStarted) not started\(bytes)\(catalogClause)\(offlineClause). Run the same command again to continue."
    }
}
