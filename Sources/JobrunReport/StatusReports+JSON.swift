import JobrunCore
import JobrunManifest
public import JobrunPlan
import JobrunState
import JobrunJSON

extension StatusReports {
    /// `jobrun status --json`: versioned (docs/state.md), deterministic for the same mirror,
    /// records and clock (resources by id, roots by path, runs newest first). Every time is
    /// given twice: RFC 3339 in UTC with milliseconds, and milliseconds since the epoch
    /// (`*_ms`); both are `null` when there is no such time.
    public static func json(_ s: MirrorStatus, runID: String? = nil) -> [UInt8] {
        var w = JSONWriter(pretty: true, reservingCapacity: 1_024 + 400 * s.entries.count)
        w.beginObject()
        w.key("format_version"); w.int(2)
        w.key("jobrun_version"); w.string(JobrunVersion.current)
        if let runID { w.key("run_id"); w.string(runID) }
        time(&w, "checked_at", s.nowMilliseconds)
        w.key("max_age"); if let m = s.maxAgeMilliseconds { w.string(DurationParser.format(milliseconds: m)) } else { w.null() }
        w.key("max_age_ms"); if let m = s.maxAgeMilliseconds { w.int(m) } else { w.null() }
        w.key("summary")
        w.beginObject()
        counts(&w, s.counts, hasMaxAge: s.maxAgeMilliseconds != nil)
        time(&w, "oldest_proof", s.oldestProofAtMilliseconds)
        w.key("all_proven"); w.bool(s.counts.isAllProven)
        w.key("ok"); w.bool(s.isOK)
        w.endObject()
        w.key("roots")
        w.beginArray()
        for root in s.roots {
            w.beginObject()
            w.key("path"); w.string(root.path)
            w.key("store"); w.string(root.store.rawValue)
            w.endObject()
        }
        w.endArray()
        w.key("resources")
        w.beginArray()
        for entry in s.entries { resource(&w, entry, hasMaxAge: s.maxAgeMilliseconds != nil) }
        w.endArray()
        w.key("runs")
        w.beginArray()
        for run in s.runs { self.run(&w, run) }
        w.endArray()
        w.endObject()
        return w.finish()
    }

    private static func resource(_ w: inout JSONWriter, _ entry: MirrorStatus.Entry, hasMaxAge: Bool) {
        let r = entry.resource
        w.beginObject()
        w.key("id"); w.string(r.id)
        w.key("manifest"); w.string(r.location.description)
        w.key("output_root"); w.string(r.outputRoot)
        w.key("folder"); w.string(r.folderPath)
        counts(&w, entry.counts, hasMaxAge: hasMaxAge)
        time(&w, "fully_proven", entry.fullyProvenAtMilliseconds)
        time(&w, "oldest_proof", entry.oldestProofAtMilliseconds)
        time(&w, "last_fetched", entry.lastFetchedAtMilliseconds)
        w.key("ok"); w.bool(entry.isOK)
        // The slices that are not proven, in the resource's order: what `apply` or `verify`
        // would look at.
        w.key("not_proven")
        w.beginArray()
        for (slice, status) in zip(r.slices, entry.statuses) where status != .proven {
            w.beginObject()
            w.key("path"); w.string(slice.path)
            w.key("file"); w.string(r.filePath(of: slice))
            w.key("status"); w.string(status.rawValue)
            w.endObject()
        }
        w.endArray()
        w.endObject()
    }

    private static func run(_ w: inout JSONWriter, _ run: StateStore.Run) {
        w.beginObject()
        w.key("run_id"); w.string(run.runID)
        w.key("command"); w.string(run.command)
        time(&w, "started", run.startedAtMilliseconds)
        time(&w, "ended", run.endedAtMilliseconds)
        w.key("duration_ms"); if let ended = run.endedAtMilliseconds { w.int(max(0, ended - run.startedAtMilliseconds)) } else { w.null() }
        w.key("exit_status"); if let status = run.exitStatus { w.int(Int64(status)) } else { w.null() }
        w.key("stop_reason"); if let reason = run.stopReason { w.string(reason) } else { w.null() }
        w.key("counts")
        w.beginObject()
        for count in run.counts { w.key(count.name); w.int(count.value) }
        w.endObject()
        w.endObject()
    }

    private static func counts(_ w: inout JSONWriter, _ c: StatusCounts, hasMaxAge: Bool) {
        w.key("slices"); w.int(Int64(c.slices))
        w.key("proven"); w.int(Int64(c.proven))
        w.key("changed"); w.int(Int64(c.changed))
        w.key("moved"); w.int(Int64(c.moved))
        w.key("unproven"); w.int(Int64(c.unproven))
        w.key("stale"); w.int(Int64(c.stale))
        w.key("missing"); w.int(Int64(c.missing))
        w.key("resumable"); w.int(Int64(c.resumable))
        w.key("errors"); w.int(Int64(c.errors))
        w.key("older_than_max_age"); if hasMaxAge { w.int(Int64(c.olderThanMaxAge)) } else { w.null() }
    }

    /// `"NAME": "2026-11-25T09:00:00.000Z", "NAME_ms": 1764061200000`, or both `null`.
    private static func time(_ w: inout JSONWriter, _ name: String, _ milliseconds: Int64?) {
        w.key(name); if let ms = milliseconds { w.string(RFC3339.utc(milliseconds: ms)) } else { w.null() }
        w.key(name + "_ms"); if let ms = milliseconds { w.int(ms) } else { w.null() }
    }
}
