import JobrunCore
public import JobrunManifest
public import JobrunOutcome
import JobrunJSON

/// `apply` results for programs (JSON) and for CI (JUnit).
public enum ApplyReports {
    static func seconds(_ d: Duration) -> Double {
        let (s, atto) = d.components
        return Double(s) + Double(atto / 1_000_000_000_000) / 1_000_000
    }

    /// `jobrun apply --json`: one record per slice (identity, destination, status, bytes, attempts,
    /// digests, integrity, computed digests, timings, error). Versioned by `format_version`;
    /// secrets never appear (URLs are shown without their query). `run_id` is the run's id
    /// (``RunID``), when given; `shard` the shard the run was (`--shard`), `null` without one.
    /// The document's `format_version`: 2 since a slice's `status` may be `repaired` (with
    /// `repaired_because`, and `summary.repaired`) and is spelt `up_to_date` like its count.
    public static let formatVersion: Int64 = 2

    public static func json(_ result: ApplyResult, runID: String? = nil, shard: ShardSelection? = nil) -> [UInt8] {
        let c = result.counts
        var w = JSONWriter(pretty: true)
        w.beginObject()
        w.key("format_version"); w.int(Self.formatVersion)
        w.key("jobrun_version"); w.string(JobrunVersion.current)
        if let runID { w.key("run_id"); w.string(runID) }
        w.key("shard"); w.shard(shard)
        w.key("summary")
        w.beginObject()
        w.key("fetched"); w.int(Int64(c.fetched))
        w.key("resumed"); w.int(Int64(c.resumed))
        w.key("repaired"); w.int(Int64(c.repaired))
        w.key("bytes_transferred"); w.int(c.fetchedBytes)
        w.key("up_to_date"); w.int(Int64(c.upToDate))
        w.key("failed"); w.int(Int64(c.failed))
        w.key("skipped"); w.int(Int64(c.skipped))
        w.key("deferred"); w.int(Int64(c.deferred))
        w.key("size_only"); w.int(Int64(c.withoutDigests.sizeOnly))
        w.key("unverified"); w.int(Int64(c.withoutDigests.unverified))
        w.key("revalidated"); w.int(Int64(c.revalidated))
        w.key("unchanged"); w.int(Int64(c.unchanged))
        w.key("replaced"); w.int(Int64(c.replaced))
        w.key("pruned"); w.int(Int64(c.pruned))
        w.key("success"); w.bool(result.isSuccess)
        w.key("interrupted_by_signal"); if let s = result.stopReason?.signal { w.int(Int64(s)) } else { w.null() }
        w.key("stop_reason"); if let r = result.stopReason { w.string(r.code) } else { w.null() }
        if result.stopReason != nil {
            // What the same command continues (cut in flight, kept) and starts (not started).
            let r = result.remaining
            w.key("remaining")
            w.beginObject()
            w.key("cut_in_flight"); w.int(Int64(r.cutInFlight))
            w.key("partials_kept"); w.int(Int64(r.kept))
            w.key("partials_discarded"); w.int(Int64(r.discarded))
            w.key("not_started"); w.int(Int64(r.notStarted))
            w.key("not_started_bytes"); w.int(r.notStartedBytes)
            w.key("not_started_unsized"); w.int(Int64(r.unsized))
            w.endObject()
        }
        w.key("elapsed_seconds"); w.double(seconds(result.elapsed))
        w.key("offline_seconds"); w.double(seconds(result.offline))
        if !result.hooks.isEmpty { w.key("hooks_failed"); w.int(Int64(result.failedHookCount)) }
        w.endObject()
        w.key("resources")
        w.beginArray()
        for entry in result.entries {
            let r = entry.resource
            w.beginObject()
            w.key("id"); w.string(r.id)
            w.key("complete"); w.bool(entry.isComplete)
            w.deferral(entry.deferral)
            w.key("slices")
            w.beginArray()
            for (s, o) in zip(r.slices, entry.outcomes) {
                w.beginObject()
                w.key("path"); w.string(s.path)
                let identity = r.identity(of: s)
                w.key("identity"); w.string(identity)
                let url = o.displayURL ?? identity
                w.key("url"); w.string(url)
                w.sliceOrigin(of: url)
                w.key("file"); w.string(r.filePath(of: s))
                w.key("status"); w.string(o.status.rawValue)
                if let reason = o.repairReason { w.key("repaired_because"); w.string(reason) }
                if let revalidation = o.revalidation { w.key("revalidation"); w.string(revalidation.rawValue) }
                w.key("bytes_transferred"); w.int(o.bytesTransferred)
                w.key("size"); if let size = o.size { w.int(size) } else { w.null() }
                w.key("attempts"); w.int(Int64(o.attempts))
                w.key("digests")
                w.beginObject()
                for d in o.digests { w.key(d.algorithm.rawValue); w.string(d.hex) }
                w.endObject()
                w.key("integrity"); w.string(s.integrity.rawValue)
                // Whether the protocol marked the fetched body's end; null when nothing was fetched.
                w.key("length_declared");
                if o.status == .fetched || o.status == .resumed || o.status == .repaired { w.bool(!o.hadUndeclaredLength) } else { w.null() }
                w.key("computed_digests")
                w.beginObject()
                for d in o.computedDigests { w.key(d.algorithm.rawValue); w.string(d.hex) }
                w.endObject()
                w.key("seconds"); w.double(seconds(o.duration))
                w.key("http_version"); if let v = o.httpVersion { w.string(v) } else { w.null() }
                // A failed slice's last error, and a slice cut in flight by a stop (its error
                // says so, so that a reader need not match its skip reason's words).
                if let f = o.failure, o.status == .failed || (o.status == .skipped && f.kind == .interrupted) {
                    w.key("error")
                    w.beginObject()
                    w.key("type"); w.string(f.typeName)
                    w.key("message"); w.string(f.message)
                    if !f.actualDigests.isEmpty {
                        w.key("actual_digests")
                        w.beginObject()
                        for d in f.actualDigests { w.key(d.algorithm.rawValue); w.string(d.hex) }
                        w.endObject()
                    }
                    w.endObject()
                }
                w.failedAt(o.failedAt)
                if let reason = o.skipReason { w.key("skip_reason"); w.string(reason) }
                if let why = o.discardedPartial { w.key("partial_discarded"); w.string(why.description) }
                w.endObject()
            }
            w.endArray()
            writeHooks(of: r.id, in: result, into: &w)
            w.endObject()
        }
        w.endArray()
        w.key("prune")
        if let prune = result.prune {
            w.beginObject()
            w.pruneFields(prune)
            w.endObject()
        } else {
            w.null()
        }
        w.key("publications")
        w.beginArray()
        for publication in result.publications {
            w.beginObject()
            w.publishFields(publication)
            w.endObject()
        }
        w.endArray()
        w.catalogs(result.catalogs)
        w.key("origins")
        w.beginArray()
        for origin in result.origins {
            w.beginObject()
            w.originUsageFields(origin)
            w.endObject()
        }
        w.endArray()
        w.endObject()
        return w.finish()
    }

    /// One `<testsuite>` per resource, one `<testcase>` per slice: passed; `<failure>` for
    /// ChecksumMismatch and SizeMismatch; `<error type="HTTP404|HTTP503|Timeout|TLS|Connect|DiskFull|…">`
    /// with attempts, bytes and the last error; `<error type="Interrupted">` for a slice cut in
    /// flight by a stop; `<skipped>` for slices not started. A stopped run ends with one more
    /// suite, `jobrun`, whose single test case is an `<error type="Interrupted">`: a consumer that
    /// reads only the XML (Jenkins, GitLab) shows the incomplete run as failed even when no slice
    /// was in flight. Slices that passed without a digest are listed in the suite's `<system-out>`
    /// (``IntegrityNotes``). Every suite's properties name the run (`run_id`), when given.
    public static func junit(_ result: ApplyResult, timestamp: JUnitReport.Timestamp, hostname: String, runID: String? = nil) -> JUnitReport {
        var report = JUnitReport(
            suites: result.entries.map { entry in
                let r = entry.resource
                var notes = IntegrityNotes()
                let cases = zip(r.slices, entry.outcomes).map { s, o -> JUnitReport.TestCase in
                    let failedAt = o.failedAt.map { failedAtLine(url: $0.url, type: $0.failure.typeName, message: $0.failure.message) }
                    var text = caseText(
                        file: r.filePath(of: s), url: o.displayURL ?? r.identity(of: s), attempts: Int64(o.attempts), bytes: o.bytesTransferred,
                        lastError: o.failure?.message, failedAt: failedAt)
                    if let actual = o.failure?.actualDigests, !actual.isEmpty {
                        text += "\n" + Digest.comparisonLines(expected: s.digests, actual: actual).dropLast()
                    }
                    let outcome: JUnitReport.TestCase.Result
                    switch o.status {
                    case .fetched, .resumed, .repaired, .upToDate:
                        outcome = .passed
                        notes.note(s.path, s.integrity, sha256: o.sha256, lengthUndeclared: o.hadUndeclaredLength)
                        notes.note(s.path, servedBy: o.displayURL ?? r.identity(of: s), after: failedAt)
                        if let revalidation = o.revalidation { notes.note(s.path, revalidated: revalidation) }
                    case .failed:
                        let f = o.failure ?? AttemptFailure(kind: .other, message: "failed", isTransient: false)
                        outcome = failedCase(type: f.typeName, message: f.message, text: text)
                    case .skipped where o.failure?.kind == .interrupted:
                        outcome = .error(type: SliceErrorKind.interrupted.rawValue, message: o.failure?.message ?? "interrupted", text: text)
                    case .skipped:
                        outcome = .skipped(message: o.skipReason ?? "not started")
                    case .deferred:
                        outcome = .skipped(message: o.skipReason ?? "deferred by the network policy")
                    }
                    return JUnitReport.TestCase(classname: r.id, name: s.path, time: o.duration, result: outcome)
                }
                let prune = pruneCase(of: r.id, in: result, notes: &notes)
                return JUnitReport.Suite(
                    name: r.id, package: "jobrun.apply", timestamp: timestamp, hostname: hostname,
                    properties: JUnitReport.Property.describing(r, runID: runID),
                    testCases: cases + hookCases(of: r.id, in: result) + prune, systemOut: notes.systemOut)
            })
        // A resource refused for its catalog has no entry: a suite of its own says why.
        for refused in result.catalogs where refused.state == .refused {
            let message = refused.error ?? "its catalog was refused"
            let catalog = JUnitReport.TestCase(
                classname: refused.resource, name: "catalog", time: .zero,
                result: .error(type: "catalog_refused", message: message, text: "catalog: \(refused.url)\n\(message)\nnothing of the resource was fetched"))
            report.suites.append(
                JUnitReport.Suite(name: refused.resource, package: "jobrun.apply", timestamp: timestamp, hostname: hostname, testCases: [catalog]))
        }
        if let reason = result.stopReason {
            report.suites.append(incompleteRun(result, reason: reason, timestamp: timestamp, hostname: hostname, runID: runID))
        }
        return report

    }

    /// The resource's prune as a test case (`prune`), when the run's prune had files of it to
    /// remove: passed when they went to the trash (listed in the suite's `<system-out>`), a
    /// `<failure type="PruneRefused">` over the limit or `type="PruneFailed"` for files that could
    /// not be moved, `<skipped>` when the run did not complete.
    static func pruneCase(of id: String, in result: ApplyResult, notes: inout IntegrityNotes) -> [JUnitReport.TestCase] {
        guard let prune = result.prune else { return [] }
        let files = prune.files.filter { $0.planned.resource == id }
        guard !files.isEmpty else { return [] }
        let outcome: JUnitReport.TestCase.Result
        switch prune.state {
        case .pruned:
            for file in files { notes.note(pruned: file) }
            let failed = files.filter { $0.error != nil }
            outcome =
                failed.isEmpty
                ? .passed
                : .failure(
                    type: "PruneFailed", message: "\(failed.count) of \(files.count) files could not be moved to the trash",
                    text: failed.map { "\($0.planned.file): \($0.error ?? "")" }.joined(separator: "\n"))
        case .refused(let reason):
            outcome = .failure(type: "PruneRefused", message: reason, text: files.map(\.planned.file).joined(separator: "\n"))
        case .notRun(let reason):
            outcome = .skipped(message: reason)
        }
        return [JUnitReport.TestCase(classname: id, name: "prune", time: .zero, result: outcome)]
    }

    /// A slice's test case text: where its file is, what was asked, how often, what came, and
    /// (`failedAt`, one line each) where its attempts failed when it has several URLs.
    static func caseText(file: String, url: String, attempts: Int64, bytes: Int64, lastError: String?, failedAt: [String] = []) -> String {
        "file: \(file)\nurl: \(url)\nattempts: \(attempts)\nbytes received: \(bytes)\nlast error: \(lastError ?? "none")"
            + failedAt.map { "\nfailed at: " + $0 }.joined()
    }

    /// A failed attempt at one of a slice's URLs, as a line of its test case text.
    static func failedAtLine(url: String, type: String, message: String) -> String {
        "\(url): \(type): \(message)"
    }

    /// A failed slice's result: `<failure>` when the check ran and said no (a digest or size
    /// mismatch), `<error>` when it could not run.
    static func failedCase(type: String, message: String, text: String) -> JUnitReport.TestCase.Result {
        let isMismatch = type == SliceErrorKind.checksumMismatch.rawValue || type == SliceErrorKind.sizeMismatch.rawValue
        return isMismatch ? .failure(type: type, message: message, text: text) : .error(type: type, message: message, text: text)
    }

    /// The suite that marks a stopped run as failed: why it stopped and what it left unfinished.
    static func incompleteRun(
        _ result: ApplyResult, reason: StopReason, timestamp: JUnitReport.Timestamp, hostname: String, runID: String?
    ) -> JUnitReport.Suite {
        let remaining = result.remaining
        let (inFlight, notStarted) = (remaining.cutInFlight, remaining.notStarted)
        let name = reason.description
        let message = "the run was stopped by \(name) before it finished: \(inFlight) slices cut in flight, \(notStarted) not started"
        let run = JUnitReport.TestCase(
            classname: "jobrun", name: "run", time: result.elapsed,
            result: .error(
                type: SliceErrorKind.interrupted.rawValue, message: message, text: message + "\nthe mirror is incomplete; run apply again to finish it"))
        return JUnitReport.Suite(
            name: "jobrun", package: "jobrun.apply", timestamp: timestamp, hostname: hostname, time: result.elapsed,
            properties: [.init(name: "stop_reason", value: name), .init(name: "jobrun_version", value: JobrunVersion.current)]
                + (runID.map { [.init(name: "run_id", value: $0)] } ?? []),
            testCases: [run])
    }

    /// `apply --record-sums`: per resource (in plan order), the SHA-256 of every slice that
    /// passed, slice by slice (after `ApplyResult.computeMissingSHA256`).
    public static func checksumLists(_ result: ApplyResult) -> [(id: String, list: ChecksumList)] {
        result.entries.map { entry in
            var list = ChecksumList()
            for (s, o) in zip(entry.resource.slices, entry.outcomes) where o.hasPassed {
                if let sha256 = o.sha256 { list.lines.append(.init(path: s.path, digest: sha256)) }
            }
            return (entry.resource.id, list)
        }
    }
}
