import Foundation
import JobrunTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Resume: a partial file keeps its validator; the next attempt (this run or a later one, after a
/// crash) sends `Range: bytes=N-` with `If-Range`; a 206 from N is appended, anything else starts
/// again from zero. Slices here are 2 MiB, above `PartialDownload.resumableSize`.
@Suite struct ApplyResumeTests {
    static let size = 2 << 20
    static let cut = 1 << 20

    /// Faults of a slice that stalls half-way the first time it is requested, and stays stalled
    /// until jobrun is stopped (given ``heldStallTimeout`` as its request timeout): the test ends
    /// the stall, never a timeout, however late a loaded machine lets the test look (a stall that
    /// ends first is followed by a retry that fetches the whole file).
    static let heldStall = "stall_at=\(cut);stall_s=300;n=1"
    /// jobrun's request timeout beside ``heldStall``: longer than the stall.
    static let heldStallTimeout = "10m"

    static func manifest(attempts: Int = 3, requestTimeout: String? = nil, slices: String) -> String {
        """
        version: 1
        defaults:
          retries: {attempts: \(attempts), backoff: {initial: 50ms, max: 200ms}}
        \(requestTimeout.map { "  timeouts: {request: \($0)}\n" } ?? "")resources:
          - id: r
            slices:
        \(slices)

        """
    }

    /// A slice line: `url` on the fixture's server, the 2 MiB size, and a digest when given.
    static func slice(_ name: String, _ url: String, sha256: String? = nil) -> String {
        "      - {path: \(name), url: \"\(url)\", size: \(size)\(sha256.map { ", sha256: \($0)" } ?? "")}"
    }

    /// The first response's ETag, sent back as If-Range on the second request with a Range.
    static func expectResumed(_ log: [LoggedRequest], from offset: ClosedRange<Int>, sourceLocation: SourceLocation = #_sourceLocation) {
        guard log.count == 2 else {
            Issue.record("expected 2 requests: \(log)", sourceLocation: sourceLocation)
            return
        }
        let etag = log[0].responseHeader(named: "ETag")
        #expect(etag != nil && log[1].header(named: "If-Range") == etag, "\(log)", sourceLocation: sourceLocation)
        let range = log[1].header(named: "Range") ?? ""
        let start = range.hasPrefix("bytes=") && range.hasSuffix("-") ? Int(range.dropFirst(6).dropLast()) : nil
        #expect(start.map { offset.contains($0) } == true, "Range: \(range), expected bytes=N- with N in \(offset)", sourceLocation: sourceLocation)
        #expect(log[1].status == 206, "\(log)", sourceLocation: sourceLocation)
    }

    @Test(arguments: ["truncate_at", "reset_at"])
    func aBodyCutShortIsResumedWithRangeAndIfRange(fault: String) async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        let content = "/gen/\(Self.size)/cut.bin"
        let path = FaultServer.path(content, faults: "\(fault)=\(Self.cut)", "n=1")
        try fixture.write(manifest: Self.manifest(slices: Self.slice("cut.bin", fixture.url(path), sha256: try fixture.digest(content))))
        let (result, report) = try await fixture.applyJSON()
        #expect(result.status == 0, "\(result)")
        let record = try report.slice("r", "cut.bin")
        #expect(record.status == "resumed" && record.attempts == 2, "\(record)")
        let log = try await fixture.requests(path, count: 2)
        // A truncated body delivers every byte sent; a reset may lose the unread tail.
        Self.expectResumed(log, from: fault == "truncate_at" ? Self.cut...Self.cut : 1...Self.cut)
        try await fixture.expectVerified()
    }

    /// The representation changes between attempts: If-Range does not match, the server sends
    /// the whole new version (200), and jobrun starts over instead of splicing two versions.
    @Test func aChangedETagRestartsWithTheNewVersion() async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        let content = "/gen/\(Self.size)/changing.bin"
        let path = "/fault/truncate_at=\(Self.cut);n=1/fault/change_after=1\(content)"
        try fixture.write(manifest: Self.manifest(slices: Self.slice("changing.bin", fixture.url(path))))
        let (result, report) = try await fixture.applyJSON()
        #expect(result.status == 0, "\(result)")
        let record = try report.slice("r", "changing.bin")
        #expect(record.status == "fetched" && record.attempts == 2, "\(record)")
        let log = try await fixture.requests(path, count: 2)
        #expect(log[1].header(named: "Range") == "bytes=\(Self.cut)-", "\(log)")
        #expect(log[1].header(named: "If-Range") == log[0].responseHeader(named: "ETag"), "\(log)")
        #expect(log[1].status == 200 && log[1].responseHeader(named: "ETag") != log[0].responseHeader(named: "ETag"), "\(log)")
        let stored = try fixture.sha256(ofFile: "mirror/r/changing.bin")
        #expect(stored == (try fixture.digest(content, version: 1)), "not the new version")
        #expect(stored != (try fixture.digest(content, version: 0)))
    }

    /// Same change, with the digest of the old version declared: never a splice that happens to
    /// pass, but a mismatch.
    @Test func aChangedETagAgainstTheOldDigestIsAMismatch() async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        let content = "/gen/\(Self.size)/changed.bin"
        let path = "/fault/truncate_at=\(Self.cut);n=1/fault/change_after=1\(content)"
        try fixture.write(
            manifest: Self.manifest(
                attempts: 2, slices: Self.slice("changed.bin", fixture.url(path), sha256: try fixture.digest(content))))
        let (result, report) = try await fixture.applyJSON()
        #expect(result.status == 1, "\(result)")
        let record = try report.slice("r", "changed.bin")
        #expect(record.status == "failed" && record.error?.type == "ChecksumMismatch", "\(record)")
        #expect(!fixture.directory.exists("mirror/r/changed.bin"))
    }

    @Test func aServerIgnoringRangeRestartsFromZero() async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        let content = "/gen/\(Self.size)/norange.bin"
        let path = "/fault/truncate_at=\(Self.cut);n=1/fault/ignore_range=1\(content)"
        try fixture.write(manifest: Self.manifest(slices: Self.slice("norange.bin", fixture.url(path), sha256: try fixture.digest(content))))
        let (result, report) = try await fixture.applyJSON()
        #expect(result.status == 0, "\(result)")
        #expect(try report.slice("r", "norange.bin").status == "fetched")
        let log = try await fixture.requests(path, count: 2)
        #expect(log[1].header(named: "Range") == "bytes=\(Self.cut)-" && log[1].status == 200, "\(log)")
        #expect(log[1].bytesSent == Self.size)
        try await fixture.expectVerified()
    }

    @Test func aWrongContentRangeRestartsFromZero() async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        let content = "/gen/\(Self.size)/shifted.bin"
        let path = "/fault/truncate_at=\(Self.cut);n=1/fault/wrong_content_range=1;from=2;n=1\(content)"
        try fixture.write(manifest: Self.manifest(slices: Self.slice("shifted.bin", fixture.url(path), sha256: try fixture.digest(content))))
        let (result, report) = try await fixture.applyJSON()
        #expect(result.status == 0, "\(result)")
        let record = try report.slice("r", "shifted.bin")
        #expect(record.status == "fetched" && record.attempts == 3, "\(record)")
        let log = try await fixture.requests(path, count: 3)
        #expect(log[1].status == 206 && log[1].responseHeader(named: "Content-Range")?.hasPrefix("bytes \(Self.cut + 1)-") == true, "\(log)")
        // The partial was discarded: the third attempt asks for everything.
        #expect(log[2].header(named: "Range") == nil && log[2].status == 200, "\(log)")
        try await fixture.expectVerified()
    }

    /// Without an ETag, Last-Modified is the validator; without either, there is nothing to
    /// prove the next bytes belong to the same version, so the next attempt starts from zero.
    @Test func lastModifiedIsTheFallbackValidatorAndNoValidatorMeansNoResume() async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        let dated = "/fault/truncate_at=\(Self.cut);n=1/fault/no_etag=1/gen/\(Self.size)/dated.bin"
        let bare = "/fault/truncate_at=\(Self.cut);n=1/fault/no_etag=1;no_last_modified=1/gen/\(Self.size)/bare.bin"
        try fixture.write(
            manifest: Self.manifest(
                slices: [
                    Self.slice("dated.bin", fixture.url(dated), sha256: try fixture.digest("/gen/\(Self.size)/dated.bin")),
                    Self.slice("bare.bin", fixture.url(bare)),
                ].joined(separator: "\n")))
        let (result, report) = try await fixture.applyJSON()
        #expect(result.status == 0, "\(result)")
        #expect(try report.slice("r", "dated.bin").status == "resumed")
        #expect(try report.slice("r", "bare.bin").status == "fetched")
        let datedLog = try await fixture.requests(dated, count: 2)
        let modified = datedLog[0].responseHeader(named: "Last-Modified")
        #expect(datedLog[0].responseHeader(named: "ETag") == nil && modified != nil, "\(datedLog)")
        #expect(datedLog[1].header(named: "Range") == "bytes=\(Self.cut)-" && datedLog[1].header(named: "If-Range") == modified, "\(datedLog)")
        #expect(datedLog[1].status == 206)
        let bareLog = try await fixture.requests(bare, count: 2)
        #expect(bareLog[1].header(named: "Range") == nil && bareLog[1].header(named: "If-Range") == nil, "\(bareLog)")
        try await fixture.expectVerified()
    }

    /// Below `PartialDownload.resumableSize` a partial file is not worth resuming: a later run
    /// starts from zero.
    @Test func aSmallSliceIsNotResumed() async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        let path = FaultServer.path("/gen/100000/small.bin", faults: "truncate_at=50000", "n=1")
        try fixture.write(
            manifest: Self.manifest(
                attempts: 1,
                slices: """
                          - {path: small.bin, url: "\(fixture.url(path))", size: 100000, sha256: \(Generated.sha256Hex(size: 100_000, name: "small.bin"))}
                    """))
        let first = try await fixture.apply()
        #expect(first.status == 1 && first.stdout.contains("Truncated"), "\(first)")
        let second = try await fixture.apply()
        #expect(second.status == 0, "\(second)")
        let log = try await fixture.requests(path, count: 2)
        #expect(log[1].header(named: "Range") == nil && log[1].status == 200, "\(log)")
        try await fixture.expectVerified()
    }

    /// Leaves `partial` as a crash between a slice's last byte and its commit does: a first apply
    /// (one attempt) is cut at `cut`, then the rest of `content` is appended by hand.
    static func leaveCompletePartial(_ fixture: ApplyFixture, _ partial: String, of content: String) async throws {
        let first = try await fixture.apply()
        #expect(first.status == 1, "\(first)")
        try #require(fixture.size(of: partial) == cut)
        let rest = Array(try HTTPGet.bytes(port: fixture.server.port, target: content)[cut...])
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: fixture.directory.path(partial)))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(rest))
        try handle.close()
    }

    /// A partial file that already holds every byte (a crash between the last byte and the
    /// rename): the resume gets `416`, and jobrun verifies the partial instead of failing.
    @Test func aCompletePartialIsVerifiedOnA416() async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        let content = "/gen/\(Self.size)/whole.bin"
        let path = FaultServer.path(content, faults: "truncate_at=\(Self.cut)", "n=1")
        try fixture.write(manifest: Self.manifest(attempts: 1, slices: Self.slice("whole.bin", fixture.url(path), sha256: try fixture.digest(content))))
        try await Self.leaveCompletePartial(fixture, "mirror/r/.whole.bin.jobrun-part", of: content)

        let (result, report) = try await fixture.applyJSON()
        #expect(result.status == 0, "\(result)")
        let record = try report.slice("r", "whole.bin")
        #expect(record.status == "resumed" && record.bytesTransferred == 0 && record.size == Int64(Self.size), "\(record)")
        let log = try await fixture.requests(path, count: 2)
        #expect(log[1].header(named: "Range") == "bytes=\(Self.size)-" && log[1].status == 416, "\(log)")
        try await fixture.expectVerified()
    }

    /// The same crash for slices that declare no size (with or without a digest): nothing says
    /// the partial file is whole, so the 416 sends the slice back to byte 0 at once, in this run,
    /// instead of failing it with a 416 that every later run would get again.
    @Test(arguments: [false, true])
    func aCompletePartialWithoutADeclaredSizeRestartsOnA416(hasDigest: Bool) async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        let content = "/gen/\(Self.size)/unsized.bin"
        let path = FaultServer.path(content, faults: "truncate_at=\(Self.cut)", "n=1")
        let digest = hasDigest ? ", sha256: \(try fixture.digest(content))" : ""
        try fixture.write(manifest: Self.manifest(attempts: 1, slices: "      - {path: unsized.bin, url: \"\(fixture.url(path))\"\(digest)}"))
        let partial = "mirror/r/.unsized.bin.jobrun-part"
        try await Self.leaveCompletePartial(fixture, partial, of: content)

        let (result, report) = try await fixture.applyJSON()
        #expect(result.status == 0, "\(result)")
        let record = try report.slice("r", "unsized.bin")
        #expect(record.status == "fetched" && record.bytesTransferred == Int64(Self.size), "\(record)")
        let log = try await fixture.requests(path, count: 3)
        #expect(log[1].header(named: "Range") == "bytes=\(Self.size)-" && log[1].status == 416, "\(log)")
        #expect(log[2].header(named: "Range") == nil && log[2].status == 200, "\(log)")
        #expect(!fixture.directory.exists(partial) && !fixture.directory.exists("mirror/r/.unsized.bin.jobrun-meta"))
        #expect(
            try Data(contentsOf: URL(fileURLWithPath: fixture.directory.path("mirror/r/unsized.bin")))
                == Data(Generated.bytes(size: Self.size, name: "unsized.bin")))
    }

    /// The identity ignores the query: a partial left by `?sig=a` is continued by `?sig=b`.
    @Test func twoSignedURLsOfOnePathResumeEachOther() async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        let content = "/gen/\(Self.size)/signed.bin"
        let path = FaultServer.path(content, faults: "truncate_at=\(Self.cut)", "n=1")
        let digest = try fixture.digest(content)
        try fixture.write(manifest: Self.manifest(attempts: 1, slices: Self.slice("signed.bin", fixture.url(path + "?sig=a"), sha256: digest)))
        let first = try await fixture.apply()
        #expect(first.status == 1, "\(first)")
        #expect(fixture.size(of: "mirror/r/.signed.bin.jobrun-part") == Self.cut)
        #expect(!fixture.directory.exists("mirror/r/signed.bin"))

        try fixture.write(manifest: Self.manifest(attempts: 1, slices: Self.slice("signed.bin", fixture.url(path + "?sig=b"), sha256: digest)))
        let (second, report) = try await fixture.applyJSON()
        #expect(second.status == 0, "\(second)")
        #expect(try report.slice("r", "signed.bin").status == "resumed")
        let log = try await fixture.requests(path, count: 2)
        #expect(log.map(\.path) == [path + "?sig=a", path + "?sig=b"], "\(log)")
        Self.expectResumed(log, from: Self.cut...Self.cut)
        try await fixture.expectVerified()
    }

    /// `kill -9` in the middle of a large apply: the finished slices are on disk and are not
    /// requested again; the one cut off mid-body is resumed with a Range request.
    @Test func aKilledApplyResumesWhereItStopped() async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        let count = 8
        // The last slice stalls half-way the first time it is requested, until jobrun is killed.
        let paths = (1...count).map { i in
            i == count ? FaultServer.path("/gen/\(Self.size)/k\(i).bin", faults: Self.heldStall) : "/gen/\(Self.size)/k\(i).bin"
        }
        var lines: [String] = []
        for (i, path) in paths.enumerated() {
            lines.append(Self.slice("k\(i + 1).bin", fixture.url(path), sha256: try fixture.digest("/gen/\(Self.size)/k\(i + 1).bin")))
        }
        try fixture.write(manifest: Self.manifest(requestTimeout: Self.heldStallTimeout, slices: lines.joined(separator: "\n")))

        let apply = try fixture.startApply()
        defer { apply.kill() }
        let finished = (1..<count).map { "mirror/r/k\($0).bin" }
        let partial = "mirror/r/.k\(count).bin.jobrun-part"
        let ready = await Poll.until(timeout: .seconds(120), interval: .milliseconds(20)) {
            finished.allSatisfy { fixture.size(of: $0) == Self.size } && fixture.size(of: partial) == Self.cut
        }
        try #require(
            ready, "never reached 7 committed slices and one half-way:\n\(DirectoryTree.entries(under: fixture.directory.path("mirror")))\n\(apply.stderr)")
        apply.kill()
        #expect(!fixture.directory.exists("mirror/r/k\(count).bin"))

        let (result, report) = try await fixture.applyJSON()
        #expect(result.status == 0, "\(result)")
        #expect(report.summary.upToDate == count - 1 && report.summary.resumed == 1, "\(report.summary)")
        for path in paths.dropLast() {
            #expect(try fixture.server.requests(path: path).count == 1, "\(path) was requested again")
        }
        let log = try await fixture.requests(paths[count - 1], count: 2)
        #expect(log[0].clientDisconnected, "\(log)")
        Self.expectResumed(log, from: Self.cut...Self.cut)
        try await fixture.expectVerified()
    }
}
