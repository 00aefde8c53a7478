import Foundation
import JobrunTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An interrupted or failed run never says "Apply complete!": the last line's first words follow
/// the exit status, and the counts after them stay the same.
@Suite struct ApplyFinalLineTests {
    static func slice(_ fixture: ApplyFixture, _ path: String, _ route: String) -> String {
        "      - {path: \(path), url: \"\(fixture.url(route))\"}"
    }

    /// One attempt per slice, and a request timeout longer than any stall a test holds: the test
    /// ends the stall, never a timeout, however late a loaded machine lets the test look.
    static func manifest(_ slices: [String]) -> String {
        "version: 1\ndefaults:\n  retries: {attempts: 1}\n  timeouts: {request: 10m}\nresources:\n  - id: r\n    slices:\n" + slices.joined(separator: "\n")
            + "\n"
    }

    @Test func everySliceVerifiedIsComplete() async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        try fixture.write(
            manifest: Self.manifest([
                Self.slice(fixture, "a.bin", "/gen/300/a.bin"), Self.slice(fixture, "b.bin", "/gen/200/b.bin"),
            ]))
        let result = try await fixture.apply()
        #expect(result.status == 0, "\(result)")
        #expect(
            result.stdout.hasSuffix(
                "\nApply complete! Slices: 2 fetched (500 B), 0 resumed, 0 up to date, 0 failed, 0 deferred; 2 without digests (0 size only, 2 unverified).\n"),
            "\(result)")
        let again = try await fixture.apply()
        #expect(
            again.status == 0
                && again.stdout.hasSuffix(
                    "\nApply complete! Slices: 0 fetched (0 B), 0 resumed, 2 up to date, 0 failed, 0 deferred; 2 without digests (0 size only, 2 unverified).\n"
                ), "\(again)")
    }

    /// A failed slice makes the run `failed`, in text and (on stderr) beside `--json`, and its
    /// dependents' skips too.
    @Test func aFailedSliceIsFailed() async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        try fixture.write(
            manifest: Self.manifest([
                Self.slice(fixture, "a.bin", "/gen/300/a.bin"), Self.slice(fixture, "gone.bin", "/status/404"),
            ]) + """
                  - id: later
                    depends_on: [r]
                    slices:
                      - {path: c.bin, url: "\(fixture.url("/gen/10/c.bin"))"}

                """)
        let line = "Apply failed! Slices: 1 fetched (300 B), 0 resumed, 0 up to date, 1 failed, 0 deferred; 1 without digests (0 size only, 1 unverified).\n"
        let text = try await fixture.apply()
        #expect(text.status == 1, "\(text)")
        #expect(text.stdout.hasSuffix("\n" + line), "\(text)")
        #expect(!text.stdout.contains("complete!") && !text.stderr.contains("complete!"), "\(text)")
        // Again with --json: the line moves to stderr; a.bin is now up to date.
        let (json, report) = try await fixture.applyJSON()
        let again = "Apply failed! Slices: 0 fetched (0 B), 0 resumed, 1 up to date, 1 failed, 0 deferred; 1 without digests (0 size only, 1 unverified).\n"
        #expect(json.status == 1 && json.stderr.hasSuffix("\n" + again), "\(json)")
        #expect(!report.summary.success && report.summary.skipped == 1)
        #expect(try fixture.server.requests(path: "/gen/10/c.bin").isEmpty)
    }

    /// A signal stops the run: `interrupted`, whatever had already failed (here a 404 before the
    /// signal), with exit status 130 or 143.
    @Test(arguments: [(SIGINT, Int32(130)), (SIGTERM, Int32(143))])
    func aSignalIsInterrupted(signal: Int32, status: Int32) async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        let size = 2 << 20
        try fixture.write(
            manifest: Self.manifest([
                Self.slice(fixture, "gone.bin", "/status/404"),
                "      - {path: slow.bin, url: \"\(fixture.url(FaultServer.path("/gen/\(size)/slow.bin", faults: "stall_at=\(1 << 20)", "stall_s=300")))\", size: \(size)}",
            ]))
        let apply = try fixture.startApply()
        defer { apply.kill() }
        // jobrun has counted the failure once it has printed it.
        let failed = await Poll.until(timeout: .seconds(120)) { apply.stdout.contains("gone.bin: HTTP 404") }
        try #require(failed, "the 404 was not reported: \(apply.stdout)")
        let midway = await Poll.until(timeout: .seconds(120)) { fixture.size(of: "mirror/r/.slow.bin.jobrun-part") == 1 << 20 }
        try #require(midway, "the transfer never got half-way: \(apply.stderr)")
        apply.signal(signal)
        let result = try #require(await apply.wait(timeout: .seconds(20)), "jobrun did not stop after signal \(signal)")
        #expect(result.status == status && result.signal == nil, "\(result)")
        #expect(result.stdout.hasSuffix("\nApply interrupted! Slices: 0 fetched (0 B), 0 resumed, 0 up to date, 1 failed, 0 deferred.\n"), "\(result)")
        #expect(!result.stdout.contains("complete!") && !result.stdout.contains("Apply failed"), "\(result)")
    }
}
