import Foundation
import JobrunTestSupport
import Testing

/// `--deadline`: at the cutoff (deadline less margin) transfers in flight are cancelled with
/// their partial files kept; before it, a slice that would not finish in time does not start;
/// the run says so, exits 75, and the same command finishes the work later.
@Suite struct ApplyDeadlineTests {
    static let big = 2 << 20

    /// A slow slice is cut at the cutoff and kept; its dependent is not started; the small ones
    /// are in place. The rerun resumes the partial and refetches nothing committed.
    @Test func theCutoffCancelsWhatIsInFlightAndTheRerunFinishes() async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        let slow = "/gen/\(Self.big)/slow.bin"
        try fixture.write(
            manifest: """
                version: 1
                resources:
                  - id: first
                    slices:
                      - {path: a.bin, url: "\(fixture.url("/gen/10/a.bin"))", size: 10}
                      - {path: slow.bin, url: "\(fixture.url(FaultServer.path(slow, faults: "drip=262144", "n=1")))", size: \(Self.big), sha256: \(try fixture.digest(slow))}
                  - id: then
                    depends_on: [first]
                    slices:
                      - {path: later.bin, url: "\(fixture.url("/gen/10/later.bin"))"}

                """)
        let (result, report) = try await fixture.applyJSON(["--deadline", "3s", "--deadline-margin", "1s", "--junit", "junit.xml"])
        #expect(result.status == 75, "\(result)")
        // The run's own clock (the test's may be held up by others): it ended at the cutoff.
        #expect(report.summary.elapsedSeconds < 5, "the run went on long after its deadline: \(report.summary.elapsedSeconds) s")
        #expect(
            result.stderr.contains(
                "\nApply stopped at deadline: 1 fetched (10 B), 1 cut in flight (1 partial file kept to resume), 1 not started. Run the same command again to continue.\n"
            ), "\(result)")
        #expect(report.summary.stopReason == "deadline" && !report.summary.success, "\(report.summary)")
        #expect(
            report.summary.remaining == .init(cutInFlight: 1, partialsKept: 1, partialsDiscarded: 0, notStarted: 1, notStartedBytes: 0, notStartedUnsized: 1))
        let slices = Dictionary(uniqueKeysWithValues: report.resources.flatMap { r in r.slices.map { ("\(r.id)/\($0.path)", $0) } })
        #expect(slices["first/a.bin"]?.status == "fetched")
        #expect(
            slices["first/slow.bin"]?.status == "skipped"
                && slices["first/slow.bin"]?.skipReason == "cut in flight by the stop; its partial file is kept to resume")
        // Cut in flight: its error says so; a slice not started has none.
        #expect(
            slices["first/slow.bin"]?.error?.type == "Interrupted"
                && slices["first/slow.bin"]?.error?.message == "cut in flight by the stop; its partial file is kept to resume")
        #expect(slices["then/later.bin"]?.status == "skipped" && slices["then/later.bin"]?.skipReason == "not started: the run stopped at its deadline")
        #expect(slices["then/later.bin"]?.error == nil)
        let kept = fixture.size(of: "mirror/first/.slow.bin.jobrun-part") ?? 0
        #expect(kept > 0 && kept < Self.big, "partial: \(kept)")
        let junit = try JUnitFile.parse(try #require(fixture.directory.contents(of: "junit.xml")))
        #expect(junit.cases["jobrun/run"]?.kind == "error", "a run stopped at its deadline is not green")
        #expect(junit.cases["jobrun/run"]?.message?.hasPrefix("the run was stopped by the deadline before it finished") == true, "\(junit.cases)")

        let again = try await fixture.apply()
        #expect(again.status == 0, "\(again)")
        #expect(again.stdout.contains("+ first: 1 resumed, 1 up to date ("), "\(again)")
        #expect(again.stdout.contains("Apply complete! Slices: 1 fetched ("), "\(again)")
        #expect(try fixture.server.requests(path: "/gen/10/a.bin").count == 1, "a committed slice was fetched again")
        let resumes = try fixture.server.requests(path: FaultServer.path(slow, faults: "drip=262144", "n=1"))
        #expect(resumes.count == 2 && resumes[1].header(named: "Range") == "bytes=\(kept)-", "\(resumes)")
        try await fixture.expectVerified()
    }

    /// Two slices of resource `r`: one dripped at 256 KiB/s for a second (the origin's rate is
    /// then known), then 8 MiB that would need about 41 s at that rate.
    static func measuredThenHuge(_ fixture: ApplyFixture) -> String {
        let measured = FaultServer.path("/gen/\(256 << 10)/measured.bin", faults: "drip=262144")
        return """
                  - {path: measured.bin, url: "\(fixture.url(measured))", size: \(256 << 10)}
                  - {path: huge.bin, url: "\(fixture.url("/gen/8388608/huge.bin"))", size: 8388608}
            """
    }

    /// Once an origin's rate is known, a slice that would not finish before the cutoff is not
    /// requested at all; a small one still is.
    @Test func aSliceThatCannotFinishInTimeIsNotStarted() async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        try fixture.write(
            manifest: """
                version: 1
                defaults:
                  concurrency: {per_host: 1}
                resources:
                  - id: r
                    slices:
                \(Self.measuredThenHuge(fixture))
                      - {path: small.bin, url: "\(fixture.url("/gen/10/small.bin"))", size: 10}

                """)
        let (result, report) = try await fixture.applyJSON(["--deadline", "12s", "--deadline-margin", "1s"])
        #expect(result.status == 75, "\(result)")
        let slices = Dictionary(uniqueKeysWithValues: report.resources[0].slices.map { ($0.path, $0) })
        #expect(slices["measured.bin"]?.status == "fetched" && slices["small.bin"]?.status == "fetched", "\(result)")
        #expect(slices["huge.bin"]?.status == "skipped", "\(result)")
        #expect(slices["huge.bin"]?.skipReason?.hasPrefix("not started: it needs about ") == true, "\(String(describing: slices["huge.bin"]?.skipReason))")
        #expect(try fixture.server.requests(path: "/gen/8388608/huge.bin").isEmpty, "the slice that could not finish was requested")
        #expect(result.stderr.contains("Apply stopped at deadline: 2 fetched"), "\(result)")
    }

    /// A slice held back by the deadline does not stop the rest: a resource whose dependency
    /// completes later still starts, and the lines say the deadline (not a signal) stopped `r`.
    @Test func aHeldBackSliceLeavesTheRestOfTheRunGoing() async throws {
        let fixture = try ApplyFixture(secondPort: true)
        defer { fixture.finish() }
        let second = try #require(fixture.server.secondBaseURL)
        let slowX = "/gen/\(256 << 10)/x.bin"
        try fixture.write(
            manifest: """
                version: 1
                defaults:
                  concurrency: {per_host: 1}
                resources:
                  - id: r
                    slices:
                \(Self.measuredThenHuge(fixture))
                  - id: x
                    slices:
                      - {path: x.bin, url: "\(second)\(FaultServer.path(slowX, faults: "drip=131072"))", size: \(256 << 10)}
                  - id: y
                    depends_on: [x]
                    slices:
                      - {path: y.bin, url: "\(fixture.url("/gen/10/y.bin"))", size: 10}

                """)
        let result = try await fixture.apply(["--deadline", "12s", "--deadline-margin", "1s"])
        #expect(result.status == 75, "\(result)")
        #expect(result.stdout.contains("! r: stopped at the deadline, 1 of 2 slices not finished\n"), "\(result)")
        #expect(result.stdout.contains("+ y: 1 fetched (10 B), 1 size only\n"), "\(result)")
        #expect(result.stdout.contains("(the run was stopped at the deadline, or a dependency failed)"), "\(result)")
        #expect(!result.stdout.contains("interrupted"), "\(result)")
        #expect(try fixture.server.requests(path: "/gen/8388608/huge.bin").isEmpty)
    }

    /// Declared sizes whose sum overflows 64 bits are counted, not a crash.
    @Test func hugeDeclaredSizesDoNotOverflow() async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        let pebibyte: Int64 = 1 << 50
        let slices = (0..<9_000).map { "      - {path: s\($0), size: \(pebibyte)}" }.joined(separator: "\n")
        try fixture.write(manifest: "version: 1\nresources:\n  - id: r\n    base_url: \(fixture.url("/gen/1/"))\n    slices:\n\(slices)\n")
        let result = try await fixture.apply(["--no-space-check", "--deadline", "2000-01-01T00:00:00Z"])
        #expect(result.status == 75, "\(result.stderr)")
        #expect(result.stdout.contains("9000 not started ("), "\(result.stdout.suffix(300))")
    }

    /// A deadline already past starts nothing: everything is "not started", exit 75.
    @Test func aDeadlineInThePastStartsNothing() async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        try fixture.write(
            manifest: """
                version: 1
                resources:
                  - id: r
                    slices:
                      - {path: a.bin, url: "\(fixture.url("/gen/10/a.bin"))", size: 10}

                """)
        let result = try await fixture.apply(["--deadline", "2000-01-01T00:00:00Z"])
        #expect(result.status == 75, "\(result)")
        #expect(
            result.stdout.hasSuffix(
                "Apply stopped at deadline: 0 fetched (0 B), 0 cut in flight (0 partial files kept to resume), 1 not started (10 B). Run the same command again to continue.\n"
            ), "\(result)")
        #expect(try fixture.server.requests(path: "/gen/10/a.bin").isEmpty)
    }

    @Test(arguments: [
        (["--deadline", "soon"], [String: String](), "--deadline: 'soon': not a duration"),
        (["--deadline", "auto"], [:], "'auto' needs CI_JOB_STARTED_AT and CI_JOB_TIMEOUT"),
        ([], ["JOBRUN_DEADLINE": "yesterday"], "--deadline: 'yesterday'"),
        (["--deadline", "1m", "--deadline-margin", "x"], [:], "--deadline-margin: 'x' is not a duration"),
    ])
    func badDeadlinesAreUsageErrors(arguments: [String], environment: [String: String], message: String) async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        try fixture.write(manifest: "version: 1\nresources:\n  - id: r\n    slices:\n      - {path: a, url: \"\(fixture.url("/gen/1/a"))\"}\n")
        let result = try await fixture.apply(arguments, environment: environment)
        #expect(result.status == 64 && result.stderr.contains(message), "\(result)")
        #expect(try fixture.server.requests().isEmpty)
    }
}
