public import JobrunOutcome
import JobrunCore

/// The lines a person reads while a run goes, rendered from its events: a line per resource
/// (`+` fetched, `=` nothing to do, `-` skipped, `?` deferred, `!` failed), a line per failed slice, the
/// origins' breaker lines, and at the end the summary. Results go to `results` (stdout, or
/// stderr when stdout carries JSON); notices about the run itself go to `notices` (stderr).
public final class HumanLog: RunObserver {
    public enum Detail: Sendable {
        /// Problems and the summary only (`-q`).
        case quiet
        /// A line per resource and per problem.
        case normal
        /// And a line per slice that ended (`-v`).
        case verbose
    }

    let results: (String) -> Void
    let notices: (String) -> Void
    let detail: Detail
    private var stopReason: StopReason?
    /// The slices that did not finish, by the words every report uses: cut in flight by a stop
    /// (and how many of them kept a partial file to resume, or removed it, by why), or not started.
    private var cutInFlight = 0
    private var partialsKept = 0
    private var partialsDiscarded: [String: Int] = [:]
    private var notStarted = 0

    public init(detail: Detail = .normal, results: @escaping (String) -> Void, notices: @escaping (String) -> Void) {
        self.detail = detail
        self.results = results
        self.notices = notices
    }

    public func observe(_ event: RunEvent) {
        switch event {
        case .lockWaited(let root, let holder, let timeout):
            notices(
                "jobrun: waiting up to \(DurationParser.format(milliseconds: timeout.wholeMilliseconds)) for the output root '\(root)', locked by \(holder ?? "another process")\n"
            )
        case .resourceSkipped(let id, let reason):
            if detail != .quiet { results("- \(id): skipped (\(reason))\n") }
        case .resourceDeferred(let id, let deferral):
            if detail != .quiet { results("? \(id): \(deferral.message)\n") }
        case .deferralOverridden(let id, let causes):
            notices("jobrun: warning: '\(id)' has been deferred for its max_deferral; it runs despite: \(causes.map(\.detail).joined(separator: "; "))\n")
        case .resourceCompleted(let id, let counts):
            if detail != .quiet { results(Self.resourceLine(id, counts)) }
        case .resourceFailed(let id, _, let cause):
            results("! \(id): \(describe(cause))\n")
        case .sliceSettled(let settled):
            if settled.outcome.status == .skipped {
                if settled.outcome.failure?.kind == .interrupted {
                    cutInFlight += 1
                    switch settled.outcome.partial {
                    case .kept?: partialsKept += 1
                    case .discarded(let why)?: partialsDiscarded[why.description, default: 0] += 1
                    case nil: break
                    }
                } else {
                    notStarted += 1
                }
            }
            sliceLine(settled)
        case .sliceRetrying(let slice, let failure, let attempt, let delay) where detail == .verbose:
            results("~ \(slice.resource)/\(slice.path): \(Self.failureText(failure)) (\(slice.url), attempt \(attempt)); retrying in \(delay.secondsText)\n")
        case .origin(let origin, let change):
            originLine(origin, change)
        case .catalogRead(let report) where detail == .verbose && report.state != .refused:
            results("= \(report.line)\n")
        case .originUsage(let o) where detail == .verbose:
            results("= \(Self.usageText(o))\n")
        case .networkOffline(let origins, let wait):
            let which = origins.map { "\($0.origin): \(Self.failureText($0.failure))" }.joined(separator: "; ")
            results("! offline: no origin with work to do can be reached (\(which)); probing them, for up to \(wait.secondsText)\n")
        case .networkOnline(let origin, let after):
            results("= online: \(origin) answered after \(after.secondsText) offline; work resumes\n")
        case .stopRequested(let reason):
            stopReason = reason
            switch reason {
            case .signal(let s):
                notices(
                    "jobrun: stopping (signal \(s)); partial files that can be resumed are kept, the others removed (the summary counts them); a second signal exits at once\n"
                )
            case .deadline:
                notices("jobrun: stopping at the deadline; transfers in flight are cancelled, the partial files that can be resumed kept\n")
            case .offline:
                notices("jobrun: stopping: no origin answered for the whole --offline-wait; partial files that can be resumed are kept\n")
            }
        case .runEnded(let end):
            stopReason = end.stopReason ?? stopReason
            if cutInFlight + notStarted > 0 { results(unfinishedLine()) }
            if let line = end.summaryLine { results(line + "\n") }
        case .hookEnded(let end):
            hookLine(end)
        case .pruned(let prune):
            pruneLines(prune)
        case .published(let publication):
            publishLine(publication)
        case .runStarted, .catalogRead, .planned, .resourceStarted, .sliceRetrying, .progress, .synced, .hookStarted, .originUsage:
            break
        }
    }

    private func describe(_ cause: ResourceFailure) -> String {
        switch cause {
        case .slicesFailed(let count, let total): "\(count) of \(total) slices failed"
        case .unfinished(let count, let total, let reason):
            "\(Self.stopped(reason ?? stopReason)), \(count) of \(total) slices not finished"
        case .syncFailed(let message): "cannot sync the output folder: \(message)"
        }
    }

    private func sliceLine(_ s: SettledSlice) {
        let o = s.outcome
        let name = "\(s.slice.resource)/\(s.slice.path)"
        switch o.status {
        case .failed where !s.isBulk:
            let attempts = o.attempts == 1 ? "1 attempt" : "\(o.attempts) attempts"
            results("! \(name): \(o.failure.map(Self.failureText) ?? "failed") (\(s.slice.url), \(attempts))\n")
            // A slice with several URLs: where each attempt failed, in order.
            for f in o.failedAt { results("    failed at \(f.url): \(Self.failureText(f.failure))\n") }
        case .fetched, .resumed, .repaired:
            // Only a declared size or digest proves such a body whole: without either, say so.
            if o.hadUndeclaredLength && s.integrity == .unverified {
                results("? \(name): unverifiable: the response declared no length, so a connection cut short could not be told from the end (\(s.slice.url))\n")
            }
            if o.revalidation == .replaced, detail != .quiet {
                results("* \(name): replaced: its origin has a new version (\(ByteCount(o.bytesTransferred)), \(s.slice.url))\n")
            } else if o.status == .repaired, detail != .quiet {
                results(
                    "* \(name): repaired: the file on disk \(o.repairReason.map { "was wrong (\($0))" } ?? "was wrong") (\(ByteCount(o.bytesTransferred)), \(s.slice.url))\n"
                )
            } else if detail == .verbose {
                results("  \(name): \(o.status.rawValue) (\(ByteCount(o.bytesTransferred)), \(s.slice.url))\n")
            }
        case .upToDate where detail == .verbose:
            switch o.revalidation {
            case .notModified?: results("  \(name): revalidated: unchanged, 304 Not Modified (\(s.slice.url))\n")
            case .sameBytes?: results("  \(name): revalidated: unchanged, the same bytes came again (\(ByteCount(o.bytesTransferred)), \(s.slice.url))\n")
            case .replaced?, nil: break
            }
        case .skipped where detail == .verbose && !s.isBulk:
            results("  \(name): skipped (\(o.skipReason ?? "not started"))\n")
        default:
            break
        }
    }

    private func originLine(_ origin: String, _ change: OriginEvent) {
        switch change {
        case .tripped(let failures, let last):
            results("! \(origin): \(failures) attempts in a row failed (last: \(last)); no new requests but one probe at a time\n")
        case .recovered:
            results("= \(origin): answers again; requests resume\n")
        case .failing(let failures, let last, let count):
            results(
                "! \(origin): failing: \(failures) attempts in a row failed, probes included (last: \(last)); \(count) of its slices fail without a further request\n"
            )
        case .quarantined(let wrong, let last):
            results(
                "! \(origin): quarantined: wrong bytes for \(wrong) slices (last: \(last)); slices with another URL go elsewhere for the rest of the run, and the next runs until a day from now\n"
            )
        case .stillQuarantined(let until, let last):
            results(
                "= \(origin): quarantined by an earlier run until \(RFC3339.utc(milliseconds: until)) (last: \(last)); slices with another URL start elsewhere\n"
            )
        }
    }

    /// `Timeout: …`, or an HTTP failure's message alone (it starts with the status).
    static func failureText(_ failure: AttemptFailure) -> String {
        failure.kind == .http ? failure.message : "\(failure.kind.rawValue): \(failure.message)"
    }

    /// `Not finished: 2 cut in flight (1 partial file kept to resume; 1 discarded: no validator
    /// and no digest), 40 not started (the run was interrupted, or a dependency failed).`
    private func unfinishedLine() -> String {
        let why = stopReason.map { "the run was \(Self.stopped($0)), or a dependency failed" } ?? "a dependency failed"
        let discarded = partialsDiscarded.sorted { $0.key < $1.key }.map { "; \($0.value) discarded: \($0.key)" }.joined()
        let kept = "\(partialsKept) partial file\(partialsKept == 1 ? "" : "s") kept to resume\(discarded)"
        return "Not finished: \(cutInFlight) cut in flight (\(kept)), \(notStarted) not started (\(why)).\n"
    }

    /// How the Not finished line says the run stopped.
    static func stopped(_ reason: StopReason?) -> String {
        switch reason {
        case .deadline?: "stopped at the deadline"
        case .offline?: "stopped offline"
        case .signal?, nil: "interrupted"
        }
    }

    /// `+ id: 3 fetched, 1 up to date (12.0 KiB), 1 size only`, or `= id: 4 up to date`.
    public static func resourceLine(_ id: String, _ c: ApplyResult.Counts) -> String {
        var parts: [String] = []
        if c.fetched > 0 { parts.append("\(c.fetched) fetched") }
        if c.resumed > 0 { parts.append("\(c.resumed) resumed") }
        if c.repaired > 0 { parts.append("\(c.repaired) repaired") }
        if c.upToDate > 0 { parts.append("\(c.upToDate) up to date") }
        if c.deferred > 0 { parts.append("\(c.deferred) deferred") }
        let transferred = c.fetched + c.resumed + c.repaired > 0
        let sigil = transferred ? "+" : "="
        let size = transferred ? " (\(ByteCount(c.fetchedBytes)))" : ""
        var note = ""
        if c.withoutDigests.sizeOnly > 0 { note += ", \(c.withoutDigests.sizeOnly) size only" }
        if c.withoutDigests.unverified > 0 { note += ", \(c.withoutDigests.unverified) unverified" }
        if c.revalidated > 0 { note += ", \(c.revalidated) revalidated (\(c.unchanged) unchanged, \(c.replaced) replaced)" }
        return "\(sigil) \(id): \(parts.joined(separator: ", "))\(size)\(note)\n"
    }
}

extension HumanLog {
    /// `https://deb.example: 2000 requests over 2 connections (HTTP/2, 32 streams each), 31.6 in
    /// flight on average, 32 at most; limit 32` (`-v`); an adaptive limit says its path's end and peak.
    static func usageText(_ o: OriginUsageReport) -> String {
        let connections = "\(o.connections) connection\(o.connections == 1 ? "" : "s")"
        let over = o.streams > 1 ? "\(connections) (HTTP/2, \(o.streams) streams each)" : connections
        var text = "\(o.origin): \(o.requests) request\(o.requests == 1 ? "" : "s") over \(over), "
        text += "\((o.meanInFlight * 10).rounded() / 10) in flight on average, \(o.peakInFlight) at most"
        if let last = o.limitPath.last {
            if o.adaptive {
                let top = o.limitPath.map(\.limit).max() ?? last.limit
                let changes = o.limitPath.count - 1
                text += "; adaptive limit \(last.limit) at the end (\(top) at most, \(changes) change\(changes == 1 ? "" : "s"))"
            } else {
                text += "; limit \(last.limit)"
            }
        }
        if o.failures > 0 {
            text += "; \(o.failures) failed"
            if o.wrongAnswers > 0 { text += " (\(o.wrongAnswers) of the wrong size or digest)" }
        }
        if o.quarantined { text += "; quarantined" }
        return text
    }
}
