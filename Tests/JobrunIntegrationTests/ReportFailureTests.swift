import Foundation
import JobrunTestSupport
import Testing

/// A report that cannot be written completely is an error that names it, exit 74, never 0; each
/// requested report is attempted on its own, and the summary line is always printed.
@Suite struct ReportFailureTests {
    static func manifest(_ fixture: ApplyFixture) -> String {
        """
        version: 1
        resources:
          - id: r
            slices:
              - {path: a.bin, url: "\(fixture.url("/gen/3000/a.bin"))", size: 3000}
              - {path: b.bin, url: "\(fixture.url("/gen/200/b.bin"))"}

        """
    }

    /// `jobrun arguments…` in the fixture's folder with its stdout on `/dev/full`, where every
    /// write fails with ENOSPC, as on a full disk.
    static func runOnFullDisk(_ arguments: [String], in fixture: ApplyFixture) async throws -> RunResult {
        let jobrun = try BinaryRunner.locate()
        let shell = BinaryRunner(executable: "/bin/sh", defaultTimeout: Harness.timeout)
        return try await shell.run(
            ["-c", "exec \"$0\" \"$@\" > /dev/full", jobrun] + arguments,
            removingEnvironment: ApplyFixture.removedEnvironment(keeping: [:]), workingDirectory: fixture.directory.path)
    }

    @Test func aJSONReportCutShortIsAnError() async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        try fixture.write(manifest: Self.manifest(fixture))
        let apply = try await Self.runOnFullDisk(["apply", "site.yaml", "--json"], in: fixture)
        #expect(apply.status == 74, "\(apply)")
        #expect(apply.stderr.contains("jobrun: error: cannot write the JSON report to stdout: No space left on device\n"), "\(apply)")
        // The run itself went through, and its summary is on stderr beside the JSON.
        #expect(apply.stderr.contains("Apply complete! Slices: 2 fetched"), "\(apply)")

        for (arguments, status) in [
            (["plan", "site.yaml", "--json"], Int32(74)), (["plan", "site.yaml", "--json", "--detailed-exitcode"], 1),
            (["verify", "site.yaml", "--json"], 74), (["status", "site.yaml", "--json"], 74),
            (["verify", "site.yaml"], 74), (["validate", "site.yaml"], 74),
        ] {
            let result = try await Self.runOnFullDisk(arguments, in: fixture)
            #expect(result.status == status, "\(arguments): \(result)")
            #expect(result.stderr.contains("jobrun: error: cannot write the "), "\(arguments): \(result)")
        }
    }

    /// An unwritable JUnit report and checksum list leave the JSON on stdout whole and the
    /// summary printed; both are named, and the run exits 74.
    @Test func oneUnwritableReportLeavesTheOthers() async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        try fixture.write(manifest: Self.manifest(fixture))
        // A regular file where a folder should be: unwritable even for root.
        try fixture.directory.write(file: "blocked", contents: "a file\n")
        let (apply, report) = try await fixture.applyJSON(["--junit", "blocked/junit.xml", "--record-sums", "blocked/{id}.sha256"])
        #expect(apply.status == 74, "\(apply)")
        #expect(report.summary.fetched == 2, "\(apply)")
        #expect(apply.stderr.contains("jobrun: error: cannot write the JUnit report 'blocked/junit.xml': "), "\(apply)")
        #expect(apply.stderr.contains("jobrun: error: cannot write the sums of 'r' to 'blocked/r.sha256': "), "\(apply)")
        #expect(apply.stderr.contains("cannot write the JUnit report 'blocked/junit.xml': Not a directory (creating a temporary file)\n"), "\(apply)")
        #expect(
            apply.stderr.hasSuffix(
                "\nApply complete! Slices: 2 fetched (3.1 KiB), 0 resumed, 0 up to date, 0 failed, 0 deferred; 2 without digests (1 size only, 1 unverified).\n"
            ), "\(apply)")

        let verify = try await fixture.run(["verify", "site.yaml", "--junit", "blocked/v.xml", "--record-sums", "sums/{id}.sha256"])
        #expect(verify.status == 74, "\(verify)")
        #expect(
            verify.stdout.hasSuffix("\nVerify: 2 ok, 0 mismatched, 0 missing, 0 errors; 2 without digests (1 size only, 1 unverified); 2 proven by hashing.\n"),
            "\(verify)")
        #expect(fixture.directory.exists("sums/r.sha256"), "the list after the failed JUnit report was not written")

        let plan = try await fixture.run(["plan", "site.yaml", "--out", "blocked/plan.json"])
        #expect(plan.status == 74 && plan.stderr.contains("cannot write the saved plan 'blocked/plan.json': "), "\(plan)")
        #expect(!plan.stderr.contains("Saved the plan"), "\(plan)")
    }

    /// A failed report takes nothing else away: the plan saved beside unwritable events is still
    /// said saved, and with `--detailed-exitcode` an events file that cannot even be opened is 1.
    @Test func aFailedReportHidesNothingElse() async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        try fixture.write(manifest: Self.manifest(fixture))
        let plan = try await fixture.run(["plan", "site.yaml", "--out", "plan.json", "--events", "/dev/full"])
        #expect(plan.status == 74 && plan.stderr.contains("jobrun: error: cannot write the events to '/dev/full': No space left on device"), "\(plan)")
        #expect(plan.stderr.contains("Saved the plan to plan.json.\n") && fixture.directory.exists("plan.json"), "\(plan)")

        try fixture.directory.write(file: "blocked", contents: "a file\n")
        for (arguments, status) in [([String](), Int32(74)), (["--detailed-exitcode"], 1)] {
            let result = try await fixture.run(["plan", "site.yaml", "--events", "blocked/events.ndjson"] + arguments)
            #expect(result.status == status, "\(arguments): \(result)")
            #expect(result.stderr.contains("jobrun: error: cannot open the events file 'blocked/events.ndjson': Not a directory"), "\(result)")
        }
    }
}
