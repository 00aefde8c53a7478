import Foundation
import JobrunTestSupport
import Testing

/// `-q` on every command that prints a summary: only problems, then the summary.
@Suite struct QuietOutputTests {
    @Test func planSaysOnlyItsSummary() async throws {
        let quiet = try await ExitStatusTests.run(["plan", "site.yaml", "--output", "mirror", "-q"])
        #expect(quiet.status == 0, "\(quiet)")
        #expect(quiet.stdout.hasPrefix("Plan: 2 to fetch") && quiet.stdout.components(separatedBy: "\n").count == 2, "\(quiet)")
        let both = try await ExitStatusTests.run(["plan", "site.yaml", "-q", "-v"])
        #expect(both.status == 64 && both.stderr.contains("--quiet and --verbose cannot be used together"), "\(both)")
    }

    /// A resource that is not all proven keeps its line; the proven ones and the runs are left out.
    @Test func statusSaysOnlyWhatIsNotProven() async throws {
        let result = try await ExitStatusTests.run(["status", "site.yaml", "--output", "mirror", "--quiet"], populated: true) { directory in
            try FileManager.default.removeItem(atPath: directory.path("mirror/docs/hello.txt"))
        }
        #expect(result.status == 1, "\(result)")
        let lines = result.stdout.split(separator: "\n")
        #expect(lines.count == 2 && lines[0].hasPrefix("~ ") && lines[1].hasPrefix("Status: "), "\(result)")
    }

    @Test func verifySaysOnlyItsProblems() async throws {
        let result = try await ExitStatusTests.run(["verify", "site.yaml", "--output", "mirror", "-q"], populated: true)
        #expect(result.status == 0 && result.stdout == "Verify: 2 ok, 0 mismatched, 0 missing, 0 errors; 2 proven by hashing.\n", "\(result)")
    }
}
