import JobrunCore

/// `--metrics-file`: a run in the Prometheus text format, for node_exporter's textfile collector.
/// Every series has a `command` label, so that `apply`, `verify` and `status` may write files
/// side by side in the collector's folder. The last success times are carried over from the file
/// this one replaces when the run did not succeed: an alert on their age goes on counting
/// through failed runs.
public enum MetricsReport {
    /// Exit statuses of runs that did not fail: complete, or stopped (75: the deadline, offline, a
    /// locked root; 130, 143: a signal) with what they did kept for the next run.
    static func continuesLater(_ status: Int32) -> Bool {
        [ExitStatus.ok, .locked, .interrupted, .terminated].contains { $0.rawValue == status }
    }

    /// The file's text for `run`; `previous` holds the samples of the file it replaces.
    public static func render(_ run: RunMetrics, previous: [PrometheusSample] = []) -> [UInt8] {
        var out = PrometheusText()
        let command = [("command", run.command)] + run.labels
        let endedAt = Double(run.endedAtMilliseconds) / 1000
        // The last successes the replaced file gives, of this command: the run's (key "") and
        // each resource's.
        var carried: [String: Double] = [:]
        for sample in previous where sample.labels["command"] == run.command && sample.value.isFinite {
            switch sample.name {
            case "jobrun_run_last_success_timestamp_seconds": carried[""] = sample.value
            case "jobrun_resource_last_success_timestamp_seconds": if let id = sample.labels["resource"], !id.isEmpty { carried[id] = sample.value }
            default: break
            }
        }

        out.family("jobrun_run_info", .gauge, help: "The last run: its id, jobrun's version and why it stopped early (empty when it went to its end).")
        out.sample(
            "jobrun_run_info", command + [("run_id", run.runID), ("version", JobrunVersion.current), ("stop_reason", run.stopReason ?? "")], 1)
        out.family("jobrun_run_exit_status", .gauge, help: "The status the last run exited with (0: success).")
        out.sample("jobrun_run_exit_status", command, Double(run.exitStatus))
        out.family("jobrun_run_success", .gauge, help: "1 when the last run exited 0, else 0.")
        out.sample("jobrun_run_success", command, run.exitStatus == 0 ? 1 : 0)
        out.family(
            "jobrun_run_failed", .gauge,
            help:
                "1 when the last run failed: an exit status other than 0, 75 (stopped by the deadline or offline, or a locked output root) and 130 or 143 (stopped by a signal); those continue at the next run."
        )
        out.sample("jobrun_run_failed", command, Self.continuesLater(run.exitStatus) ? 0 : 1)
        out.family("jobrun_run_duration_seconds", .gauge, help: "How long the last run took.")
        out.sample("jobrun_run_duration_seconds", command, Double(run.duration.wholeMilliseconds) / 1000)
        out.family("jobrun_run_end_timestamp_seconds", .gauge, help: "When the last run ended, in seconds since the epoch.")
        out.sample("jobrun_run_end_timestamp_seconds", command, endedAt)
        let runSuccess = run.exitStatus == 0 ? endedAt : carried[""]
        if let runSuccess {
            out.family("jobrun_run_last_success_timestamp_seconds", .gauge, help: "When a run last exited 0, in seconds since the epoch.")
            out.sample("jobrun_run_last_success_timestamp_seconds", command, runSuccess)
        }

        if !run.resources.isEmpty {
            out.family(
                "jobrun_resource_slices", .gauge, help: "Slices of the resource by state at the run's end (proven, missing, failed, deferred, unproven).")
            for r in run.resources {
                for state in RunMetrics.SliceState.allCases {
                    out.sample("jobrun_resource_slices", command + [("resource", r.id), ("state", state.rawValue)], Double(r.slices[state] ?? 0))
                }
            }
        }
        let fetched = run.resources.filter { $0.fetchedBytes != nil }
        if !fetched.isEmpty {
            out.family("jobrun_resource_fetched_bytes_total", .counter, help: "Bytes the last run fetched for the resource.")
            for r in fetched { out.sample("jobrun_resource_fetched_bytes_total", command + [("resource", r.id)], Double(r.fetchedBytes ?? 0)) }
        }
        // The resources of this run and those whose catalog was refused; all of the replaced
        // file's when the run ended before it knew its resources.
        var successes: [(String, Double)] = []
        for r in run.resources {
            if let at = r.lastSuccessAtMilliseconds {
                successes.append((r.id, Double(at) / 1000))
            } else if let at = carried[r.id] {
                successes.append((r.id, at))
            }
        }
        let named = Set(run.resources.map(\.id))
        let alsoCarried = run.resources.isEmpty ? carried.keys.filter { !$0.isEmpty }.sorted() : run.refusedCatalogs
        for id in alsoCarried where !named.contains(id) {
            if let at = carried[id] { successes.append((id, at)) }
        }
        if !successes.isEmpty {
            out.family(
                "jobrun_resource_last_success_timestamp_seconds", .gauge,
                help: "When every slice of the resource was last proven, in seconds since the epoch.")
            for (id, at) in successes { out.sample("jobrun_resource_last_success_timestamp_seconds", command + [("resource", id)], at) }
        }
        let proofs = run.resources.compactMap { r in r.oldestProofAtMilliseconds.map { (r.id, $0) } }
        if !proofs.isEmpty {
            out.family(
                "jobrun_resource_oldest_proof_timestamp_seconds", .gauge,
                help: "When the resource's least recently proven slice was proven, in seconds since the epoch (every slice proven).")
            for (id, at) in proofs { out.sample("jobrun_resource_oldest_proof_timestamp_seconds", command + [("resource", id)], Double(at) / 1000) }
            out.family("jobrun_resource_proof_age_seconds", .gauge, help: "Age of the resource's oldest proof when the run ended.")
            for (id, at) in proofs {
                out.sample("jobrun_resource_proof_age_seconds", command + [("resource", id)], Double(max(0, run.endedAtMilliseconds - at)) / 1000)
            }
        }
        if !run.refusedCatalogs.isEmpty {
            out.family("jobrun_catalog_refused", .gauge, help: "1 for a resource whose catalog the run refused: nothing of it was planned or fetched.")
            for id in run.refusedCatalogs { out.sample("jobrun_catalog_refused", command + [("resource", id)], 1) }
        }

        if !run.origins.isEmpty {
            let origins = run.origins.sorted { $0.origin < $1.origin }
            out.family("jobrun_origin_requests_total", .counter, help: "Requests the last run sent to the origin.")
            for o in origins { out.sample("jobrun_origin_requests_total", command + [("origin", o.origin)], Double(o.requests)) }
            out.family("jobrun_origin_failures_total", .counter, help: "Attempts at the origin that failed in the last run.")
            for o in origins { out.sample("jobrun_origin_failures_total", command + [("origin", o.origin)], Double(o.failures)) }
            out.family("jobrun_origin_received_bytes_total", .counter, help: "Bytes the last run received from the origin.")
            for o in origins { out.sample("jobrun_origin_received_bytes_total", command + [("origin", o.origin)], Double(o.bytes)) }
            out.family("jobrun_origin_quarantined", .gauge, help: "1 when the origin was quarantined for wrong answers at the last run's end.")
            for o in origins { out.sample("jobrun_origin_quarantined", command + [("origin", o.origin)], o.quarantined ? 1 : 0) }
        }
        return out.bytes
    }
}
