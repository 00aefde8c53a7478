public import JobrunFiles
public import JobrunOutcome
public import JobrunPlan

extension RunMetrics.Resource {
    /// Each resource of an `apply`, as it ended.
    public static func of(_ result: ApplyResult, endedAtMilliseconds now: Int64) -> [RunMetrics.Resource] {
        result.entries.map { entry in
            var c = ApplyResult.Counts()
            for i in entry.outcomes.indices { entry.outcomes[i].status.count(into: &c, bytes: entry.outcomes[i].bytesTransferred) }
            var r = RunMetrics.Resource(id: entry.resource.id)
            r.slices = [
                .proven: c.fetched + c.resumed + c.repaired + c.upToDate, .missing: c.skipped, .failed: c.failed, .deferred: c.deferred, .unproven: 0,
            ]
            r.fetchedBytes = c.fetchedBytes
            if entry.isComplete, !entry.outcomes.isEmpty { r.lastSuccessAtMilliseconds = now }
            return r
        }
    }

    /// Each resource of a `verify`: every slice it found matching was proven by this run.
    public static func of(
        _ verification: MirrorVerification, startedAtMilliseconds started: Int64, endedAtMilliseconds now: Int64
    )
        -> [RunMetrics.Resource]
    {
        verification.entries.map { entry in
            var r = RunMetrics.Resource(id: entry.resource.id)
            for state in RunMetrics.SliceState.allCases { r.slices[state] = 0 }
            let c = entry.counts
            r.slices[.proven] = c.ok
            r.slices[.missing] = c.missing
            r.slices[.failed] = c.mismatched + c.errors + c.refusedWithoutDigests
            if c.isAllOK, c.slices > 0 {
                r.lastSuccessAtMilliseconds = now
                r.oldestProofAtMilliseconds = started
            }
            return r
        }
    }

    /// Each resource of a `status`, as the mirror state and the files say.
    public static func of(_ status: MirrorStatus) -> [RunMetrics.Resource] {
        status.entries.map { entry in
            var r = RunMetrics.Resource(id: entry.resource.id)
            for state in RunMetrics.SliceState.allCases { r.slices[state] = 0 }
            let c = entry.counts
            r.slices[.proven] = c.proven
            r.slices[.missing] = c.missing
            r.slices[.failed] = c.changed + c.errors
            r.slices[.unproven] = c.unproven + c.moved + c.stale
            r.lastSuccessAtMilliseconds = entry.fullyProvenAtMilliseconds
            r.oldestProofAtMilliseconds = entry.counts.isAllProven ? entry.oldestProofAtMilliseconds : nil
            return r
        }
    }
}
