import JobrunCore
import JobrunTestSupport
import Testing
@testable import JobrunManifest
@testable import JobrunOutcome
@testable import JobrunReport

/// Hooks in the reports: `hook_start` and `hook_end` (every key, valid against the schema), the
/// human lines, `apply --json`'s `hooks` and JUnit's test case for a hook under
/// `on_hook_failure: fail`.
@Suite struct HookReportTests {
    static let ref = HookRef(hook: "on_complete", resource: "r", eventRun: "run-0", isRedelivery: true, argv: ["notify", "https://u:pw@h/x?sig=1"])

    static func end(exit: Int32? = 3, signal: Int32? = nil, policy: HookFailurePolicy = .fail, cut: Bool = false, tail: String = "ok\nbroken\n") -> HookEnd {
        var ref = Self.ref
        ref.isRedelivery = false
        return HookEnd(
            hook: ref, exitStatus: exit, signal: signal, hasTimedOut: signal != nil && !cut, launchError: nil, duration: .milliseconds(1_250),
            outputTail: tail, outputBytes: 1_000, policy: policy, wasCut: cut)
    }

    /// Resource `id` of one slice, `s0`, that ended with `status`.
    static func entry(_ id: String, _ status: SliceOutcome.Status) -> ApplyResult.Entry {
        let here = SourceLocation(file: "m.yaml", line: 1, column: 1)
        let resource = Resource(
            id: id, location: here, manifestFile: "m.yaml", baseURL: "http://h/", outputRoot: "mirror", dest: id, dependsOn: [],
            checksum: nil, settings: ResourceSettings(), slices: [Slice(path: "s0", size: 10, location: here)])
        return ApplyResult.Entry(resource: resource, outcomes: [SliceOutcome(status: status, bytesTransferred: 10, displayURL: "http://h/s0")])
    }

    @Test func theEventsHaveEveryKeyAndMatchTheSchema() throws {
        let (stream, output) = EventStreamTests.stream()
        stream.observe(.runStarted(RunStart(command: "apply", runID: "run-1", arguments: ["jobrun", "apply"], manifestsDigest: nil)))
        stream.observe(.hookStarted(Self.ref))
        stream.observe(.hookEnded(Self.end()))
        stream.observe(
            .hookEnded(
                HookEnd(
                    hook: HookRef(hook: "on_run_end", resource: nil, eventRun: "run-1", isRedelivery: false, argv: ["x"]), exitStatus: nil, signal: nil,
                    hasTimedOut: false, launchError: "No such file or directory", duration: .zero, outputTail: "", outputBytes: 0, policy: .warn,
                    wasCut: false)))
        stream.observe(EventStreamTests.end)
        let data = output.lines.map { line in String(line.split(separator: #""data":"#, maxSplits: 1)[1].dropLast(2)) }
        let hook = #""hook":"on_complete","resource":"r","event_run":"run-0""#
        let argv = #""argv":["notify","https://<redacted>@h/x?<redacted>"]"#
        #expect(
            Array(data[1...3]) == [
                #"{\#(hook),"redelivery":true,\#(argv)}"#,
                #"{\#(hook),"redelivery":false,\#(argv),"exit_status":3,"signal":null,"timed_out":false,"error":null,"duration_ms":1250,"output_tail":"ok\nbroken\n","output_bytes":1000,"failed":true,"on_hook_failure":"fail","fails_run":true,"cut_short":false}"#,
                #"{"hook":"on_run_end","resource":null,"event_run":"run-1","redelivery":false,"argv":["x"],"exit_status":null,"signal":null,"timed_out":false,"error":"No such file or directory","duration_ms":0,"output_tail":"","output_bytes":0,"failed":true,"on_hook_failure":"warn","fails_run":false,"cut_short":false}"#,
            ])
        #expect(output.lines.map { $0.contains(#""type":"hook_start""#) } == [false, true, false, false, false])
        let directory = try TemporaryDirectory(prefix: "jobrun-events")
        defer { directory.remove() }
        let validation = EventSchemaCheck.validate([try directory.write(file: "events.ndjson", contents: output.lines.joined())])
        #expect(validation.ok, "\(validation.output)")
    }

    @Test func theHumanLines() {
        let (log, lines) = HumanLogTests.log()
        log.observe(.hookStarted(Self.ref))
        log.observe(.hookEnded(Self.end()))
        log.observe(.hookEnded(Self.end(policy: .warn, tail: "line\n\u{1B}[31mred\u{1B}[0m \n\n")))
        log.observe(.hookEnded(Self.end(exit: nil, signal: SIGTERM, cut: true)))
        log.observe(.hookEnded(Self.end(exit: 0)))
        #expect(lines.results == ["! r: hook on_complete failed: exit status 3 (last output: broken)\n"])
        #expect(
            lines.notices == [
                "jobrun: warning: hook on_complete of 'r' failed: exit status 3 (last output: [31mred[0m )\n",
                "jobrun: hook on_complete of 'r' was stopped with the run; it runs again on the next apply\n",
            ])
        let (verbose, said) = HumanLogTests.log(.verbose)
        var redelivered = Self.end(exit: 0)
        redelivered.hook.isRedelivery = true
        verbose.observe(.hookEnded(redelivered))
        #expect(said.results == ["  hook on_complete of 'r': exit status 0 (1.2 s) (redelivered, from run run-0)\n"])
    }

    @Test func jsonAndJUnit() throws {
        var result = ApplyResult(
            entries: [Self.entry("r", .fetched), Self.entry("q", .upToDate)], stopReason: nil, elapsed: .zero)
        #expect(!String(decoding: ApplyReports.json(result), as: UTF8.self).contains("hook"), "no hook ran: no key")
        result.hooks = [Self.end(), Self.end(exit: 0, policy: .warn)]
        let json = String(decoding: ApplyReports.json(result), as: UTF8.self)
        #expect(json.contains(#""hooks_failed": 1"#) && json.contains(#""success": false"#))
        #expect(json.components(separatedBy: #""hooks": ["#).count == 2, "only resource r has hooks")
        #expect(json.contains(#""hook": "on_complete",\#n          "exit_status": 3,"#), "\(json)")

        let report = ApplyReports.junit(result, timestamp: JUnitFixtures.timestamp, hostname: "h")
        let cases = report.suites[0].testCases
        #expect(cases.map(\.name) == ["s0", "hook on_complete"], "a warn hook has no test case")
        guard case .failure(let type, let message, let text) = cases[1].result else {
            Issue.record("not a failure: \(cases[1].result)")
            return
        }
        #expect(type == "HookFailed" && message == "on_complete: exit status 3" && text.hasSuffix("output (its end):\nok\nbroken\n"))
        #expect(report.suites[1].testCases.map(\.name) == ["s0"])
        result.hooks = [Self.end(exit: 0)]
        #expect(ApplyReports.junit(result, timestamp: JUnitFixtures.timestamp, hostname: "h").suites[0].testCases[1].result == .passed)
    }
}
