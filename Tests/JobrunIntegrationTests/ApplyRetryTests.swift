import Foundation
import JobrunTestSupport
import Testing

/// Retries: transient statuses are retried with backoff or the server's Retry-After, a 429/503
/// cools the whole host down, permanent statuses fail at once, a digest mismatch discards the
/// partial file and starts again from zero.
@Suite struct ApplyRetryTests {
    /// One resource `r` with the given slice lines (already indented as slices).
    static func manifest(attempts: Int, backoffMax: String = "200ms", perHost: Int = 4, slices: String) -> String {
        """
        version: 1
        defaults:
          concurrency: {per_host: \(perHost)}
          retries: {attempts: \(attempts), backoff: {initial: 50ms, max: \(backoffMax)}}
        resources:
          - id: r
            slices:
        \(slices)

        """
    }

    @Test func aTransientStatusIsRetriedUntilItSucceeds() async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        let path = FaultServer.path("/gen/2000/flaky.bin", faults: "status=503", "n=2")
        try fixture.write(
            manifest: Self.manifest(
                attempts: 3,
                slices: """
                          - path: flaky.bin
                            url: \(fixture.url(path))
                            size: 2000
                            sha256: \(Generated.sha256Hex(size: 2_000, name: "flaky.bin"))
                    """))
        let (result, report) = try await fixture.applyJSON()
        #expect(result.status == 0, "\(result)")
        let record = try report.slice("r", "flaky.bin")
        #expect(record.status == "fetched" && record.attempts == 3, "\(record)")
        let log = try await fixture.requests(path, count: 3)
        #expect(log.map(\.status) == [503, 503, 200], "\(log)")
        try await fixture.expectVerified()
    }

    /// In seconds, or as an HTTP-date (whole seconds, so 1–2 s ahead).
    @Test(arguments: ["1", "date:+2"])
    func retryAfterIsHonoured(retryAfter: String) async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        let path = FaultServer.path("/gen/100/later.bin", faults: "status=503", "n=1", "retry_after=\(retryAfter)")
        // backoff.max bounds Retry-After, so it must be at least the server's second.
        try fixture.write(
            manifest: Self.manifest(
                attempts: 2, backoffMax: "5s",
                slices: """
                          - {path: later.bin, url: "\(fixture.url(path))", size: 100}
                    """))
        let result = try await fixture.apply()
        #expect(result.status == 0, "\(result)")
        let log = try await fixture.requests(path, count: 2)
        #expect(log.map(\.status) == [503, 200], "\(log)")
        let gap = log[1].time - log[0].endTime
        #expect(gap >= 0.9, "the retry came \(gap) s after a Retry-After: \(log[0].responseHeader(named: "Retry-After") ?? "?")")
    }

    @Test func transientStatusesAreRetriedAndOthersAreNot() async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        let transient = [408, 429, 500, 502, 503, 504]
        let permanent = [400, 401, 403, 404, 410, 451]
        let path = { (code: Int) in FaultServer.path("/gen/100/s\(code).bin", faults: "status=\(code)", "n=1") }
        let codes = transient + permanent
        let lines = codes.map { code in
            "      - {path: s\(code).bin, url: \"\(fixture.url(path(code)))\", size: 100}"
        }
        try fixture.write(manifest: Self.manifest(attempts: 3, slices: lines.joined(separator: "\n")))
        let (result, report) = try await fixture.applyJSON()
        #expect(result.status == 1, "\(result)")
        for code in transient {
            let record = try report.slice("r", "s\(code).bin")
            #expect(record.status == "fetched" && record.attempts == 2, "\(code): \(record)")
        }
        // A request is logged once its response has ended, which may be after jobrun exits: wait
        // for every line that must come (two per transient code, one per permanent one) before
        // counting, so a late line of a retry cannot be missed.
        let ours = Set(codes.map(path))
        let log = try await fixture.server.waitForRequests { log in
            log.filter { ours.contains($0.pathWithoutQuery) }.count >= 2 * transient.count + permanent.count
        }
        for code in permanent {
            let record = try report.slice("r", "s\(code).bin")
            #expect(record.status == "failed" && record.attempts == 1 && record.error?.type == "HTTP\(code)", "\(code): \(record)")
            let requests = log.filter { $0.pathWithoutQuery == path(code) }
            #expect(requests.count == 1, "\(code) was retried: \(requests)")
        }
    }

    @Test func aNotFoundIsNotRetried() async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        try fixture.write(
            manifest: Self.manifest(
                attempts: 5,
                slices: """
                          - {path: missing.bin, url: "\(fixture.url("/status/404"))"}
                    """))
        let result = try await fixture.apply(["--junit", "junit.xml"])
        #expect(result.status == 1, "\(result)")
        #expect(result.stdout.contains("! r/missing.bin: HTTP 404 (\(fixture.url("/status/404")), 1 attempt)\n"), "\(result)")
        #expect(result.stdout.hasSuffix("0 fetched (0 B), 0 resumed, 0 up to date, 1 failed, 0 deferred.\n"), "\(result)")
        let log = try await fixture.requests("/status/404", count: 1)
        #expect(log.count == 1, "a 404 was retried: \(log)")
        let junit = fixture.directory.contents(of: "junit.xml") ?? ""
        #expect(junit.contains(#"<error type="HTTP404""#) && junit.contains("attempts: 1"), "\(junit)")
        #expect(!fixture.directory.exists("mirror/r/missing.bin"))
    }

    @Test func aServerErrorIsRetriedUpToTheAttemptsThenFails() async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        let path = FaultServer.path("/gen/100/broken.bin", faults: "status=500")
        try fixture.write(
            manifest: Self.manifest(
                attempts: 3,
                slices: """
                          - {path: broken.bin, url: "\(fixture.url(path))", size: 100}
                    """))
        let result = try await fixture.apply(["--junit", "junit.xml"])
        #expect(result.status == 1, "\(result)")
        #expect(result.stdout.contains("! r/broken.bin: HTTP 500 (\(fixture.url(path)), 3 attempts)\n"), "\(result)")
        let log = try await fixture.requests(path, count: 3)
        #expect(log.map(\.status) == [500, 500, 500], "\(log)")
        let junit = fixture.directory.contents(of: "junit.xml") ?? ""
        #expect(junit.contains(#"<error type="HTTP500" message="HTTP 500">"#), "\(junit)")
        #expect(junit.contains("attempts: 3") && junit.contains("last error: HTTP 500"), "\(junit)")
    }

    /// A 429 with Retry-After: 1 for one slice holds back the other slice of the same host too.
    @Test func tooManyRequestsCoolsDownTheHost() async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        let limited = FaultServer.path("/gen/100/first.bin", faults: "status=429", "n=1", "retry_after=1")
        let other = "/gen/100/second.bin"
        // One transfer per host: without the cooldown, the second slice would start as soon as the 429 arrived.
        try fixture.write(
            manifest: Self.manifest(
                attempts: 3, backoffMax: "5s", perHost: 1,
                slices: """
                          - {path: first.bin, url: "\(fixture.url(limited))", size: 100}
                          - {path: second.bin, url: "\(fixture.url(other))", size: 100}
                    """))
        let result = try await fixture.apply()
        #expect(result.status == 0, "\(result)")
        let first = try await fixture.requests(limited, count: 2)
        let second = try await fixture.requests(other, count: 1)
        #expect(first.map(\.status) == [429, 200] && second.map(\.status) == [200], "\(first) \(second)")
        let wait = second[0].time - first[0].endTime
        #expect(wait >= 0.9, "the other slice of the host started \(wait) s after the 429")
    }

    @Test func aDigestMismatchFailsAfterItsRetriesAndLeavesNoFile() async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        let path = FaultServer.path("/gen/4096/bad.bin", faults: "wrong_bytes=1")
        try fixture.write(
            manifest: Self.manifest(
                attempts: 2,
                slices: """
                          - path: bad.bin
                            url: \(fixture.url(path))
                            size: 4096
                            sha256: \(Generated.sha256Hex(size: 4_096, name: "bad.bin"))
                    """))
        let result = try await fixture.apply(["--junit", "junit.xml"])
        #expect(result.status == 1, "\(result)")
        #expect(result.stdout.contains("! r/bad.bin: ChecksumMismatch: sha256 differs: expected "), "\(result)")
        let log = try await fixture.requests(path, count: 2)
        #expect(log.count == 2 && log.allSatisfy { $0.header(named: "Range") == nil }, "\(log)")
        let junit = fixture.directory.contents(of: "junit.xml") ?? ""
        #expect(junit.contains(#"<failure type="ChecksumMismatch""#) && junit.contains("attempts: 2"), "\(junit)")
        // Neither a final file nor a partial one that a later run could take for the real thing.
        #expect(DirectoryTree.files(under: fixture.directory.path("mirror")).isEmpty, "\(DirectoryTree.entries(under: fixture.directory.path("mirror")))")
        let plan = try await fixture.run(["plan", "site.yaml"])
        #expect(plan.stdout.hasSuffix("Plan: 1 to fetch, 0 to resume, 0 to refetch (4.0 KiB), 0 up to date, 0 deferred.\n"), "\(plan)")
    }

    /// On a slice large enough to be resumable: the mismatch discards the partial file, so the
    /// second attempt starts from byte zero (no Range) and succeeds.
    @Test func aDigestMismatchRestartsFromZero() async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        let size = 2 << 20
        let path = FaultServer.path("/gen/\(size)/once.bin", faults: "wrong_bytes=1", "n=1")
        try fixture.write(
            manifest: Self.manifest(
                attempts: 3,
                slices: """
                          - path: once.bin
                            url: \(fixture.url(path))
                            size: \(size)
                            sha256: \(try fixture.digest("/gen/\(size)/once.bin"))
                    """))
        let (result, report) = try await fixture.applyJSON()
        #expect(result.status == 0, "\(result)")
        let record = try report.slice("r", "once.bin")
        #expect(record.status == "fetched" && record.attempts == 2, "\(record)")
        let log = try await fixture.requests(path, count: 2)
        #expect(log.map(\.status) == [200, 200], "\(log)")
        #expect(log[1].header(named: "Range") == nil && log[1].header(named: "If-Range") == nil, "\(log[1])")
        try await fixture.expectVerified()
    }
}
