import Foundation
import JobrunTestSupport
import Testing

/// An origin that fails everything is not hammered: after `retries.host_failures` failed
/// attempts in a row it gets one probe at a time, then its remaining slices fail unrequested as
/// `OriginFailing`; another origin goes on meanwhile.
@Suite struct ApplyOriginBreakerTests {
    static let slices = 200

    static func manifest(_ fixture: ApplyFixture, hostFailures: Int?, failing: (Int) -> String, healthy: [String]) -> String {
        let failingLines = (0..<slices).map { "          - {path: f\($0).bin, url: \"\(failing($0))\"}" }.joined(separator: "\n")
        let healthyLines = healthy.enumerated().map { "          - {path: h\($0.offset).bin, url: \"\($0.element)\"}" }.joined(separator: "\n")
        return """
            version: 1
            defaults:
              concurrency: {per_host: 4, total: 8}
              retries: {attempts: 3, \(hostFailures.map { "host_failures: \($0), " } ?? "")backoff: {initial: 50ms, max: 100ms}}
            resources:
              - id: down
                slices:
            \(failingLines)
            \(healthy.isEmpty ? "" : "  - id: up\n    slices:\n" + healthyLines)

            """
    }

    @Test func aFailingOriginGetsProbesThenItsSlicesFailUnrequested() async throws {
        let fixture = try ApplyFixture(secondPort: true)
        defer { fixture.finish() }
        let healthy = try (0..<20).map { try fixture.server.url("/gen/100/h\($0).bin", on: .second) }
        try fixture.write(manifest: Self.manifest(fixture, hostFailures: 8, failing: { fixture.url("/fault/status=500/gen/10/f\($0)") }, healthy: healthy))
        let (result, report) = try await fixture.applyJSON()
        #expect(result.status == 1, "\(result)")
        let log = try await fixture.server.settledRequests()
        let down = log.filter { $0.port == fixture.server.port }
        // 8 to trip it, at most 3 more already under way then, and 3 probes.
        #expect(down.count <= 8 + 3 + 3, "\(down.count) requests to the failing origin")
        #expect(down.allSatisfy { $0.status == 500 })
        let failed = try (0..<Self.slices).map { try report.slice("down", "f\($0).bin") }
        #expect(failed.allSatisfy { $0.status == "failed" })
        // Slices never requested, and those waiting to retry, fail as OriginFailing with the
        // last error seen; the others failed with their own error.
        let unrequested = failed.filter { $0.attempts == 0 }
        #expect(unrequested.count >= Self.slices - down.count, "\(unrequested.count) unrequested")
        #expect(unrequested.allSatisfy { $0.error?.type == "OriginFailing" }, "\(unrequested.first.map { "\($0)" } ?? "")")
        let originFailing = failed.filter { $0.error?.type == "OriginFailing" }
        #expect(
            originFailing.allSatisfy { $0.error?.message.hasSuffix("attempts in a row (last: HTTP500: HTTP 500)") == true },
            "\(originFailing.first.map { "\($0)" } ?? "")")
        #expect(failed.allSatisfy { $0.error?.type == "OriginFailing" || $0.error?.type == "HTTP500" })
        // The healthy origin was not held back.
        #expect(try (0..<20).allSatisfy { try report.slice("up", "h\($0).bin").status == "fetched" })
        #expect((result.stdout + result.stderr).contains(": failing: "), "\(result)")
    }

    /// An origin that answers again after the trip is given its work back.
    @Test func anOriginThatRecoversGetsItsWorkBack() async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        // The first 8 requests of the origin fail (the server counts per path without query,
        // and every slice is that path with another query): 6 trip the breaker, 2 probes fail,
        // the third succeeds.
        let path = FaultServer.path("/gen/100/shared.bin", faults: "status=503", "n=8")
        let manifest = """
            version: 1
            defaults:
              concurrency: {per_host: 2}
              retries: {attempts: 10, host_failures: 6, backoff: {initial: 50ms, max: 100ms}}
            resources:
              - id: r
                slices:
            \((0..<40).map { "          - {path: s\($0).bin, url: \"\(fixture.url(path))?n=\($0)\"}" }.joined(separator: "\n"))

            """
        try fixture.write(manifest: manifest)
        let result = try await fixture.apply()
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.contains("answers again"), "\(result)")
        let log = try await fixture.server.settledRequests()
        #expect(log.filter { $0.status == 200 }.count == 40 && log.count == 48, "\(log.count) requests")
    }

    /// `host_failures: 0` turns the breaker off: every slice gets its own attempts.
    @Test func zeroTurnsItOff() async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        try fixture.write(
            manifest: """
                version: 1
                defaults:
                  retries: {attempts: 2, host_failures: 0, backoff: {initial: 10ms, max: 10ms}}
                resources:
                  - id: r
                    slices:
                \((0..<20).map { "          - {path: s\($0).bin, url: \"\(fixture.url("/fault/status=500/gen/10/s\($0)"))\"}" }.joined(separator: "\n"))

                """)
        let result = try await fixture.apply()
        #expect(result.status == 1, "\(result)")
        #expect(try await fixture.server.settledRequests().count == 40)
    }

    /// A redirect's target is held to its own breaker: an origin reached only through
    /// redirects that fails everything is not hammered either.
    @Test func aFailingRedirectTargetIsNotHammered() async throws {
        let fixture = try ApplyFixture(secondPort: true)
        defer { fixture.finish() }
        let manifest = Self.manifest(
            fixture, hostFailures: 8,
            failing: { i in
                let target = try? fixture.server.url("/fault/status=500/gen/10/t\(i)", on: .second)
                let query = target?.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
                return fixture.url("/redirect-to?url=\(query)&i=\(i)")
            }, healthy: [])
        try fixture.write(manifest: manifest)
        let (result, report) = try await fixture.applyJSON()
        #expect(result.status == 1, "\(result)")
        let log = try await fixture.server.settledRequests()
        let target = log.filter { $0.port == fixture.server.secondPort }
        // 8 to trip it, at most 3 more hops already under way then (the target's per_host is 4),
        // and 3 probes.
        #expect(target.count <= 8 + 3 + 3, "\(target.count) requests to the failing redirect target")
        let failed = try (0..<Self.slices).map { try report.slice("down", "f\($0).bin") }
        #expect(failed.allSatisfy { $0.status == "failed" })
        #expect(failed.filter { $0.error?.type == "OriginFailing" }.count >= Self.slices - target.count)
    }
}
