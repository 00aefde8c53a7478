import Foundation
import JobrunTestSupport
import Testing

/// jobrun's own scheduler enforces `concurrency.per_host` and `concurrency.total`, measured on the
/// wire: every response is held 150 ms, and the server's log says how many were open at once.
@Suite struct ApplyConcurrencyTests {
    static let delay = "delay_ms=150"

    static func slices(_ count: Int, on base: String, prefix: String) -> String {
        (0..<count).map { i in
            "      - {path: \(prefix)\(i).bin, url: \"\(base)/fault/\(delay)/gen/100/\(prefix)\(i).bin\", size: 100}"
        }.joined(separator: "\n")
    }

    @Test func perHostLimit() async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        try fixture.write(
            manifest: """
                version: 1
                defaults:
                  concurrency: {per_host: 4, total: 16}
                resources:
                  - id: many
                    slices:
                \(Self.slices(40, on: fixture.server.baseURL, prefix: "c"))

                """)
        let result = try await fixture.apply()
        #expect(result.status == 0, "\(result)")
        #expect(
            result.stdout.hasSuffix(
                "Apply complete! Slices: 40 fetched (3.9 KiB), 0 resumed, 0 up to date, 0 failed, 0 deferred; 40 without digests (40 size only, 0 unverified).\n"
            ), "\(result)")
        let log = try await fixture.server.waitForRequests { $0.count == 40 }
        let peak = RequestOverlap.maximum(log)
        #expect(peak <= 4, "more than 4 requests at once on one host: \(peak)")
        #expect(peak > 1, "the slices were fetched one at a time")
        // Connections are kept alive and reused, not opened per slice.
        let connections = Set(log.map(\.connectionID)).count
        #expect(connections <= 8, "\(connections) connections for 40 requests at 4 at a time")
    }

    @Test func totalLimitAcrossHosts() async throws {
        let fixture = try ApplyFixture(secondPort: true)
        defer { fixture.finish() }
        let second = try #require(fixture.server.secondBaseURL)
        try fixture.write(
            manifest: """
                version: 1
                defaults:
                  concurrency: {per_host: 2, total: 3}
                resources:
                  - id: first
                    slices:
                \(Self.slices(16, on: fixture.server.baseURL, prefix: "p"))
                  - id: second
                    slices:
                \(Self.slices(16, on: second, prefix: "s"))

                """)
        let result = try await fixture.apply()
        #expect(result.status == 0, "\(result)")
        let log = try await fixture.server.waitForRequests { $0.count == 32 }
        let primary = log.filter { $0.port == fixture.server.port }
        let other = log.filter { $0.port == fixture.server.secondPort }
        #expect(primary.count == 16 && other.count == 16)
        #expect(RequestOverlap.maximum(primary) <= 2 && RequestOverlap.maximum(other) <= 2)
        let peak = RequestOverlap.maximum(log)
        #expect(peak <= 3, "more than 3 requests at once in total: \(peak)")
        #expect(peak > 1, "the slices were fetched one at a time")
        // All runnable slices are queued at once: both hosts are busy together, not one after the other.
        let firstOther = try #require(other.map(\.time).min())
        let lastPrimary = try #require(primary.map(\.endTime).max())
        #expect(firstOther < lastPrimary, "the second host started only after the first was done")
    }

    /// A slice redirected to another host and retried goes back to its own host for the next
    /// attempt, so that attempt must count against its own host's limit, not the other's.
    @Test func aRetryAfterARedirectCountsAgainstItsOwnHost() async throws {
        let fixture = try ApplyFixture(secondPort: true)
        defer { fixture.finish() }
        let second = try fixture.server.url("/fault/status=503;n=1/gen/100/hop.bin", on: .second)
        let hop = "/redirect-to?url=" + (second.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")
        try fixture.write(
            manifest: """
                version: 1
                defaults:
                  concurrency: {per_host: 1}
                  retries: {attempts: 3, backoff: {initial: 50ms, max: 100ms}}
                resources:
                  - id: r
                    slices:
                      - {path: hop.bin, url: "\(fixture.url(hop))", size: 100}
                      - {path: busy1.bin, url: "\(fixture.url("/fault/delay_ms=700/gen/100/busy1.bin"))", size: 100}
                      - {path: busy2.bin, url: "\(fixture.url("/fault/delay_ms=700/gen/100/busy2.bin"))", size: 100}

                """)
        let result = try await fixture.apply()
        #expect(result.status == 0, "\(result)")
        let log = try await fixture.server.waitForRequests { $0.count == 6 }
        let primary = log.filter { $0.port == fixture.server.port }
        #expect(primary.count == 4, "\(log)")
        #expect(
            RequestOverlap.maximum(primary) == 1, "more than one request at once on a host limited to 1:\n\(primary.map(\.description).joined(separator: "\n"))"
        )
    }

    /// A redirect's target is held to `per_host` like any host: hops wait for a slot there
    /// rather than take one over the limit, however many of their own host's answers arrive.
    @Test func aRedirectTargetIsHeldToItsLimit() async throws {
        let fixture = try ApplyFixture(secondPort: true)
        defer { fixture.finish() }
        let slices = (0..<12).map { i in
            let target = (try? fixture.server.url("/fault/\(Self.delay)/gen/100/t\(i).bin", on: .second)) ?? ""
            let hop = "/redirect-to?url=" + (target.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "") + "&i=\(i)"
            return "      - {path: t\(i).bin, url: \"\(fixture.url(hop))\", size: 100}"
        }
        try fixture.write(
            manifest: """
                version: 1
                defaults:
                  concurrency: {per_host: 2, total: 8}
                resources:
                  - id: r
                    slices:
                \(slices.joined(separator: "\n"))

                """)
        let result = try await fixture.apply()
        #expect(result.status == 0, "\(result)")
        let log = try await fixture.server.waitForRequests { $0.count == 24 }
        let target = log.filter { $0.port == fixture.server.secondPort }
        #expect(target.count == 12 && target.allSatisfy { $0.status == 200 }, "\(log)")
        let peak = RequestOverlap.maximum(target)
        #expect(peak <= 2, "\(peak) requests at once on the redirect's target, limited to 2:\n\(target.map(\.description).joined(separator: "\n"))")
        #expect(peak == 2, "the target's slots were not used together")
    }

    /// `adaptive` against an origin that answers 503 past 8 requests at once: the limit starts at
    /// a few, grows, halves at the first refusals and settles at what the origin took, so the
    /// run needs few more requests than slices (a fixed `per_host: 32` would send dozens of
    /// refused requests in every round).
    @Test func anAdaptiveLimitSettlesBelowAnOriginsCap() async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        let count = 300
        let (result, report, log) = try await Self.applyAtACappedOrigin(fixture, count: count, concurrency: "{per_host: 32, total: 64, adaptive: true}")
        // What it says of the origin: every request, the limit's path from its start of 4, in
        // time order, never past per_host.
        let origin = try #require(report.origins.first, "\(result.stdout)")
        #expect(report.origins.count == 1 && origin.origin == fixture.server.baseURL && origin.adaptive && origin.streams == 1)
        #expect(origin.requests == log.count && origin.connections >= 1 && origin.connections <= origin.requests)
        #expect(
            origin.inFlightPeak >= RequestOverlap.maximum(log) && origin.inFlightPeak <= 32,
            "\(origin.inFlightPeak) in flight here, \(RequestOverlap.maximum(log)) at the server")
        #expect(origin.inFlightMean > 1 && origin.inFlightMean <= Double(origin.inFlightPeak))
        #expect(origin.limitPath.first?.limit == 4 && origin.limitPath.allSatisfy { $0.limit >= 1 && $0.limit <= 32 })
        #expect(zip(origin.limitPath, origin.limitPath.dropFirst()).allSatisfy { $0.atMs <= $1.atMs && $0.limit != $1.limit })
        let refused = log.filter { $0.status == 503 }.count
        #expect(log.count <= count + count / 20, "\(log.count) requests for \(count) slices (\(refused) refused)")
        let answered = log.filter { $0.status == 200 }
        #expect(RequestOverlap.maximum(answered) > 4, "the limit grew past its start of 4")
        #expect(RequestOverlap.maximum(log) <= 16, "at most twice the origin's cap at once, refusals included")
    }

    /// A fixed limit against the same origin gives way from its first refusal: the requests in
    /// flight fall to what the origin takes, and the refusals stay few (a fixed limit that never
    /// gave way took 1,152 requests for 300 slices here). It is not made adaptive.
    @Test func aFixedLimitGivesWayToRefusals() async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        let count = 300
        let (result, report, log) = try await Self.applyAtACappedOrigin(fixture, count: count, concurrency: "{per_host: 32, total: 64}")
        let origin = try #require(report.origins.first, "\(result.stdout)")
        #expect(!origin.adaptive && origin.limitPath.first?.limit == 32, "\(origin.limitPath)")
        let refused = log.filter { $0.status == 503 }.count
        // The first 32 go out before any answer, and 24 of them are refused; after that, few.
        #expect(refused <= 24 + 4, "\(log.count) requests for \(count) slices (\(refused) refused); \(origin.limitPath.map { "\($0.atMs):\($0.limit)" })")
        #expect(origin.limitPath.allSatisfy { $0.limit <= 32 } && origin.limitPath.dropFirst().allSatisfy { $0.limit <= 16 }, "\(origin.limitPath)")
        #expect(origin.inFlightMean >= 4, "held near what the origin takes, not far below: \(origin.inFlightMean)")
    }

    /// `count` slices of an origin that answers 503 past 8 requests at once, applied under
    /// `concurrency`: the run, its report, and every request once the last slice was served.
    static func applyAtACappedOrigin(
        _ fixture: ApplyFixture, count: Int, concurrency: String
    ) async throws -> (result: RunResult, report: ApplyJSON, log: [LoggedRequest]) {
        let slices = (0..<count).map { i in
            "      - {path: a\(i).bin, url: \"\(fixture.server.baseURL)/fault/max_in_flight=8;delay_ms=50/gen/100/a\(i).bin\", size: 100}"
        }.joined(separator: "\n")
        try fixture.write(
            manifest: """
                version: 1
                defaults:
                  concurrency: \(concurrency)
                  retries: {attempts: 10, backoff: {initial: 100ms, max: 1s}}
                resources:
                  - id: capped
                    slices:
                \(slices)

                """)
        let (result, report) = try await fixture.applyJSON()
        #expect(result.status == 0, "\(result)")
        let log = try await fixture.server.waitForRequests { $0.filter { $0.status == 200 }.count >= count }
        return (result, report, log)
    }
}
