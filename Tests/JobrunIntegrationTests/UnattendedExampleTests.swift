import Foundation
import JobrunTestSupport
import Testing

/// The cron and CI examples (examples/unattended) run as shipped: the cron wrapper against the
/// loopback server, and every option the GitLab job passes is one apply has.
@Suite struct UnattendedExampleTests {
    static func example(_ name: String) throws -> String {
        try Harness.packageRoot + "/examples/unattended/" + name
    }

    @Test func theCronWrapperLeavesALogAnEventStreamAndAReport() async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        let manifest = try fixture.write(
            manifest: """
                version: 1
                resources:
                  - id: r
                    slices:
                      - {path: a.bin, url: "\(fixture.url("/gen/10/a.bin"))", size: 10}
                      - {path: gone.bin, url: "\(fixture.url("/status/404"))"}

                """)
        let jobrun = try BinaryRunner.locate()
        let logs = fixture.directory.path("logs")
        let result = try await BinaryRunner(executable: "/bin/sh").run(
            [try Self.example("jobrun-cron")],
            environment: ["JOBRUN": jobrun, "JOBRUN_MANIFESTS": manifest, "JOBRUN_LOG_DIR": logs, "JOBRUN_RUN_ID": "cron-test", "JOBRUN_BUDGET": "2m"],
            removingEnvironment: ["JOBRUN_PROGRESS", "JOBRUN_DEADLINE"], workingDirectory: fixture.directory.path)
        #expect(result.status == 1, "the 404 fails the run, and the wrapper passes the status on: \(result)")
        let log = try #require(fixture.directory.contents(of: "logs/jobrun.log"))
        #expect(log.contains("! r/gone.bin: HTTP 404") && log.contains("Apply failed! Slices: 1 fetched"), "\(log)")
        // The run's first and last lines in the log say when, and which run (shorter than the
        // progress interval, it writes no progress line between them).
        let stamped = log.split(separator: "\n").filter { $0.contains(" jobrun cron-test: ") }
        #expect(stamped.count == 2, "\(log)")
        #expect(
            stamped.first?.wholeMatch(of: #/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z jobrun cron-test: apply started: 1 resource, 2 slices/#) != nil, "\(log)")
        #expect(stamped.last?.wholeMatch(of: #/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z jobrun cron-test: apply ended: exit 1, \d+\.\d s/#) != nil, "\(log)")
        let events = try #require(fixture.directory.contents(of: "logs/cron-test.ndjson")).split(separator: "\n")
        #expect(events.first?.contains("\"type\":\"run_start\"") == true && events.last?.contains("\"type\":\"run_end\"") == true, "\(events)")
        #expect(events.allSatisfy { $0.contains("\"run\":\"cron-test\"") })
        let junit = try JUnitFile.parse(try #require(fixture.directory.contents(of: "logs/cron-test.xml")))
        #expect(junit.cases["r/gone.bin"]?.kind == "error")
    }

    /// Each `--option` of the CI job's command line is in `jobrun apply --help`.
    @Test func theGitLabJobUsesOnlyOptionsApplyHas() async throws {
        let text = try String(contentsOfFile: try Self.example("gitlab-ci.yml.example"), encoding: .utf8)
        let options = Set(text.split(whereSeparator: { $0 == " " || $0 == "\n" }).filter { $0.hasPrefix("--") }.map(String.init))
        #expect(options.isSuperset(of: ["--deadline", "--progress", "--events", "--junit"]), "\(options)")
        let help = try await Harness.run(["apply", "--help"], in: NSTemporaryDirectory())
        for option in options {
            #expect(help.stdout.contains(option + " ") || help.stdout.contains(option + "\n"), "jobrun apply has no \(option)")
        }
    }
}
