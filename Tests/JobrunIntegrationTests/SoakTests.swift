import Foundation
import JobrunTestSupport
import Testing

/// `make soak` (`bench/soak.py`, docs/soak.md), short: 300 slices under chaos, two SIGKILLs,
/// a clean apply and a verify, with every check of the full soak.
@Suite struct SoakTests {
    @Test func aShortChaosSoakPassesEveryCheck() async throws {
        let directory = try TemporaryDirectory(prefix: "soak-test")
        defer { directory.remove() }
        let script = try Harness.packageRoot + "/bench/soak.py"
        let jobrun = try BinaryRunner.locate()
        let python = ProcessInfo.processInfo.environment[FaultServer.pythonVariable].flatMap { $0.isEmpty ? nil : $0 } ?? "python3"
        let result = try await BinaryRunner(executable: "/usr/bin/env", defaultTimeout: .seconds(240)).run(
            [python, script, jobrun],
            environment: [
                "SOAK_SLICES": "300", "SOAK_KILLS": "2", "SOAK_SEED": "3", "SOAK_DIR": directory.path("soak"),
                "SOAK_TIMEOUT": "200",
            ])
        #expect(result.status == 0 && !result.hasTimedOut, "\(result)")
        let checks = result.stdout.split(separator: "\n").filter { $0.hasPrefix("  PASS") || $0.hasPrefix("  FAIL") }
        #expect(checks.count == 7 && checks.allSatisfy { $0.hasPrefix("  PASS") }, "\(result.stdout)")
        #expect(result.stdout.hasSuffix("Soak: PASS\n"), "\(result.stdout)")
        #expect(result.stdout.contains("Kills       2 (SIGKILL)"), "\(result.stdout)")
    }
}
