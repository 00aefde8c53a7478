import Foundation
import JobrunTestSupport
import Testing

/// Progress and detail where no person watches (stderr a pipe, as under cron or CI): plain
/// lines only, never an escape sequence; `--progress`, `JOBRUN_PROGRESS`, `-q` and `-v`.
/// Serialized: each case keeps a server dripping for a second or two, and together they
/// would crowd out the suite's tests that act on time (signals at a given moment).
@Suite(.serialized) struct ApplyProgressTests {
    static let runID = "01JDPROGRESS0000000000000000"

    /// `alpha`: three slices dripped over `seconds` and a 404; `beta`: two dripped over twice as
    /// long; `gamma` depends on `alpha` (so it is skipped). All at once (per host 8).
    static func manifest(_ fixture: ApplyFixture, seconds: Double) -> String {
        func drip(_ name: String, size: Int, seconds: Double) -> String {
            let url = fixture.url(FaultServer.path("/gen/\(size)/\(name)", faults: "drip=\(Int(Double(size) / seconds))"))
            return "      - {path: \(name), url: \"\(url)\", size: \(size)}"
        }
        return """
            version: 1
            defaults:
              concurrency: {per_host: 8, total: 8}
            resources:
              - id: alpha
                slices:
            \(drip("a1.bin", size: 30_000, seconds: seconds))
            \(drip("a2.bin", size: 30_000, seconds: seconds))
            \(drip("a3.bin", size: 30_000, seconds: seconds))
                  - {path: gone.bin, url: "\(fixture.url("/status/404"))", size: 10}
              - id: beta
                slices:
            \(drip("b1.bin", size: 60_000, seconds: 2 * seconds))
            \(drip("b2.bin", size: 60_000, seconds: 2 * seconds))
              - id: gamma
                depends_on: [alpha]
                slices:
                  - {path: c.bin, url: "\(fixture.url("/gen/100/c.bin"))", size: 100}

            """
    }

    /// What decides the progress output, removed unless a test sets it.
    static let deciding: Set<String> = ["CI", "TERM", "NO_COLOR", "JOBRUN_PROGRESS", "JOBRUN_RUN_ID"]

    static func apply(
        _ fixture: ApplyFixture, _ extra: [String], environment: [String: String] = [:], sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> RunResult {
        var environment = environment
        environment["JOBRUN_RUN_ID"] = environment["JOBRUN_RUN_ID"] ?? runID
        return try await Harness.run(
            ["apply", "site.yaml"] + extra, in: fixture.directory.path, environment: environment,
            alsoRemoving: ApplyFixture.proxyVariables.union(deciding), sourceLocation: sourceLocation)
    }

    /// A progress line of the fixture's run.
    static func isPlainLine(_ line: Substring) -> Bool {
        line.wholeMatch(
            of:
                #/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z jobrun 01JDPROGRESS0000000000000000: \d{1,3}% [0-9.]+ [KMG]?i?B of 205\.2 KiB, [0-9.]+ [KMG]?i?B/s(, ETA [0-9a-z ]+)?; \d of 7 slices, \d running, \d retrying, [01] failed$/#
        ) != nil
    }

    /// The fixture run's first line, with the time and the run id.
    static func isStartLine(_ line: Substring) -> Bool {
        line.wholeMatch(of: #/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z jobrun 01JDPROGRESS0000000000000000: apply started: 3 resources, 7 slices$/#) != nil
    }

    /// The fixture run's last line (it exits 1: a slice fails).
    static func isEndLine(_ line: Substring) -> Bool {
        line.wholeMatch(of: #/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z jobrun 01JDPROGRESS0000000000000000: apply ended: exit 1, \d+\.\d s$/#) != nil
    }

    /// The start line, progress lines, the end line: nothing else.
    static func expectPlainLog(_ result: RunResult, sourceLocation: SourceLocation = #_sourceLocation) {
        let lines = result.stderr.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        #expect(lines.count >= 2 && result.stderr.hasSuffix("\n"), "\(result)", sourceLocation: sourceLocation)
        guard let first = lines.first, let last = lines.last else { return }
        #expect(isStartLine(first) && isEndLine(last), "\(result)", sourceLocation: sourceLocation)
        for line in lines.dropFirst().dropLast() {
            #expect(isPlainLine(line), "not a progress line: \(line)", sourceLocation: sourceLocation)
        }
    }

    static let lastLine =
        "Apply failed! Slices: 5 fetched (205.1 KiB), 0 resumed, 0 up to date, 1 failed, 0 deferred; 5 without digests (5 size only, 0 unverified).\n"

    /// stderr a pipe, whether `auto` decides (on a terminal type, outside CI) or `plain` is
    /// asked, by flag or variable: the timestamped lines with the run id every interval, and
    /// nothing else; no escape sequence anywhere.
    @Test(arguments: [
        ([String](), ["TERM": "xterm-256color"]),
        (["--progress", "plain"], ["TERM": "xterm-256color", "CI": "true"]),
        ([], ["TERM": "xterm-256color", "JOBRUN_PROGRESS": "plain"]),
    ])
    func plainLinesWhereNobodyWatches(arguments: [String], environment: [String: String]) async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        try fixture.write(manifest: Self.manifest(fixture, seconds: 0.6))
        let result = try await Self.apply(fixture, ["--progress-interval", "100ms"] + arguments, environment: environment)
        #expect(result.status == 1, "\(result)")
        Self.expectPlainLog(result)
        #expect(result.stderr.split(separator: "\n").count >= 4, "\(result)")
        #expect(!result.stderr.contains("\u{1B}") && !result.stdout.contains("\u{1B}"), "\(result)")
        #expect(result.stdout.hasSuffix(Self.lastLine), "\(result)")
    }

    /// `none`, and `-q` unless `--progress` is given (the variable does not count): nothing on
    /// stderr; `-q` keeps problems and the summary.
    @Test(arguments: [
        (["--progress", "none"], [String: String](), false),
        (["-q"], [:], true),
        (["--quiet"], ["JOBRUN_PROGRESS": "plain"], true),
        ([], ["JOBRUN_PROGRESS": "none"], false),
    ])
    func noProgress(arguments: [String], environment: [String: String], isQuiet: Bool) async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        try fixture.write(manifest: Self.manifest(fixture, seconds: 0.3))
        let result = try await Self.apply(fixture, ["--progress-interval", "50ms"] + arguments, environment: environment)
        #expect(result.status == 1 && result.stderr.isEmpty, "\(result)")
        let problems = [
            "! alpha/gone.bin: HTTP 404 (\(fixture.url("/status/404")), 1 attempt)\n",
            "! alpha: 1 of 4 slices failed\n",
        ]
        let quiet = problems.joined() + "Not finished: 0 cut in flight (0 partial files kept to resume), 1 not started (a dependency failed).\n" + Self.lastLine
        #expect((result.stdout == quiet) == isQuiet, "\(result)")
        #expect(result.stdout.contains("- gamma: skipped") == !isQuiet && result.stdout.contains("+ beta: 2 fetched") == !isQuiet)
    }

    /// `-q --progress plain`: the progress lines a cron log wants, and only problems besides.
    @Test func quietWithPlainProgress() async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        try fixture.write(manifest: Self.manifest(fixture, seconds: 0.6))
        let result = try await Self.apply(fixture, ["-q", "--progress", "plain", "--progress-interval", "100ms"])
        #expect(result.status == 1 && !result.stdout.contains("+ beta"), "\(result)")
        Self.expectPlainLog(result)
    }

    /// A run shorter than `--progress-interval` writes no progress line, and still its start and
    /// end, with the time and the run id.
    @Test func aShortRunStillHasItsStartAndEnd() async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        try fixture.write(manifest: Self.manifest(fixture, seconds: 0.1))
        let result = try await Self.apply(fixture, ["-q", "--progress", "plain", "--progress-interval", "1h"])
        #expect(result.status == 1, "\(result)")
        Self.expectPlainLog(result)
        #expect(result.stderr.split(separator: "\n").count == 2, "\(result)")
    }

    /// `-v`: a line per slice that ended, fetched or failed, besides the resource lines.
    @Test func verboseSaysEverySlice() async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        try fixture.write(manifest: Self.manifest(fixture, seconds: 0.2))
        let result = try await Self.apply(fixture, ["-v", "--progress", "none"])
        #expect(result.status == 1, "\(result)")
        for (path, size) in [
            ("alpha/a1.bin", "29.3 KiB"), ("alpha/a2.bin", "29.3 KiB"), ("alpha/a3.bin", "29.3 KiB"), ("beta/b1.bin", "58.6 KiB"), ("beta/b2.bin", "58.6 KiB"),
        ] {
            #expect(result.stdout.contains("  \(path): fetched (\(size), "), "no line for \(path):\n\(result)")
        }
        #expect(result.stdout.contains("! alpha/gone.bin: HTTP 404") && result.stdout.contains("+ beta: 2 fetched"))
    }

    /// Usage errors: `-q` with `-v`, a mode that is none, by flag or variable.
    @Test(arguments: [
        (["-q", "-v"], [String: String](), "--quiet and --verbose cannot be used together"),
        (["--progress", "fancy"], [:], "'fancy' is not a progress mode (auto, tty, plain, none)"),
        ([], ["JOBRUN_PROGRESS": "TTY"], "jobrun: error: JOBRUN_PROGRESS: 'TTY' is not a progress mode (auto, tty, plain, none)"),
    ])
    func usageErrors(arguments: [String], environment: [String: String], message: String) async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        try fixture.write(manifest: Self.manifest(fixture, seconds: 0.1))
        let result = try await Self.apply(fixture, arguments, environment: environment)
        #expect(result.status == 64 && result.stderr.contains(message) && result.stdout.isEmpty, "\(result)")
        #expect(try fixture.server.requests().isEmpty)
    }

    /// `--progress tty` is drawn even into a pipe (asked for), cursor hidden then shown again;
    /// colored unless `NO_COLOR` is set to something.
    @Test(arguments: [[String: String](), ["NO_COLOR": "1"]])
    func ttyAskedForIntoAPipe(environment: [String: String]) async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        try fixture.write(manifest: Self.manifest(fixture, seconds: 0.6))
        let result = try await Self.apply(fixture, ["--progress", "tty"], environment: environment)
        #expect(result.status == 1 && result.stdout.hasSuffix(Self.lastLine) && !result.stdout.contains("\u{1B}"), "\(result)")
        #expect(result.stderr.hasPrefix("\u{1B}[?25l") && result.stderr.hasSuffix("\u{1B}[?25h"), "\(result.stderr.debugDescription)")
        #expect(result.stderr.contains("of 7 slices"))
        let isColored = (environment["NO_COLOR"] ?? "").isEmpty
        #expect(result.stderr.contains(#/\x1B\[[0-9;]*m/#) == isColored, "\(result.stderr.debugDescription)")
    }

    /// Slices of a few hundred KB on a slow link (bodies kept in memory until they end): their
    /// bytes count toward the percentage, bytes and rate as they arrive, not when they end.
    @Test func bytesCountAsTheyArrive() async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        let slices = (1...4).map { i in
            "      - {path: s\(i).bin, url: \"\(fixture.url(FaultServer.path("/gen/120000/s\(i).bin", faults: "drip=60000")))\", size: 120000}"
        }
        try fixture.write(
            manifest: """
                version: 1
                resources:
                  - id: slow
                    slices:
                \(slices.joined(separator: "\n"))

                """)
        let result = try await Self.apply(fixture, ["--progress", "plain", "--progress-interval", "200ms"])
        #expect(result.status == 0, "\(result)")
        // A line while the four transfers were under way: some bytes, not all, at some rate.
        let midway = result.stderr.split(separator: "\n").contains { line in
            guard let match = line.firstMatch(of: #/: (\d{1,3})% ([0-9.]+) ([KM]i)?B of 468\.8 KiB, ([0-9.]+) [KM]?i?B/s/#) else { return false }
            let percent = Int(match.1) ?? 0
            return percent > 0 && percent < 100 && (Double(match.4) ?? 0) > 0
        }
        #expect(midway, "no progress line showed the bytes arriving:\n\(result.stderr)")
    }
}
