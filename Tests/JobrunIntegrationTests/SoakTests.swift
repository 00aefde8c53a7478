import Foundation
import JobrunTestSupport
import Testing

/// `make soak` (`bench/soak.py`, docs/soak.md), short: 300 slices under chaos, two SIGKILLs,
/// a clean apply and a verify, with every check of the full soak; and its three-origin, pruning
/// and publishing modes.
@Suite struct SoakTests {
    /// `bench/soak.py` with 300 slices, two kills and `environment`: its output, once it passed
    /// `checks` checks and every one of them.
    static func soak(_ environment: [String: String], checks expected: Int) async throws -> String {
        let directory = try TemporaryDirectory(prefix: "soak-test")
        defer { directory.remove() }
        let script = try Harness.packageRoot + "/bench/soak.py"
        let jobrun = try BinaryRunner.locate()
        let python = ProcessInfo.processInfo.environment[FaultServer.pythonVariable].flatMap { $0.isEmpty ? nil : $0 } ?? "python3"
        let result = try await BinaryRunner(executable: "/usr/bin/env", defaultTimeout: .seconds(240)).run(
            [python, script, jobrun],
            environment: ["SOAK_SLICES": "300", "SOAK_KILLS": "2", "SOAK_SEED": "3", "SOAK_DIR": directory.path("soak"), "SOAK_TIMEOUT": "200"]
                .merging(environment) { $1 })
        #expect(result.status == 0 && !result.hasTimedOut, "\(result)")
        let checks = result.stdout.split(separator: "\n").filter { $0.hasPrefix("  PASS") || $0.hasPrefix("  FAIL") }
        #expect(checks.count == expected && checks.allSatisfy { $0.hasPrefix("  PASS") }, "\(result.stdout)")
        #expect(result.stdout.hasSuffix("Soak: PASS\n"), "\(result.stdout)")
        #expect(result.stdout.contains("Kills       2 (SIGKILL)"), "\(result.stdout)")
        return result.stdout
    }

    @Test func aShortChaosSoakPassesEveryCheck() async throws {
        _ = try await Self.soak([:], checks: 7)
    }

    /// Three origins: one corrupting 10 % of the bodies, one resetting half its connections,
    /// one five times slower.
    @Test func aShortThreeOriginSoakPassesEveryCheck() async throws {
        let output = try await Self.soak(["SOAK_ORIGINS": "3", "SOAK_PACE": "0.5"], checks: 9)
        #expect(output.contains("every settled slice names its origin"), "\(output)")
    }

    /// Every apply with `--prune`; one slice in twenty leaves the manifest before the clean apply.
    @Test func aShortPruningSoakPassesEveryCheck() async throws {
        let output = try await Self.soak(["SOAK_PRUNE": "1"], checks: 8)
        #expect(output.contains("PASS  the clean apply pruned the dropped slices jobrun knows it fetched"), "\(output)")
    }

    /// Every resource published atomically, pruning too: the kills land in stages, and the clean
    /// apply publishes everything.
    @Test func aShortPublishingSoakPassesEveryCheck() async throws {
        let output = try await Self.soak(["SOAK_PRUNE": "1", "SOAK_PUBLISH": "1"], checks: 9)
        #expect(output.contains("PASS  every resource published atomically and no stage left"), "\(output)")
    }
}
