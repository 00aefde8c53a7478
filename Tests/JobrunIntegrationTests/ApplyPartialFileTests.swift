import Foundation
import JobrunTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What an attempt leaves of its partial file: kept with the metadata a resume needs, or removed.
/// Without a validator (an origin sending neither ETag nor Last-Modified) a partial is resumed
/// only when the slice declares a digest, which then decides; without either it is removed.
@Suite struct ApplyPartialFileTests {
    static let size = 2 << 20
    static let cut = 1 << 20
    static let noValidator = "no_etag=1;no_last_modified=1"

    /// The working files (`.NAME.jobrun-part`, `.NAME.jobrun-meta`) left in the resource's folder.
    static func workingFiles(_ fixture: ApplyFixture) -> [String] {
        DirectoryTree.entries(under: fixture.directory.path("mirror")).filter { $0.contains(".jobrun-") }
    }

    @Test func aPartialWithoutAValidatorIsResumedWhenTheSliceHasADigest() async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        let content = "/gen/\(Self.size)/bare.bin"
        let path = "/fault/truncate_at=\(Self.cut);n=1/fault/\(Self.noValidator)\(content)"
        try fixture.write(
            manifest: ApplyResumeTests.manifest(slices: ApplyResumeTests.slice("bare.bin", fixture.url(path), sha256: try fixture.digest(content))))
        let (result, report) = try await fixture.applyJSON()
        #expect(result.status == 0, "\(result)")
        let record = try report.slice("r", "bare.bin")
        #expect(record.status == "resumed" && record.attempts == 2 && record.partialDiscarded == nil, "\(record)")
        let log = try await fixture.requests(path, count: 2)
        #expect(log[1].header(named: "Range") == "bytes=\(Self.cut)-" && log[1].header(named: "If-Range") == nil && log[1].status == 206, "\(log)")
        try await fixture.expectVerified()
    }

    /// A partial left by another URL of the file (its `base_url` moved to another mirror) is
    /// continued there when the slice's digest decides: a range request without `If-Range`, since
    /// the first URL's ETag says nothing of the second's.
    @Test func aPartialFromAnotherURLIsResumedWhenTheDigestDecides() async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        let content = "/gen/\(Self.size)/moved.bin"
        let first = "/fault/truncate_at=\(Self.cut);n=1\(content)"
        let digest = try fixture.digest(content)
        try fixture.write(manifest: ApplyResumeTests.manifest(attempts: 1, slices: ApplyResumeTests.slice("moved.bin", fixture.url(first), sha256: digest)))
        let (cut, _) = try await fixture.applyJSON()
        #expect(cut.status != 0 && Self.workingFiles(fixture).count == 2, "\(cut)")
        let second = "/fault/delay_ms=1\(content)"
        try fixture.write(manifest: ApplyResumeTests.manifest(attempts: 1, slices: ApplyResumeTests.slice("moved.bin", fixture.url(second), sha256: digest)))
        let (result, report) = try await fixture.applyJSON()
        #expect(result.status == 0, "\(result)")
        #expect(try report.slice("r", "moved.bin").status == "resumed")
        let log = try await fixture.requests(second, count: 1)
        #expect(log[0].header(named: "Range") == "bytes=\(Self.cut)-" && log[0].header(named: "If-Range") == nil && log[0].status == 206, "\(log)")
        try await fixture.expectVerified()
    }

    /// The resumed bytes are of another version (a flipped byte stands for it): the digest fails,
    /// the partial is discarded, and the slice is fetched once more from byte 0 even though that
    /// is one attempt over `attempts: 2`; the record and the event stream say why.
    @Test func anUnvalidatedResumeFailingItsDigestIsFetchedOnceMoreFromZero() async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        let content = "/gen/\(Self.size)/other.bin"
        let path = "/fault/truncate_at=\(Self.cut);n=1/fault/wrong_byte_at=\(Self.cut + 10);from=2;n=1/fault/\(Self.noValidator)\(content)"
        try fixture.write(
            manifest: ApplyResumeTests.manifest(
                attempts: 2, slices: ApplyResumeTests.slice("other.bin", fixture.url(path), sha256: try fixture.digest(content))))
        let (result, report) = try await fixture.applyJSON(["--events", "events.ndjson"])
        #expect(result.status == 0, "\(result)")
        let record = try report.slice("r", "other.bin")
        #expect(record.status == "fetched" && record.attempts == 3, "\(record)")
        #expect(record.partialDiscarded == "resumed without a validator, it failed the digest", "\(record)")
        let log = try await fixture.requests(path, count: 3)
        #expect(log[1].header(named: "Range") == "bytes=\(Self.cut)-" && log[1].status == 206, "\(log)")
        #expect(log[2].header(named: "Range") == nil && log[2].status == 200 && log[2].bytesSent == Self.size, "\(log)")
        let events = try String(contentsOfFile: fixture.directory.path("events.ndjson"), encoding: .utf8)
        let retries = events.split(separator: "\n").filter { $0.contains("\"slice_retry\"") && $0.contains("ChecksumMismatch") }
        #expect(retries.count == 1 && retries[0].contains("fetched again from byte 0"), "\(events)")
        try await fixture.expectVerified()
    }

    /// A stop keeps the partial that its digest can resume and removes the one nothing can, and
    /// says so; `plan` then says `resume` for the kept one, and the next apply continues it.
    @Test func anInterruptKeepsWhatCanBeResumedAndSaysWhatIsDiscarded() async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        let stall = ApplyResumeTests.heldStall
        let digested = "/fault/\(stall)/fault/\(Self.noValidator)/gen/\(Self.size)/digested.bin"
        let bare = "/fault/\(stall)/fault/\(Self.noValidator)/gen/\(Self.size)/bare.bin"
        try fixture.write(
            manifest: ApplyResumeTests.manifest(
                requestTimeout: ApplyResumeTests.heldStallTimeout,
                slices: [
                    ApplyResumeTests.slice("digested.bin", fixture.url(digested), sha256: try fixture.digest("/gen/\(Self.size)/digested.bin")),
                    ApplyResumeTests.slice("bare.bin", fixture.url(bare)),
                ].joined(separator: "\n")))
        let apply = try fixture.startApply()
        defer { apply.kill() }
        let midway = await Poll.until(timeout: .seconds(120), interval: .milliseconds(20)) {
            fixture.size(of: "mirror/r/.digested.bin.jobrun-part") == Self.cut && fixture.size(of: "mirror/r/.bare.bin.jobrun-part") == Self.cut
        }
        try #require(midway, "the transfers never got half-way: \(apply.stderr)")
        apply.signal(SIGINT)
        let stopped = try #require(await apply.wait(timeout: .seconds(20)), "jobrun did not stop")
        #expect(stopped.status == 130, "\(stopped)")
        #expect(stopped.stderr.contains("partial files that can be resumed are kept"), "\(stopped)")
        #expect(
            stopped.stdout.contains(
                "\nNot finished: 2 cut in flight (1 partial file kept to resume; 1 discarded: no validator and no digest), 0 not started (the run was interrupted, or a dependency failed).\n"
            ), "\(stopped)")
        #expect(Self.workingFiles(fixture).sorted() == ["r/.digested.bin.jobrun-meta", "r/.digested.bin.jobrun-part"], "\(Self.workingFiles(fixture))")

        let plan = try await fixture.run(["plan", "site.yaml"])
        #expect(plan.stdout.contains("1 to fetch") && plan.stdout.contains("1 to resume"), "\(plan)")
        let (result, report) = try await fixture.applyJSON()
        #expect(result.status == 0, "\(result)")
        #expect(try report.slice("r", "digested.bin").status == "resumed" && report.slice("r", "bare.bin").status == "fetched")
        let log = try await fixture.requests(digested, count: 2)
        #expect(log[1].header(named: "Range") == "bytes=\(Self.cut)-" && log[1].header(named: "If-Range") == nil, "\(log)")
        try await fixture.expectVerified()
    }

    /// A chunked-encoding error ends an attempt on a partial file without metadata (an unsized
    /// body): it is removed, not left to sit beside the mirror.
    @Test func aChunkedEncodingErrorLeavesNoWorkingFile() async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        let path = FaultServer.path("/gen/600000/chunks.bin", faults: "chunked=1", "bad_chunk_at=300000")
        try fixture.write(manifest: ApplyResumeTests.manifest(attempts: 1, slices: "      - {path: chunks.bin, url: \"\(fixture.url(path))\"}"))
        let (result, report) = try await fixture.applyJSON()
        #expect(result.status == 1, "\(result)")
        #expect(try report.slice("r", "chunks.bin").status == "failed")
        _ = try await fixture.requests(path, count: 1)
        #expect(Self.workingFiles(fixture).isEmpty, "\(Self.workingFiles(fixture))")
        #expect(!fixture.directory.exists("mirror/r/chunks.bin"))
    }

    /// A verified body whose rename is refused (a folder holds the name): the slice fails and its
    /// partial file, which nothing would resume, goes.
    @Test func aRefusedRenameLeavesNoWorkingFile() async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        _ = try fixture.directory.write(file: "mirror/r/taken.bin/inside", contents: "a folder holds the name\n")
        let content = "/gen/300000/taken.bin"
        try fixture.write(
            manifest: ApplyResumeTests.manifest(
                attempts: 1,
                slices: """
                          - {path: taken.bin, url: "\(fixture.url(content))", size: 300000, sha256: \(try fixture.digest(content))}
                    """))
        let (result, report) = try await fixture.applyJSON()
        #expect(result.status == 1, "\(result)")
        let record = try report.slice("r", "taken.bin")
        #expect(record.status == "failed" && record.error?.message.contains("rename") == true, "\(record)")
        #expect(Self.workingFiles(fixture).isEmpty, "\(Self.workingFiles(fixture))")
    }
}
