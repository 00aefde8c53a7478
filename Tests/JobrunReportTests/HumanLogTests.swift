import JobrunCore
import JobrunManifest
import Testing
@testable import JobrunOutcome
@testable import JobrunReport

/// The human log renders events as the lines apply has always printed, and the plain progress
/// line says percent, bytes, rate and ETA with the run id.
@Suite struct HumanLogTests {
    final class Lines {
        var results: [String] = []
        var notices: [String] = []
    }

    static func log(_ detail: HumanLog.Detail = .normal) -> (HumanLog, Lines) {
        let lines = Lines()
        return (HumanLog(detail: detail, results: { lines.results.append($0) }, notices: { lines.notices.append($0) }), lines)
    }

    static let ref = SliceRef(resource: "r", path: "a/b.ts", url: "http://h/a/b.ts")

    static func settled(
        _ status: SliceOutcome.Status, failure: AttemptFailure? = nil, attempts: Int = 1, bulk: Bool = false, integrity: SliceIntegrity = .digest,
        undeclared: Bool = false
    ) -> RunEvent {
        var o = SliceOutcome(status: status, bytesTransferred: 2048, attempts: attempts, failure: failure, displayURL: "http://h/a/b.ts")
        o.hadUndeclaredLength = undeclared
        return .sliceSettled(SettledSlice(slice: ref, outcome: o, integrity: integrity, isBulk: bulk))
    }

    @Test func failuresResourcesAndOrigins() {
        let (log, lines) = Self.log()
        var counts = ApplyResult.Counts()
        counts.fetched = 3
        counts.fetchedBytes = 3072
        counts.upToDate = 1
        counts.withoutDigests.sizeOnly = 1
        log.observe(Self.settled(.failed, failure: AttemptFailure(kind: .http, status: 404, message: "HTTP 404", isTransient: false)))
        log.observe(Self.settled(.failed, failure: AttemptFailure(kind: .timeout, message: "no data received for 60 s", isTransient: true), attempts: 3))
        log.observe(Self.settled(.failed, failure: AttemptFailure(kind: .originFailing, message: "not requested", isTransient: false), bulk: true))
        log.observe(.resourceCompleted(id: "r", counts: counts))
        log.observe(.resourceFailed(id: "q", counts: counts, cause: .slicesFailed(count: 2, total: 9)))
        log.observe(.resourceSkipped(id: "s", reason: "depends on 'q', which did not complete"))
        log.observe(.origin("http://h", .tripped(failures: 32, last: "HTTP 503")))
        log.observe(.origin("http://h", .recovered))
        log.observe(.origin("http://h", .failing(failures: 40, last: "Connect: refused", slicesFailed: 7)))
        #expect(
            lines.results == [
                "! r/a/b.ts: HTTP 404 (http://h/a/b.ts, 1 attempt)\n",
                "! r/a/b.ts: Timeout: no data received for 60 s (http://h/a/b.ts, 3 attempts)\n",
                "+ r: 3 fetched, 1 up to date (3.0 KiB), 1 size only\n",
                "! q: 2 of 9 slices failed\n",
                "- s: skipped (depends on 'q', which did not complete)\n",
                "! http://h: 32 attempts in a row failed (last: HTTP 503); no new requests but one probe at a time\n",
                "= http://h: answers again; requests resume\n",
                "! http://h: failing: 40 attempts in a row failed, probes included (last: Connect: refused); 7 of its slices fail without a further request\n",
            ])
        #expect(lines.notices.isEmpty)
    }

    @Test func anUnverifiableBodyIsSaidOnce() {
        let (log, lines) = Self.log()
        log.observe(Self.settled(.fetched, integrity: .unverified, undeclared: true))
        log.observe(Self.settled(.fetched, integrity: .sizeOnly, undeclared: true))
        log.observe(Self.settled(.fetched, integrity: .unverified, undeclared: false))
        #expect(
            lines.results == [
                "? r/a/b.ts: unverifiable: the response declared no length, so a connection cut short could not be told from the end (http://h/a/b.ts)\n"
            ])

        // A repair says both: what was wrong, and that the new body cannot be proven whole.
        let (quiet, q) = Self.log(.quiet)
        quiet.observe(Self.settled(.repaired, integrity: .unverified, undeclared: true))
        #expect(
            q.results == [
                "? r/a/b.ts: unverifiable: the response declared no length, so a connection cut short could not be told from the end (http://h/a/b.ts)\n"
            ])
        let (normal, n) = Self.log()
        normal.observe(Self.settled(.repaired, integrity: .unverified, undeclared: true))
        #expect(
            n.results == [
                "? r/a/b.ts: unverifiable: the response declared no length, so a connection cut short could not be told from the end (http://h/a/b.ts)\n",
                "* r/a/b.ts: repaired: the file on disk was wrong (2.0 KiB, http://h/a/b.ts)\n",
            ])
    }

    /// `-q` keeps problems and the summary; `-v` adds a line per slice and per retry.
    @Test func quietAndVerbose() {
        let (quiet, q) = Self.log(.quiet)
        let (verbose, v) = Self.log(.verbose)
        let events: [RunEvent] = [
            Self.settled(.fetched),
            .sliceRetrying(
                Self.ref, failure: AttemptFailure(kind: .http, status: 503, message: "HTTP 503", isTransient: true), attempt: 1, delay: .milliseconds(1500)),
            .resourceCompleted(id: "r", counts: ApplyResult.Counts()),
            Self.settled(.failed, failure: AttemptFailure(kind: .http, status: 404, message: "HTTP 404", isTransient: false)),
        ]
        for e in events {
            quiet.observe(e)
            verbose.observe(e)
        }
        #expect(q.results == ["! r/a/b.ts: HTTP 404 (http://h/a/b.ts, 1 attempt)\n"])
        #expect(
            v.results == [
                "  r/a/b.ts: fetched (2.0 KiB, http://h/a/b.ts)\n",
                "~ r/a/b.ts: HTTP 503 (http://h/a/b.ts, attempt 1); retrying in 1.5 s\n",
                "= r: \n",
                "! r/a/b.ts: HTTP 404 (http://h/a/b.ts, 1 attempt)\n",
            ])
    }

    /// The end: the slices not finished, in the words every report uses (cut in flight, with the
    /// partial files kept; not started, worded by what stopped the run), then the summary line.
    @Test(arguments: [(StopReason?.none, "interrupted"), (.some(.signal(15)), "interrupted"), (.some(.deadline), "stopped at the deadline")])
    func theEnd(reason: StopReason?, words: String) {
        let (log, lines) = Self.log()
        if let reason { log.observe(.stopRequested(reason)) }
        var cut = SliceOutcome(status: .skipped, failure: AttemptFailure(kind: .interrupted, message: "cut in flight by the stop", isTransient: false))
        cut.partial = .kept
        log.observe(.sliceSettled(SettledSlice(slice: Self.ref, outcome: cut, integrity: .digest, isBulk: false)))
        log.observe(
            .sliceSettled(SettledSlice(slice: Self.ref, outcome: SliceOutcome(status: .skipped, skipReason: "not started"), integrity: .digest, isBulk: true)))
        log.observe(.resourceFailed(id: "r", counts: ApplyResult.Counts(), cause: .unfinished(count: 2, total: 5, reason: reason)))
        log.observe(
            .runEnded(RunEnd(exitStatus: 1, stopReason: reason, counts: [("fetched", 1), ("skipped", 2)], summaryLine: "Apply x! Slices: …", elapsed: .zero)))
        #expect(
            lines.results == [
                "! r: \(words), 2 of 5 slices not finished\n",
                "Not finished: 1 cut in flight (1 partial file kept to resume), 1 not started (\(reason == nil ? "a dependency failed" : reason == .deadline ? "the run was stopped at the deadline, or a dependency failed" : "the run was interrupted, or a dependency failed")).\n",
                "Apply x! Slices: …\n",
            ])
        #expect(lines.notices.count == (reason == nil ? 0 : 1))
    }

    @Test func thePlainProgressLine() {
        var lines: [String] = []
        let progress = PlainProgress(runID: "01RUN", interval: .seconds(1), wallClock: { 1_764_059_400_123 }) { lines.append($0) }
        var p = RunProgress()
        p.slicesToTransfer = 10
        p.bytesToTransfer = 10 << 20
        p.slicesSettled = 2
        p.bytesSettled = 2 << 20
        p.bytesInFlight = 1 << 20
        p.bytesReceived = 2 << 20
        p.running = 4
        p.retrying = 1
        p.elapsed = .seconds(3)
        progress.observe(.progress(p))
        p.bytesReceived = 4 << 20
        p.bytesSettled = 4 << 20
        p.elapsed = .seconds(5)
        progress.observe(.progress(p))
        p.elapsed = .milliseconds(5_500)
        progress.observe(.progress(p))  // within the interval of the last line: none
        p.unsizedToTransfer = 1
        p.elapsed = .seconds(6)
        progress.observe(.progress(p))
        p.offlineFor = .seconds(42)
        p.elapsed = .seconds(8)
        progress.observe(.progress(p))
        #expect(
            lines == [
                "2025-11-25T08:30:00.123Z jobrun 01RUN: 30% 3.0 MiB of 10.0 MiB, 1.0 MiB/s, ETA 7 s; 2 of 10 slices, 4 running, 1 retrying, 0 failed\n",
                "2025-11-25T08:30:00.123Z jobrun 01RUN: 50% 5.0 MiB of 10.0 MiB, 1.0 MiB/s, ETA 5 s; 2 of 10 slices, 4 running, 1 retrying, 0 failed\n",
                "2025-11-25T08:30:00.123Z jobrun 01RUN: 20% 5.0 MiB received, 0 B/s; 2 of 10 slices, 4 running, 1 retrying, 0 failed\n",
                "2025-11-25T08:30:00.123Z jobrun 01RUN: 20% 5.0 MiB received, 0 B/s; 2 of 10 slices, 4 running, 1 retrying, 0 failed, offline 42 s\n",
            ])
        #expect(PlainProgress.duration(seconds: 200) == "3 min 20 s" && PlainProgress.duration(seconds: 7_500) == "2 h 5 min")
        #expect(RFC3339.utc(milliseconds: 5) == "1970-01-01T00:00:00.005Z")
        #expect(RFC3339.utc(milliseconds: -1) == "1969-12-31T23:59:59.999Z")
    }

    /// The run's start and end are lines of their own, with the time and the run id, whatever
    /// the interval: a run shorter than it is still in the log.
    @Test func thePlainStartAndEndLines() {
        var lines: [String] = []
        let progress = PlainProgress(runID: "01RUN", interval: .seconds(60), wallClock: { 1_764_059_400_123 }) { lines.append($0) }
        progress.observe(.runStarted(RunStart(command: "apply", runID: "01RUN", arguments: [], manifestsDigest: nil, resources: 3, slices: 1)))
        progress.observe(.runEnded(RunEnd(exitStatus: 0, stopReason: nil, counts: [], summaryLine: nil, elapsed: .milliseconds(12_345))))
        let unread = PlainProgress(runID: "01RUN", interval: .seconds(60), wallClock: { 1_764_059_400_123 }) { lines.append($0) }
        unread.observe(.runStarted(RunStart(command: "apply", runID: "01RUN", arguments: [], manifestsDigest: nil)))
        unread.observe(.runEnded(RunEnd(exitStatus: 65, stopReason: nil, counts: [], summaryLine: nil, elapsed: .seconds(200))))
        #expect(
            lines == [
                "2025-11-25T08:30:00.123Z jobrun 01RUN: apply started: 3 resources, 1 slice\n",
                "2025-11-25T08:30:00.123Z jobrun 01RUN: apply ended: exit 0, 12.3 s\n",
                "2025-11-25T08:30:00.123Z jobrun 01RUN: apply started\n",
                "2025-11-25T08:30:00.123Z jobrun 01RUN: apply ended: exit 65, 3 min 20 s\n",
            ])
    }
}

extension HumanLogTests {
    /// `-v`'s line per origin at the end: its requests and connections, requests in flight, and
    /// its limit (an adaptive one's end, top and changes).
    @Test func anOriginsUsageLine() {
        let fixed = OriginUsageReport(
            origin: "https://cdn.example", requests: 2000, connections: 2, meanInFlight: 15.84, peakInFlight: 16, streams: 8, adaptive: false,
            limitPath: [.init(at: .zero, limit: 1), .init(at: .milliseconds(90), limit: 16)])
        #expect(
            HumanLog.usageText(fixed)
                == "https://cdn.example: 2000 requests over 2 connections (HTTP/2, 8 streams each), 15.8 in flight on average, 16 at most; limit 16")
        let adaptive = OriginUsageReport(
            origin: "http://a:8080", requests: 1, connections: 1, meanInFlight: 1, peakInFlight: 1, streams: 1, adaptive: true,
            limitPath: [.init(at: .zero, limit: 4), .init(at: .seconds(1), limit: 9), .init(at: .seconds(2), limit: 6)])
        #expect(
            HumanLog.usageText(adaptive)
                == "http://a:8080: 1 request over 1 connection, 1.0 in flight on average, 1 at most; adaptive limit 6 at the end (9 at most, 2 changes)")
    }

    /// Its failures and wrong answers, and whether it was quarantined, when it had any.
    @Test func anOriginsUsageLineCountsItsFailures() {
        var o = OriginUsageReport(
            origin: "http://a:8080", requests: 9, connections: 1, meanInFlight: 1, peakInFlight: 1, streams: 1, adaptive: false, limitPath: [])
        o.failures = 4
        o.wrongAnswers = 3
        o.quarantined = true
        #expect(
            HumanLog.usageText(o)
                == "http://a:8080: 9 requests over 1 connection, 1.0 in flight on average, 1 at most; 4 failed (3 of the wrong size or digest); quarantined")
    }
}
