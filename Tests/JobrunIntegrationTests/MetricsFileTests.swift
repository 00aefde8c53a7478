import Foundation
import JobrunTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Debian's `promtool`: unpacked from the `prometheus` package under `.build-tools` by `make deps`,
/// or installed with the package.
let promtool =
    [(SharedPaths.packageRoot(startingAt: #filePath) ?? ".") + "/.build-tools/prometheus/usr/bin/promtool", "/usr/bin/promtool"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    } ?? "/usr/bin/promtool"
let promtoolAvailable = FileManager.default.isExecutableFile(atPath: promtool)

/// `--metrics-file` on the real binary: `apply`, `verify` and `status` write the Prometheus text
/// format that `promtool check metrics` accepts, whichever way they end, and a failed run keeps
/// the last success of the file it replaces.
@Suite struct MetricsFileTests {
    static func manifest(_ fixture: ApplyFixture, failing: Bool) -> String {
        """
        version: 1
        resources:
          - id: pkgs
            slices:
              - {path: a.bin, url: "\(fixture.url("/gen/300/a.bin"))"}
        \(failing ? "      - {path: gone.bin, url: \"\(fixture.url("/status/404"))\"}" : "")
        """
    }

    /// The samples of a metrics file, as `name{labels}` → value.
    static func samples(_ text: String) -> [String: String] {
        var out: [String: String] = [:]
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            guard let space = line.lastIndex(of: " ") else { continue }
            out[String(line[..<space])] = String(line[line.index(after: space)...])
        }
        return out
    }

    /// `promtool check metrics` on the file (its lint included). A machine without promtool
    /// fails: `make deps` unpacks it.
    static func expectPromtoolAccepts(_ path: String, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        try #require(promtoolAvailable, "no promtool: make deps unpacks it from Debian's prometheus package", sourceLocation: sourceLocation)
        let checked = try await BinaryRunner(executable: "/bin/sh", defaultTimeout: .seconds(30)).run(["-c", "\(promtool) check metrics < '\(path)'"])
        #expect(checked.status == 0, "promtool check metrics: \(checked)", sourceLocation: sourceLocation)
    }

    @Test func applyVerifyAndStatusWriteMetricsThatPromtoolAccepts() async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        try fixture.write(manifest: Self.manifest(fixture, failing: false))
        let applied = try await fixture.apply(["--metrics-file", "metrics/apply.prom", "--metrics-label", "mirror=site"])
        #expect(applied.status == 0, "\(applied)")
        let text = try #require(fixture.directory.contents(of: "metrics/apply.prom"))
        let s = Self.samples(text)
        #expect(s[#"jobrun_run_exit_status{command="apply",mirror="site"}"#] == "0", "\(text)")
        #expect(s[#"jobrun_run_failed{command="apply",mirror="site"}"#] == "0", "\(text)")
        #expect(s[#"jobrun_resource_slices{command="apply",mirror="site",resource="pkgs",state="proven"}"#] == "1")
        #expect(s[#"jobrun_resource_fetched_bytes_total{command="apply",mirror="site",resource="pkgs"}"#] == "300")
        #expect(s[#"jobrun_origin_requests_total{command="apply",mirror="site",origin="\#(fixture.url("").dropLast())"}"#] == "1", "\(text)")
        #expect(s.keys.contains { $0.hasPrefix(#"jobrun_run_info{command="apply",mirror="site",run_id=""#) })
        try await Self.expectPromtoolAccepts(fixture.directory.path("metrics/apply.prom"))

        let verified = try await fixture.run(["verify", "site.yaml", "--metrics-file", "metrics/verify.prom"])
        #expect(verified.status == 0, "\(verified)")
        let v = Self.samples(try #require(fixture.directory.contents(of: "metrics/verify.prom")))
        #expect(v[#"jobrun_resource_slices{command="verify",resource="pkgs",state="proven"}"#] == "1")
        #expect(v[#"jobrun_resource_proof_age_seconds{command="verify",resource="pkgs"}"#] != nil)
        try await Self.expectPromtoolAccepts(fixture.directory.path("metrics/verify.prom"))

        // The file gone: status says so, and exits 1.
        try FileManager.default.removeItem(atPath: fixture.directory.path("mirror/pkgs/a.bin"))
        let status = try await fixture.run(["status", "site.yaml", "--metrics-file", "metrics/status.prom"])
        #expect(status.status == 1, "\(status)")
        let st = Self.samples(try #require(fixture.directory.contents(of: "metrics/status.prom")))
        #expect(st[#"jobrun_resource_slices{command="status",resource="pkgs",state="missing"}"#] == "1")
        #expect(st[#"jobrun_run_exit_status{command="status"}"#] == "1")
        try await Self.expectPromtoolAccepts(fixture.directory.path("metrics/status.prom"))
    }

    @Test func aFailedRunKeepsTheLastSuccessAndSaysWhatFailed() async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        try fixture.write(manifest: Self.manifest(fixture, failing: false))
        #expect(try await fixture.apply(["--metrics-file", "apply.prom"]).status == 0)
        let before = Self.samples(try #require(fixture.directory.contents(of: "apply.prom")))
        let success = try #require(before[#"jobrun_resource_last_success_timestamp_seconds{command="apply",resource="pkgs"}"#])

        try fixture.write(manifest: Self.manifest(fixture, failing: true))
        let failed = try await fixture.apply(["--metrics-file", "apply.prom"])
        #expect(failed.status == 1, "\(failed)")
        let after = Self.samples(try #require(fixture.directory.contents(of: "apply.prom")))
        #expect(after[#"jobrun_run_exit_status{command="apply"}"#] == "1" && after[#"jobrun_run_success{command="apply"}"#] == "0")
        #expect(after[#"jobrun_resource_slices{command="apply",resource="pkgs",state="failed"}"#] == "1")
        #expect(after[#"jobrun_resource_last_success_timestamp_seconds{command="apply",resource="pkgs"}"#] == success)
        #expect(after[#"jobrun_run_last_success_timestamp_seconds{command="apply"}"#] == before[#"jobrun_run_last_success_timestamp_seconds{command="apply"}"#])
        try await Self.expectPromtoolAccepts(fixture.directory.path("apply.prom"))

        // A manifest that does not load: the run's status, and nothing of its resources.
        try fixture.write(manifest: "version: 1\nresources: [")
        let invalid = try await fixture.apply(["--metrics-file", "apply.prom"])
        #expect(invalid.status == 65, "\(invalid)")
        let broken = Self.samples(try #require(fixture.directory.contents(of: "apply.prom")))
        #expect(broken[#"jobrun_run_exit_status{command="apply"}"#] == "65" && !broken.keys.contains { $0.hasPrefix("jobrun_resource_slices") })
        // Its resources' last successes stand: the alert on their age goes on counting.
        #expect(broken[#"jobrun_resource_last_success_timestamp_seconds{command="apply",resource="pkgs"}"#] == success)
    }

    /// With an event stream and without one: the metrics file has last words of its own.
    @Test(arguments: [true, false])
    func aSignalOutsideTheTransfersStillWritesTheMetrics(withEvents: Bool) async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        // The catalog is slow to come: the signal finds the run fetching it, before any transfer.
        try fixture.write(
            manifest: """
                version: 1
                resources:
                  - id: rel
                    base_url: "\(fixture.url("/gen/10/"))"
                    slices_from: {url: "\(fixture.url(FaultServer.path("/gen/80/SHA256SUMS", faults: "delay_ms=60000")))"}
                """)
        let events = withEvents ? ["--events", "events.ndjson"] : []
        let apply = try fixture.startApply(["--metrics-file", "apply.prom", "--progress", "plain"] + events)
        defer { apply.kill() }
        // Started (its first progress line is written): what follows is the lock and the catalog.
        let started = await Poll.until(timeout: .seconds(60)) { apply.stderr.contains("apply started") }
        try #require(started, "the run did not start: \(apply.stderr)")
        apply.signal(SIGTERM)
        let result = try #require(await apply.wait(timeout: .seconds(20)), "jobrun did not stop after SIGTERM")
        #expect(result.status == 143 && result.signal == nil, "\(result)")
        let s = Self.samples(try #require(fixture.directory.contents(of: "apply.prom"), "no metrics file: \(result)"))
        // Stopped, not failed: the next run continues.
        #expect(s[#"jobrun_run_exit_status{command="apply"}"#] == "143" && s[#"jobrun_run_failed{command="apply"}"#] == "0", "\(s)")
        #expect(s.keys.contains { $0.hasPrefix(#"jobrun_run_info{command="apply",run_id="#) && $0.hasSuffix(#"stop_reason="signal"}"#) }, "\(s)")
        if withEvents {
            let stream = fixture.directory.contents(of: "events.ndjson") ?? ""
            #expect(stream.components(separatedBy: #""type":"run_end""#).count == 2, "\(stream)")
        }
    }

    @Test(arguments: [
        (["--metrics-label", "mirror=a"], "--metrics-label needs --metrics-file"),
        (["--metrics-file", "m.prom", "--metrics-label", "mirror="], "VALUE not empty"),
        (["--metrics-file", "m.prom", "--metrics-label", "resource=x"], "'resource' is a label jobrun's metrics already have"),
        (["--metrics-file", "m.prom", "--metrics-label", "9x=y"], "expected NAME=VALUE"),
        (["--metrics-file", "m.prom", "--metrics-label", "a=1", "--metrics-label", "a=2"], "'a' is given twice"),
    ])
    func badLabelsAreUsageErrors(arguments: [String], message: String) async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        try fixture.write(manifest: Self.manifest(fixture, failing: false))
        let result = try await fixture.apply(arguments)
        #expect(result.status == 64 && result.stderr.contains(message), "\(result)")
        #expect(try await fixture.sentRequests().isEmpty)
    }

    @Test func aMetricsFileThatCannotBeWrittenIsAnError() async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        try fixture.write(manifest: Self.manifest(fixture, failing: false))
        try FileManager.default.createDirectory(atPath: fixture.directory.path("taken.prom"), withIntermediateDirectories: true)
        let result = try await fixture.apply(["--metrics-file", "taken.prom", "--events", "events.ndjson"])
        #expect(result.status == 74 && result.stderr.contains("cannot write the metrics file 'taken.prom'"), "\(result)")
        // The stream's run_end says the status the process exits with.
        #expect(
            fixture.directory.contents(of: "events.ndjson")?.contains(#""exit_status":74"#) == true, "\(fixture.directory.contents(of: "events.ndjson") ?? "")")
        #expect(fixture.size(of: "mirror/pkgs/a.bin") == 300, "the run did not go on")
    }

    @Test func theDocumentedAlertRulesAreValidAndFireWhenTheyShould() async throws {
        try #require(promtoolAvailable, "no promtool: make deps unpacks it from Debian's prometheus package")
        let folder = (SharedPaths.packageRoot(startingAt: #filePath) ?? ".") + "/examples/monitoring"
        let runner = BinaryRunner(executable: promtool, defaultTimeout: .seconds(60))
        let checked = try await runner.run(["check", "rules", folder + "/jobrun-alerts.yml"])
        #expect(checked.status == 0 && checked.stdout.contains("SUCCESS: 2 rules found"), "\(checked)")
        let tested = try await runner.run(["test", "rules", folder + "/jobrun-alerts.test.yml"])
        #expect(tested.status == 0 && tested.stdout.contains("SUCCESS"), "\(tested)")
    }
}
