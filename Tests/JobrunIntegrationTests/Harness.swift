import Foundation
import JobrunTestSupport
import Testing

/// How these tests run the real `jobrun`: always from a scratch folder as the working directory
/// (so every path it prints is short and stable), with an environment scrubbed of what would
/// change its output.
enum Harness {
    /// This test target's source folder (goldens and the corpus live beside the tests).
    static let testDirectory = (#filePath as NSString).deletingLastPathComponent

    /// The package root, found by walking up from this file to `Package.swift`.
    static var packageRoot: String {
        get throws { try #require(SharedPaths.packageRoot(startingAt: #filePath), "no Package.swift above \(#filePath)") }
    }

    /// Variables that change jobrun's output or the help layout, and the corpus' "unset" ones.
    static let scrubbedEnvironment: Set<String> = [
        "COLUMNS", "LINES", "SOURCE_DATE_EPOCH", "JOBRUN_HOSTNAME", "JOBRUN_PROGRESS", "JOBRUN_RUN_ID",
        "JOBRUN_CORPUS_UNSET_TOKEN", "JOBRUN_CORPUS_UNSET_KEY", "JOBRUN_METERED", "DBUS_SYSTEM_BUS_ADDRESS",
    ]

    /// What every run gets unless a test sets or removes it: no progress output, so that stderr
    /// holds only what the test is about (a plain progress log has its start and end lines even
    /// in a short run; the progress tests set or remove the variable).
    static let quietProgress = ["JOBRUN_PROGRESS": "none"]

    /// `environment` with ``quietProgress`` unless it sets the variable or `removed` lists it.
    static func environment(_ environment: [String: String], removing removed: Set<String> = []) -> [String: String] {
        environment.merging(quietProgress.filter { !removed.contains($0.key) }) { set, _ in set }
    }

    /// Generous: a debug build on two shared cores, but a hang still ends the test.
    static let timeout: Duration = .seconds(60)

    static func jobrun() throws -> BinaryRunner {
        var runner = try BinaryRunner.jobrun()
        runner.defaultTimeout = timeout
        return runner
    }

    /// Runs `jobrun arguments…` in `directory`, without the scrubbed variables (and `extra`)
    /// unless `environment` sets them; a timeout or a signal is a test failure.
    static func run(
        _ arguments: [String], in directory: String, environment: [String: String] = [:], alsoRemoving extra: Set<String> = [],
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> RunResult {
        let environment = Self.environment(environment, removing: extra)
        let result = try await jobrun().run(
            arguments, environment: environment, removingEnvironment: scrubbedEnvironment.union(extra).subtracting(environment.keys),
            workingDirectory: directory)
        #expect(!result.hasTimedOut, "jobrun \(arguments.joined(separator: " ")) timed out\n\(result)", sourceLocation: sourceLocation)
        #expect(result.signal == nil, "jobrun \(arguments.joined(separator: " ")) died of a signal\n\(result)", sourceLocation: sourceLocation)
        return result
    }

    /// `Golden/<name>` beside the tests; fails with a diff when different (records with JOBRUN_RECORD_GOLDENS=1).
    static func expectGolden(_ actual: String, _ name: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let failure = Golden.compare(actual, file: testDirectory + "/Golden/" + name)
        #expect(failure == nil, "\(failure ?? "")", sourceLocation: sourceLocation)
    }

    /// The version string jobrun reports, so goldens need not change on every release.
    static func version() async throws -> String {
        let result = try await jobrun().run(["--version"], removingEnvironment: scrubbedEnvironment)
        let version = result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        try #require(result.status == 0 && !version.isEmpty, "\(result)")
        return version
    }

    /// `text` with the free space and margin of file systems (plan text and JSON) replaced by
    /// `@FREE@` and `@MARGIN@`: they are this machine's figures, not jobrun's output.
    static func maskingFreeSpace(_ text: String) -> String {
        text.replacing(#/, [0-9.]+ [A-Za-z]+ free/#, with: ", @FREE@ free")
            .replacing(#/less a [0-9.]+ [A-Za-z]+ margin/#, with: "less a @MARGIN@ margin")
            .replacing(#/"free_bytes": [0-9]+/#, with: #""free_bytes": @FREE@"#)
            .replacing(#/"margin_bytes": [0-9]+/#, with: #""margin_bytes": @MARGIN@"#)
    }

    /// `text` with jobrun's own version (in JSON and JUnit fields) replaced by `@VERSION@`.
    static func maskingVersion(_ text: String, _ version: String) -> String {
        text.replacingOccurrences(of: #""jobrun_version": "\#(version)""#, with: #""jobrun_version": "@VERSION@""#)
            .replacingOccurrences(
                of: #"name="jobrun_version" value="\#(version)""#, with: #"name="jobrun_version" value="@VERSION@""#)
    }
}
