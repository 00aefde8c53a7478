import JobrunCore
import JobrunManifest
import JobrunPlan
import JobrunTestSupport
import Testing
@testable import JobrunOutcome
@testable import JobrunReport

/// The event stream: one JSON object a line in the frozen envelope (keys in order, `seq` from 1
/// without gaps, the run id, RFC 3339 time), a type and fixed data keys per event, nothing after
/// `run_end` (which finishes the output), progress at the stream's own interval, and every type
/// valid against docs/events.schema.json.
@Suite struct EventStreamTests {
    final class Collector: EventOutput {
        var lines: [String] = []
        var finishes = 0
        func write(_ line: [UInt8]) { lines.append(String(decoding: line, as: UTF8.self)) }
        func finish() { finishes += 1 }
    }

    static let clock: @Sendable () -> Int64 = { 1_764_060_000_123 }  // 2025-11-25T08:40:00.123Z

    static func stream(progressEvery: Duration? = nil) -> (EventStream, Collector) {
        let output = Collector()
        return (EventStream(runID: "run-1", progressInterval: progressEvery, wallClock: clock, output: output), output)
    }

    static let ref = SliceRef(resource: "r", path: "a/b.ts", url: "http://h/a/b.ts")
    static let end = RunEvent.runEnded(
        RunEnd(exitStatus: 1, stopReason: nil, counts: [("failed", 1)], summaryLine: "Apply failed! …", elapsed: .milliseconds(1500)))

    static func settled(_ status: SliceOutcome.Status, failure: AttemptFailure? = nil, reason: String? = nil) -> RunEvent {
        var o = SliceOutcome(
            status: status, bytesTransferred: 6, size: status.hasPassed ? 6 : nil, attempts: 2, failure: failure, skipReason: reason,
            duration: .milliseconds(250), displayURL: "http://h/a/b.ts", httpVersion: status.hasPassed ? "1.1" : nil)
        if status == .fetched {
            o.digests = [Digest(algorithm: .sha256, bytes: Array(repeating: 0xAB, count: 32))]
        }
        return .sliceSettled(SettledSlice(slice: ref, outcome: o, integrity: .digest, isBulk: false))
    }

    /// One of every kind of event, as a run could send them.
    static var everyEvent: [RunEvent] {
        var counts = ApplyResult.Counts()
        counts.fetched = 1
        counts.fetchedBytes = 6
        var plan = PlanCounts()
        plan.fetch = 2
        plan.bytesToTransfer = 12
        var progress = RunProgress()
        progress.slicesToTransfer = 2
        progress.bytesToTransfer = 12
        progress.bytesSettled = 6
        progress.slicesSettled = 1
        progress.activeResources = ["r"]
        progress.activeCount = 1
        progress.elapsed = .seconds(3)
        let http = AttemptFailure(kind: .http, status: 503, message: "HTTP 503 Service Unavailable", isTransient: true)
        return [
            .runStarted(
                RunStart(command: "apply", runID: "run-1", arguments: ["jobrun", "apply", "site.yaml"], manifestsDigest: String(repeating: "0", count: 64))),
            .lockWaited(root: "mirror", holder: "pid 7 (jobrun, run x, running for 3s)", timeout: .seconds(30)),
            .planned(plan),
            .resourceStarted(id: "r"),
            .sliceRetrying(ref, failure: http, attempt: 1, delay: .milliseconds(500)),
            settled(.fetched),
            settled(.upToDate),
            settled(.failed, failure: http),
            settled(.skipped, reason: "depends on 'q', which did not complete"),
            settled(.skipped, failure: AttemptFailure(kind: .interrupted, message: "interrupted in flight; the partial file is kept", isTransient: false)),
            settled(.deferred),
            .origin("http://h", .tripped(failures: 32, last: "HTTP 503")),
            .origin("http://h", .recovered),
            .origin("http://h", .failing(failures: 40, last: "Connect: refused", slicesFailed: 7)),
            .origin("http://h", .quarantined(wrongAnswers: 3, last: "ChecksumMismatch: sha256 differs")),
            .origin("http://h", .stillQuarantined(untilMilliseconds: 1_764_060_000_000, last: "ChecksumMismatch: sha256 differs")),
            .progress(progress),
            .resourceCompleted(id: "r", counts: counts),
            .resourceFailed(id: "q", counts: counts, cause: .slicesFailed(count: 2, total: 9)),
            .resourceFailed(id: "u", counts: counts, cause: .unfinished(count: 1, total: 2, reason: .signal(15))),
            .resourceFailed(id: "s", counts: counts, cause: .syncFailed(message: "Input/output error")),
            .resourceSkipped(id: "t", reason: "depends on 'q', which did not complete"),
            .stopRequested(.signal(SIGTERM)),
            .stopRequested(.deadline),
            .runEnded(RunEnd(exitStatus: 143, stopReason: .signal(SIGTERM), counts: counts.named, summaryLine: "Apply interrupted! …", elapsed: .seconds(4))),
        ]
    }

    @Test func theEnvelopeIsFrozenAndSeqHasNoGaps() throws {
        let (stream, output) = Self.stream(progressEvery: .seconds(1))
        for event in Self.everyEvent { stream.observe(event) }
        #expect(output.lines.count == Self.everyEvent.count)
        for (i, line) in output.lines.enumerated() {
            #expect(line.hasSuffix("}\n") && line.dropLast().firstIndex(of: "\n") == nil, "\(line)")
            #expect(line.hasPrefix(#"{"v":2,"seq":\#(i + 1),"ts":"2025-11-25T08:40:00.123Z","run":"run-1","type":""#), "\(line)")
            #expect(line.contains(#"","data":{"#), "\(line)")
        }
        #expect(stream.sequence == Int64(Self.everyEvent.count))
        let types = output.lines.map { line in
            line.split(separator: "\"type\":\"")[1].prefix { $0 != "\"" }
        }
        #expect(
            types == [
                "run_start", "lock_wait", "plan", "resource_start", "slice_retry", "slice_done", "slice_done", "slice_failed",
                "slice_skipped", "slice_skipped", "slice_skipped", "origin", "origin", "origin", "origin", "origin", "progress", "resource_done",
                "resource_failed", "resource_failed", "resource_failed", "resource_skipped", "stop_requested", "stop_requested", "run_end",
            ])
    }

    @Test func everyTypeIsValidAgainstTheSchema() throws {
        let (stream, output) = Self.stream(progressEvery: .seconds(1))
        for event in Self.everyEvent { stream.observe(event) }
        let directory = try TemporaryDirectory(prefix: "jobrun-events")
        defer { directory.remove() }
        let file = try directory.write(file: "events.ndjson", contents: output.lines.joined())
        let validation = EventSchemaCheck.validate([file])
        #expect(validation.ok, "\(validation.output)")
    }

    /// The data of each type, whole: its keys, in order, with `null` where a field does not apply.
    @Test func dataByType() {
        let (stream, output) = Self.stream()
        let http = AttemptFailure(kind: .http, status: 503, message: "HTTP 503", isTransient: true)
        stream.observe(.runStarted(RunStart(command: "plan", runID: "run-1", arguments: ["jobrun", "plan"], manifestsDigest: nil)))
        stream.observe(Self.settled(.fetched))
        stream.observe(Self.settled(.failed, failure: http))
        stream.observe(Self.settled(.skipped, reason: "not started: the run stopped at its deadline"))
        stream.observe(.sliceRetrying(Self.ref, failure: http, attempt: 2, delay: .milliseconds(1500)))
        stream.observe(.resourceFailed(id: "q", counts: ApplyResult.Counts(), cause: .syncFailed(message: "EIO")))
        stream.observe(.origin("http://h", .recovered))
        stream.observe(.stopRequested(.signal(SIGINT)))
        stream.observe(.runEnded(RunEnd(exitStatus: 65, stopReason: nil, counts: [], summaryLine: nil, elapsed: .milliseconds(12))))
        let data = output.lines.map { line in String(line.split(separator: #""data":"#, maxSplits: 1)[1].dropLast(2)) }
        let slice = #""resource":"r","path":"a/b.ts","url":"http://h/a/b.ts""#
        let settledSlice = slice + #","origin":"http://h","failed_at":[]"#
        let zero =
            #""fetched":0,"resumed":0,"repaired":0,"bytes_transferred":0,"up_to_date":0,"failed":0,"skipped":0,"deferred":0,"size_only":0,"unverified":0,"revalidated":0,"unchanged":0,"replaced":0,"pruned":0"#
        #expect(
            data == [
                #"{"jobrun_version":"\#(JobrunVersion.current)","command":"plan","argv":["jobrun","plan"],"manifests_sha256":null}"#,
                #"{\#(settledSlice),"status":"fetched","attempts":2,"bytes_transferred":6,"size":6,"integrity":"digest","length_declared":true,"sha256":"\#(String(repeating: "ab", count: 32))","http_version":"1.1","duration_ms":250}"#,
                #"{\#(settledSlice),"status":"failed","attempts":2,"bytes_transferred":6,"error":{"type":"HTTP503","message":"HTTP 503","http_status":503},"duration_ms":250,"bulk":false}"#,
                #"{\#(settledSlice),"status":"skipped","attempts":2,"bytes_transferred":6,"reason":"not started: the run stopped at its deadline","cut_in_flight":false,"partial_kept":false,"partial_discarded":null,"bulk":false}"#,
                #"{\#(slice),"attempt":2,"delay_ms":1500,"error":{"type":"HTTP503","message":"HTTP 503","http_status":503}}"#,
                #"{"resource":"q","counts":{\#(zero)},"cause":"sync_failed","slices_affected":null,"slices_total":null,"message":"EIO"}"#,
                #"{"origin":"http://h","state":"recovered","failures_in_a_row":null,"last_error":null,"slices_failed":null,"wrong_answers":null,"until":null}"#,
                #"{"reason":"signal","signal":2}"#,
                #"{"exit_status":65,"stop_reason":null,"signal":null,"counts":{},"summary":null,"elapsed_ms":12}"#,
            ])
    }

    @Test func runEndFinishesTheOutputAndNothingFollows() {
        let (stream, output) = Self.stream()
        stream.observe(.resourceStarted(id: "r"))
        #expect(output.finishes == 0)
        stream.observe(Self.end)
        #expect(output.finishes == 1)
        stream.observe(.resourceStarted(id: "late"))
        stream.observe(Self.end)
        #expect(output.lines.count == 2 && output.finishes == 1)
        #expect(output.lines.last?.contains(#""type":"run_end""#) == true)
    }

    /// Progress at the stream's interval (less a tenth of slack), however often the run sends
    /// it for other observers; none without an interval.
    @Test func progressKeepsToItsOwnInterval() {
        let (stream, output) = Self.stream(progressEvery: .seconds(30))
        for seconds in [0, 10, 27, 40, 53, 56, 90] {
            var p = RunProgress()
            p.elapsed = .seconds(seconds)
            stream.observe(.progress(p))
        }
        let elapsed = output.lines.map { $0.split(separator: #""elapsed_ms":"#)[1].prefix { $0.isNumber } }
        #expect(elapsed == ["0", "27000", "56000", "90000"])

        let (silent, none) = Self.stream()
        silent.observe(.progress(RunProgress()))
        #expect(none.lines.isEmpty)
    }

    /// Control characters and quotes in what a server said stay inside one line.
    @Test func aMessageCannotBreakTheLine() {
        let (stream, output) = Self.stream()
        let evil = AttemptFailure(kind: .http, status: 500, message: "bad\n{\"v\":1}\r\u{2028}\"", isTransient: true)
        stream.observe(.sliceRetrying(Self.ref, failure: evil, attempt: 1, delay: .zero))
        #expect(output.lines.count == 1)
        #expect(output.lines[0].contains(#""message":"bad\n{\"v\":1}\r\#u{2028}\"""#), "\(output.lines[0])")
        #expect(output.lines[0].filter { $0 == "\n" }.count == 1)
    }
}
