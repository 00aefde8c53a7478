import Foundation
import JobrunTestSupport
import Testing

/// `--concurrency N` and `--per-host N` replace the manifests' limits, measured on the wire as
/// in ``ApplyConcurrencyTests``: the manifests allow 4 per host and 16 in all, every response
/// is held 150 ms, and the server's log says how many were open at once.
@Suite struct ApplyConcurrencyOverrideTests {
    static func manifest(_ bases: [String]) -> String {
        let resources = bases.enumerated().map { index, base in
            """
              - id: r\(index)
                slices:
            \(ApplyConcurrencyTests.slices(6, on: base, prefix: "h\(index)-"))
            """
        }
        return """
            version: 1
            defaults:
              concurrency: {per_host: 4, total: 16}
            resources:
            \(resources.joined(separator: "\n"))

            """
    }

    @Test func concurrencyOneFetchesOneSliceAtATime() async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        try fixture.write(manifest: Self.manifest([fixture.server.baseURL]))
        let result = try await fixture.apply(["--concurrency", "1"])
        #expect(result.status == 0, "\(result)")
        let log = try await fixture.server.waitForRequests { $0.count == 6 }
        #expect(RequestOverlap.maximum(log) == 1, "more than one request at once under --concurrency 1:\n\(log.map(\.description).joined(separator: "\n"))")
    }

    /// One per host, two hosts: the total (16) still lets both hosts run together.
    @Test func perHostOneLimitsEachHostNotTheRun() async throws {
        let fixture = try ApplyFixture(secondPort: true)
        defer { fixture.finish() }
        let second = try #require(fixture.server.secondBaseURL)
        try fixture.write(manifest: Self.manifest([fixture.server.baseURL, second]))
        let result = try await fixture.apply(["--per-host", "1"])
        #expect(result.status == 0, "\(result)")
        let log = try await fixture.server.waitForRequests { $0.count == 12 }
        let primary = log.filter { $0.port == fixture.server.port }
        let other = log.filter { $0.port == fixture.server.secondPort }
        #expect(primary.count == 6 && other.count == 6)
        #expect(RequestOverlap.maximum(primary) == 1 && RequestOverlap.maximum(other) == 1, "\(log)")
        #expect(RequestOverlap.maximum(log) == 2, "the two hosts did not run together: \(log)")
    }

    /// A plan saved with `--concurrency` and `--per-host` keeps them (its JSON shows them per
    /// resource), and `apply PLAN` fetches under them.
    @Test func aSavedPlanKeepsItsLimits() async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        try fixture.write(manifest: Self.manifest([fixture.server.baseURL]))
        let plan = try await fixture.run(["plan", "site.yaml", "--concurrency", "2", "--per-host", "1", "--out", "plan.json"])
        #expect(plan.status == 0, "\(plan)")
        let saved = try #require(fixture.directory.contents(of: "plan.json"))
        let document = try #require(try JSONSerialization.jsonObject(with: Data(saved.utf8)) as? [String: Any])
        let options = try #require(document["options"] as? [String: Any])
        #expect((options["concurrency"] as? NSNumber)?.intValue == 2 && (options["per_host"] as? NSNumber)?.intValue == 1, "\(options)")
        let settings = (document["resources"] as? [[String: Any]])?.first?["settings"] as? [String: Any]
        let limits = try #require(settings?["concurrency"] as? [String: Any])
        #expect((limits["total"] as? NSNumber)?.intValue == 2 && (limits["per_host"] as? NSNumber)?.intValue == 1, "\(limits)")

        let result = try await fixture.run(["apply", "plan.json"])
        #expect(result.status == 0, "\(result)")
        #expect(result.stderr.isEmpty, "\(result)")
        let log = try await fixture.server.waitForRequests { $0.count == 6 }
        #expect(RequestOverlap.maximum(log) == 1, "the saved --per-host 1 was not kept:\n\(log.map(\.description).joined(separator: "\n"))")
    }

    @Test(arguments: [
        (["--concurrency", "0"], "--concurrency must be a whole number from 1 to 1024, not 0"),
        (["--concurrency", "1025"], "--concurrency must be a whole number from 1 to 1024, not 1025"),
        (["--per-host=-1"], "--per-host must be a whole number from 1 to 256, not -1"),
        (["--per-host", "257"], "--per-host must be a whole number from 1 to 256, not 257"),
        (["--concurrency", "two"], "The value 'two' is invalid for '--concurrency <n>'"),
    ])
    func aLimitOutOfRangeIsAUsageError(arguments: [String], message: String) async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        try fixture.write(manifest: Self.manifest([fixture.server.baseURL]))
        for command in ["plan", "apply"] {
            let result = try await fixture.run([command, "site.yaml"] + arguments)
            #expect(result.status == 64, "\(result)")
            #expect(result.stderr.contains(message), "\(result)")
            #expect(result.stdout.isEmpty, "\(result)")
        }
        #expect(!fixture.directory.exists("mirror"))
        try await fixture.expectNothingRequested()
    }

    /// Both given, `--per-host` above `--concurrency`: allowed, with a warning that says which wins.
    @Test func aPerHostLimitAboveTheTotalIsWarnedAbout() async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        try fixture.write(manifest: Self.manifest([fixture.server.baseURL]))
        let plan = try await fixture.run(["plan", "site.yaml", "--concurrency", "2", "--per-host", "3"])
        #expect(plan.status == 0, "\(plan)")
        #expect(plan.stderr == "jobrun: warning: --per-host 3 is larger than --concurrency 2; at most 2 slots are in use at once\n", "\(plan)")
    }
}
