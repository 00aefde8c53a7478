import JobrunCore
import JobrunManifest
public import JobrunOutcome
import JobrunJSON

/// Each event's `type` and `data`, as docs/events.md describes them. Durations are whole
/// milliseconds (`…_ms`), sizes bytes; a field that does not apply is `null`, never left out, so
/// every type has one fixed set of keys. URLs are shown without query and fragment, as in every
/// other output.
extension EventStream {
    /// The event's `type`. A slice's end is `slice_done` (fetched, resumed, or up to date),
    /// `slice_failed`, or `slice_skipped` (not started, cut in flight by a stop, or deferred),
    /// so that a consumer can pick one kind by its type alone.
    public static func type(of event: RunEvent) -> String {
        switch event {
        case .runStarted: "run_start"
        case .catalogRead: "catalog"
        case .planned: "plan"
        case .lockWaited: "lock_wait"
        case .resourceStarted: "resource_start"
        case .resourceCompleted: "resource_done"
        case .resourceFailed: "resource_failed"
        case .resourceSkipped: "resource_skipped"
        case .resourceDeferred: "resource_deferred"
        case .deferralOverridden: "deferral_overridden"
        case .sliceSettled(let settled):
            switch settled.outcome.status {
            case .fetched, .resumed, .repaired, .upToDate: "slice_done"
            case .failed: "slice_failed"
            case .skipped, .deferred: "slice_skipped"
            }
        case .sliceRetrying: "slice_retry"
        case .origin: "origin"
        case .networkOffline: "network_offline"
        case .networkOnline: "network_online"
        case .progress: "progress"
        case .stopRequested: "stop_requested"
        case .hookStarted: "hook_start"
        case .hookEnded: "hook_end"
        case .originUsage: "origin_usage"
        case .pruned: "prune"
        case .published: "publish"
        case .runEnded: "run_end"
        case .synced: "synced"  // never written (`observe` leaves it out)
        }
    }

    static func writeData(of event: RunEvent, into w: inout JSONWriter) {
        if case .planned(let counts) = event {
            // The same object as `plan --json`'s per-resource counts.
            PlanJSON.writeCounts(counts, resources: nil, into: &w)
            return
        }
        w.beginObject()
        switch event {
        case .runStarted(let start):
            w.key("jobrun_version"); w.string(JobrunVersion.current)
            w.key("command"); w.string(start.command)
            w.key("argv"); w.strings(start.arguments)
            w.key("manifests_sha256"); optional(start.manifestsDigest, &w)
        case .planned, .synced:
            break
        case .catalogRead(let report):
            w.catalogFields(report)
        case .lockWaited(let root, let holder, let timeout):
            w.key("root"); w.string(root)
            w.key("holder"); optional(holder, &w)
            w.key("timeout_ms"); w.int(timeout.wholeMilliseconds)
        case .resourceStarted(let id):
            w.key("resource"); w.string(id)
        case .resourceCompleted(let id, let counts):
            w.key("resource"); w.string(id)
            w.key("counts"); writeCounts(counts.named, &w)
        case .resourceFailed(let id, let counts, let cause):
            w.key("resource"); w.string(id)
            w.key("counts"); writeCounts(counts.named, &w)
            writeCause(cause, &w)
        case .resourceSkipped(let id, let reason):
            w.key("resource"); w.string(id)
            w.key("reason"); w.string(reason)
        case .resourceDeferred(let id, let deferral):
            w.key("resource"); w.string(id)
            w.deferralFields(deferral)
        case .deferralOverridden(let id, let causes):
            w.key("resource"); w.string(id)
            w.causeFields(causes)
        case .sliceSettled(let settled):
            writeSettled(settled, &w)
        case .sliceRetrying(let slice, let failure, let attempt, let delay):
            writeSlice(slice, &w)
            w.key("attempt"); w.int(Int64(attempt))
            w.key("delay_ms"); w.int(delay.wholeMilliseconds)
            w.key("error"); w.attemptFailure(failure)
        case .origin(let origin, let change):
            w.key("origin"); w.string(origin)
            writeOrigin(change, &w)
        case .networkOffline(let origins, let wait):
            w.key("origins")
            w.beginArray()
            for o in origins {
                w.beginObject()
                w.key("origin"); w.string(o.origin)
                w.key("error"); w.attemptFailure(o.failure)
                w.endObject()
            }
            w.endArray()
            w.key("wait_ms"); w.int(wait.wholeMilliseconds)
        case .networkOnline(let origin, let after):
            w.key("origin"); w.string(origin)
            w.key("offline_ms"); w.int(after.wholeMilliseconds)
        case .progress(let p):
            writeProgress(p, &w)
        case .originUsage(let usage):
            w.originUsageFields(usage)
        case .pruned(let prune):
            w.pruneFields(prune)
        case .published(let publication):
            w.publishFields(publication)
        case .stopRequested(let reason):
            w.key("reason"); w.string(reason.code)
            w.key("signal"); optional(reason.signal.map(Int64.init), &w)
        case .hookStarted(let hook):
            writeHook(hook, &w)
        case .hookEnded(let end):
            writeHookEnd(end, &w)
        case .runEnded(let end):
            w.key("exit_status"); w.int(Int64(end.exitStatus))
            w.key("stop_reason"); optional(end.stopReason?.code, &w)
            w.key("signal"); optional(end.stopReason?.signal.map(Int64.init), &w)
            w.key("counts"); writeCounts(end.counts, &w)
            w.key("summary"); optional(end.summaryLine, &w)
            w.key("elapsed_ms"); w.int(end.elapsed.wholeMilliseconds)
        }
        w.endObject()
    }

    static func optional(_ value: String?, _ w: inout JSONWriter) {
        if let value { w.string(value) } else { w.null() }
    }

    static func optional(_ value: Int64?, _ w: inout JSONWriter) {
        if let value { w.int(value) } else { w.null() }
    }

    private static func writeCounts(_ counts: [(name: String, value: Int64)], _ w: inout JSONWriter) {
        w.beginObject()
        for (name, value) in counts { w.key(name); w.int(value) }
        w.endObject()
    }

    private static func writeSlice(_ slice: SliceRef, _ w: inout JSONWriter) {
        w.key("resource"); w.string(slice.resource)
        w.key("path"); w.string(slice.path)
        w.key("url"); w.string(slice.url)
    }

    private static func writeCause(_ cause: ResourceFailure, _ w: inout JSONWriter) {
        let (name, affected, total, message): (String, Int?, Int?, String?) =
            switch cause {
            case .slicesFailed(let count, let total): ("slices_failed", count, total, nil)
            case .unfinished(let count, let total, _): ("unfinished", count, total, nil)
            case .syncFailed(let message): ("sync_failed", nil, nil, message)
            }
        w.key("cause"); w.string(name)
        w.key("slices_affected"); optional(affected.map(Int64.init), &w)
        w.key("slices_total"); optional(total.map(Int64.init), &w)
        w.key("message"); optional(message, &w)
    }

    private static func writeSettled(_ settled: SettledSlice, _ w: inout JSONWriter) {
        let o = settled.outcome
        writeSlice(settled.slice, &w)
        w.sliceOrigin(of: settled.slice.url)
        w.failedAt(o.failedAt)
        w.key("status"); w.string(o.status.rawValue)
        w.key("attempts"); w.int(Int64(o.attempts))
        w.key("bytes_transferred"); w.int(o.bytesTransferred)
        switch o.status {
        case .fetched, .resumed, .repaired, .upToDate:
            if let reason = o.repairReason { w.key("repaired_because"); w.string(reason) }
            if let revalidation = o.revalidation { w.key("revalidation"); w.string(revalidation.rawValue) }
            w.key("size"); optional(o.size, &w)
            w.key("integrity"); w.string(settled.integrity.rawValue)
            // Whether the protocol marked the fetched body's end; null when nothing was fetched.
            w.key("length_declared"); if o.status == .upToDate { w.null() } else { w.bool(!o.hadUndeclaredLength) }
            w.key("sha256"); optional(o.sha256?.hex, &w)
            w.key("http_version"); optional(o.httpVersion, &w)
            w.key("duration_ms"); w.int(o.duration.wholeMilliseconds)
        case .failed:
            w.key("error")
            w.attemptFailure(o.failure ?? AttemptFailure(kind: .other, message: "failed", isTransient: false))
            w.key("duration_ms"); w.int(o.duration.wholeMilliseconds)
            w.key("bulk"); w.bool(settled.isBulk)
        case .skipped, .deferred:
            let cutInFlight = o.failure?.kind == .interrupted
            w.key("reason"); optional(o.skipReason ?? o.failure?.message ?? (o.status == .deferred ? "deferred by the network policy" : nil), &w)
            w.key("cut_in_flight"); w.bool(cutInFlight)
            w.key("partial_kept"); w.bool(o.keptPartial)
            w.key("partial_discarded"); optional(o.discardedPartial?.description, &w)
            w.key("bulk"); w.bool(settled.isBulk)
        }
    }

    private static func writeOrigin(_ change: OriginEvent, _ w: inout JSONWriter) {
        let (state, failures, last, slicesFailed, wrong, until): (String, Int?, String?, Int?, Int?, Int64?) =
            switch change {
            case .tripped(let failures, let last): ("tripped", failures, last, nil, nil, nil)
            case .recovered: ("recovered", nil, nil, nil, nil, nil)
            case .failing(let failures, let last, let count): ("failing", failures, last, count, nil, nil)
            case .quarantined(let wrong, let last): ("quarantined", nil, last, nil, wrong, nil)
            case .stillQuarantined(let until, let last): ("still_quarantined", nil, last, nil, nil, until)
            }
        w.key("state"); w.string(state)
        w.key("failures_in_a_row"); optional(failures.map(Int64.init), &w)
        w.key("last_error"); optional(last, &w)
        w.key("slices_failed"); optional(slicesFailed.map(Int64.init), &w)
        w.key("wrong_answers"); optional(wrong.map(Int64.init), &w)
        w.key("until"); optional(until.map { RFC3339.utc(milliseconds: $0) }, &w)
    }

    private static func writeProgress(_ p: RunProgress, _ w: inout JSONWriter) {
        w.key("fraction"); w.double((p.fraction * 10_000).rounded() / 10_000)
        w.key("slices_total"); w.int(Int64(p.slicesTotal))
        w.key("slices_to_transfer"); w.int(Int64(p.slicesToTransfer))
        w.key("slices_settled"); w.int(Int64(p.slicesSettled))
        w.key("bytes_to_transfer"); w.int(p.bytesToTransfer)
        w.key("unsized_to_transfer"); w.int(Int64(p.unsizedToTransfer))
        w.key("bytes_settled"); w.int(p.bytesSettled)
        w.key("bytes_in_flight"); w.int(p.bytesInFlight)
        w.key("bytes_received"); w.int(p.bytesReceived)
        w.key("bytes_remaining"); optional(p.bytesRemaining, &w)
        w.key("running"); w.int(Int64(p.running))
        w.key("retrying"); w.int(Int64(p.retrying))
        w.key("offline_ms"); optional(p.offlineFor?.wholeMilliseconds, &w)
        w.key("counts"); writeCounts(p.counts.named, &w)
        w.key("active_resources"); w.strings(p.activeResources)
        w.key("active_count"); w.int(Int64(p.activeCount))
        w.key("origins")
        w.beginArray()
        for o in p.origins {
            w.beginObject()
            w.key("origin"); w.string(o.origin)
            w.key("running"); w.int(Int64(o.running))
            w.key("limit"); optional(o.limit.map(Int64.init), &w)
            w.endObject()
        }
        w.endArray()
        w.key("origin_count"); w.int(Int64(p.originCount))
        w.key("elapsed_ms"); w.int(p.elapsed.wholeMilliseconds)
    }
}
