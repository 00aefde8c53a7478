import Foundation
import JobrunTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What `apply` tells people and programs: JSON records, JUnit valid against both schemas with
/// every kind of outcome, no secret anywhere, and a clean stop on SIGTERM and SIGINT.
@Suite struct ApplyReportTests {
    /// One resource of each outcome: passed, failure (digest), error (404), skipped (dependency).
    static func mixedManifest(_ fixture: ApplyFixture, headers: String = "") -> String {
        """
        version: 1
        defaults:
          retries: {attempts: 2, backoff: {initial: 50ms, max: 200ms}}
        \(headers)
        resources:
          - id: good
            slices:
              - path: ok.bin
                url: \(fixture.url("/gen/1500/ok.bin?sig=query-secret"))
                size: 1500
                sha256: \(Generated.sha256Hex(size: 1_500, name: "ok.bin"))
          - id: corrupt
            slices:
              - path: bad.bin
                url: \(fixture.url(FaultServer.path("/gen/800/bad.bin", faults: "wrong_bytes=1")))
                size: 800
                sha256: \(Generated.sha256Hex(size: 800, name: "bad.bin"))
          - id: broken
            slices:
              - {path: gone.bin, url: "\(fixture.url("/status/404"))"}
          - id: blocked
            depends_on: [broken]
            slices:
              - {path: never.bin, url: "\(fixture.url("/gen/10/never.bin"))"}

        """
    }

    @Test func theJSONSummaryHasARecordPerSlice() async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        try fixture.write(manifest: Self.mixedManifest(fixture))
        let (result, report) = try await fixture.applyJSON()
        #expect(result.status == 1, "\(result)")
        #expect(report.formatVersion == 2 && !report.jobrunVersion.isEmpty)
        #expect(report.resources.map(\.id).sorted() == ["blocked", "broken", "corrupt", "good"])
        #expect(report.resources.allSatisfy { $0.slices.count == 1 })
        let s = report.summary
        #expect(s.fetched == 1 && s.resumed == 0 && s.upToDate == 0 && s.failed == 2 && s.skipped == 1 && s.deferred == 0, "\(s)")
        #expect(s.bytesTransferred == 1_500 && !s.success && s.interruptedBySignal == nil && s.elapsedSeconds > 0, "\(s)")
        // The summary line moves to stderr so stdout is only the document.
        #expect(result.stderr.hasSuffix("Apply failed! Slices: 1 fetched (1.5 KiB), 0 resumed, 0 up to date, 2 failed, 0 deferred.\n"), "\(result)")

        let ok = try report.slice("good", "ok.bin")
        #expect(ok.identity == fixture.url("/gen/1500/ok.bin") && ok.url == ok.identity, "the query is not shown: \(ok)")
        #expect(ok.file == "mirror/good/ok.bin" && ok.status == "fetched" && ok.bytesTransferred == 1_500 && ok.size == 1_500)
        #expect(ok.attempts == 1 && ok.digests == ["sha256": Generated.sha256Hex(size: 1_500, name: "ok.bin")] && ok.seconds > 0, "\(ok)")
        #expect(ok.error == nil && ok.skipReason == nil)

        let bad = try report.slice("corrupt", "bad.bin")
        #expect(bad.status == "failed" && bad.attempts == 2 && bad.bytesTransferred == 1_600 && bad.error?.type == "ChecksumMismatch", "\(bad)")
        let gone = try report.slice("broken", "gone.bin")
        #expect(gone.status == "failed" && gone.attempts == 1 && gone.error?.type == "HTTP404" && gone.error?.message == "HTTP 404", "\(gone)")
        let never = try report.slice("blocked", "never.bin")
        #expect(never.status == "skipped" && never.attempts == 0 && never.skipReason == "depends on 'broken', which did not complete", "\(never)")
        #expect(!report.resources.contains { $0.id == "good" && !$0.complete })
    }

    @Test(.enabled(if: XMLLint.executable != nil, "needs xmllint (libxml2-utils)"))
    func theJUnitReportIsValidWithEveryOutcome() async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        try fixture.write(manifest: Self.mixedManifest(fixture))
        let result = try await fixture.apply(["--junit", "reports/apply.xml"])
        #expect(result.status == 1, "\(result)")
        let xml = try #require(fixture.directory.contents(of: "reports/apply.xml"))
        #expect(xml.contains(#"<testcase classname="good" name="ok.bin""#), "\(xml)")
        #expect(xml.contains(#"<failure type="ChecksumMismatch""#), "\(xml)")
        #expect(xml.contains(#"<error type="HTTP404" message="HTTP 404">"#) && xml.contains("attempts: 1\nbytes received: 0\nlast error: HTTP 404"), "\(xml)")
        #expect(xml.contains(#"<skipped message="depends on &apos;broken&apos;, which did not complete"/>"#), "\(xml)")
        #expect(!xml.contains("query-secret"), "\(xml)")
        JUnitSchemaCheck.expectValid(fixture.directory.path("reports/apply.xml"))
    }

    /// Secret header values are sent (the server saw them) and never shown: not on stdout or
    /// stderr, not in JSON or JUnit, whether slices pass, fail or redirect elsewhere.
    @Test func secretsAreSentButNeverShown() async throws {
        let fixture = try ApplyFixture(secondPort: true)
        defer { fixture.finish() }
        let token = "tok-\(UUID().uuidString)"
        let key = "key-\(UUID().uuidString)"
        let elsewhere = try fixture.server.url("/gen/100/moved.bin", on: .second)
        let redirect = "/redirect-to?url=" + (elsewhere.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")
        let headers = "  headers: {Authorization: \"Bearer ${JOBRUN_TEST_TOKEN}\", X-Api-Key: \(key)}"
        try fixture.write(
            manifest: Self.mixedManifest(fixture, headers: headers) + """
                  - id: moved
                    slices:
                      - {path: moved.bin, url: "\(fixture.url(redirect))"}

                """)
        let environment = ["JOBRUN_TEST_TOKEN": token]
        let json = try await fixture.apply(["--json", "--junit", "junit.xml"], environment: environment)
        let text = try await fixture.apply(environment: environment)
        #expect(json.status == 1 && text.status == 1, "\(json)\n\(text)")
        for (what, output) in [
            ("--json stdout", json.stdout), ("--json stderr", json.stderr), ("stdout", text.stdout), ("stderr", text.stderr),
            ("JUnit", fixture.directory.contents(of: "junit.xml") ?? ""),
        ] {
            #expect(!output.contains(token) && !output.contains(key), "\(what) shows a secret:\n\(output)")
            #expect(!output.contains("query-secret"), "\(what) shows a URL's query:\n\(output)")
        }
        #expect(fixture.directory.exists("junit.xml"))
        let log = try await fixture.server.waitForRequests { $0.contains { $0.port == fixture.server.secondPort } }
        let sent = log.filter { $0.port == fixture.server.port }
        #expect(!sent.isEmpty && sent.allSatisfy { $0.header(named: "Authorization") == "Bearer \(token)" && $0.header(named: "X-Api-Key") == key }, "\(sent)")
    }

    /// SIGTERM or SIGINT mid-transfer: the run stops, keeps its partial files, writes its
    /// reports, and exits 143 or 130.
    @Test(arguments: [(SIGTERM, Int32(143)), (SIGINT, Int32(130))])
    func aSignalStopsTheRunCleanly(signal: Int32, status: Int32) async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        let size = 2 << 20
        let stall = FaultServer.path("/gen/\(size)/slow.bin", faults: "stall_at=\(1 << 20)", "stall_s=300")
        // The request timeout outlasts the stall: the test, not the clock, ends it.
        try fixture.write(
            manifest: """
                version: 1
                defaults:
                  timeouts: {request: 10m}
                resources:
                  - id: first
                    slices:
                      - {path: slow.bin, url: "\(fixture.url(stall))", size: \(size)}
                  - id: then
                    depends_on: [first]
                    slices:
                      - {path: later.bin, url: "\(fixture.url("/gen/10/later.bin"))"}

                """)
        let apply = try fixture.startApply(["--junit", "junit.xml"])
        defer { apply.kill() }
        let partial = "mirror/first/.slow.bin.jobrun-part"
        let midway = await Poll.until(timeout: .seconds(120)) { fixture.size(of: partial) == 1 << 20 }
        try #require(midway, "the transfer never got half-way: \(apply.stderr)")
        apply.signal(signal)
        let result = try #require(await apply.wait(timeout: .seconds(20)), "jobrun did not stop after signal \(signal)")
        #expect(result.status == status && result.signal == nil, "\(result)")
        // Interrupted, not failed: neither the slice nor its dependent is reported as a failure.
        #expect(
            result.stdout == """
                ! first: interrupted, 1 of 1 slices not finished
                Not finished: 1 cut in flight (1 partial file kept to resume), 1 not started (the run was interrupted, or a dependency failed).
                Apply interrupted! Slices: 0 fetched (0 B), 0 resumed, 0 up to date, 0 failed, 0 deferred.

                """, "\(result)")
        #expect(fixture.size(of: partial) == 1 << 20, "the partial file was not kept")
        #expect(fixture.directory.exists("mirror/first/.slow.bin.jobrun-meta"))
        #expect(!fixture.directory.exists("mirror/first/slow.bin"))
        let xml = try #require(fixture.directory.contents(of: "junit.xml"), "no JUnit report after the signal")
        // Incomplete is not green: the slice cut in flight is an error, the one never started is
        // skipped with its reason, and the run itself is an error a consumer of the XML sees.
        let report = try JUnitFile.parse(xml)
        #expect(report.cases["first/slow.bin"]?.kind == "error" && report.cases["first/slow.bin"]?.type == "Interrupted", "\(xml)")
        #expect(report.cases["first/slow.bin"]?.message == "cut in flight by the stop; its partial file is kept to resume", "\(xml)")
        #expect(
            report.cases["then/later.bin"]?.kind == "skipped"
                && report.cases["then/later.bin"]?.message == "not started: the run was interrupted by signal \(signal)", "\(xml)")
        let name = signal == SIGINT ? "SIGINT" : "SIGTERM"
        #expect(report.cases["jobrun/run"]?.kind == "error" && report.cases["jobrun/run"]?.type == "Interrupted", "\(xml)")
        #expect(report.cases["jobrun/run"]?.message == "the run was stopped by \(name) before it finished: 1 slices cut in flight, 1 not started", "\(xml)")
        #expect(!xml.contains("<failure"), "\(xml)")
        if XMLLint.executable != nil {
            JUnitSchemaCheck.expectValid(fixture.directory.path("junit.xml"))
        }
        #expect(try fixture.server.requests(path: "/gen/10/later.bin").isEmpty)
    }
}
