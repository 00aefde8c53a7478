import Foundation
import JobrunTestSupport
import Testing

/// A final file is the whole of one version of the server's file, or it is not there: responses
/// that splice two versions, present a part as the whole, or disagree with what the server said
/// before are never committed. Slices here declare no digest and (mostly) no size, so nothing
/// but these rules stands between the response and the mirror.
@Suite struct ApplyIntegrityTests {
    static let size = ApplyResumeTests.size
    static let cut = ApplyResumeTests.cut

    static func manifest(attempts: Int = 4, slices: String) -> String {
        ApplyResumeTests.manifest(attempts: attempts, slices: slices)
    }

    static func slice(_ name: String, _ url: String, size: Int? = nil) -> String {
        "      - {path: \(name), url: \"\(url)\"\(size.map { ", size: \($0)" } ?? "")}"
    }

    /// Ways a resume can be answered with a 206 of another version, or of no provable version;
    /// the fault prefix goes before `/gen/…`, and `version` is the version the file must end as.
    static let foreign206: [(faults: String, version: Int)] = [
        // A cache ignoring If-Range serves the range of the version that replaced the partial's.
        ("/fault/ignore_if_range=1/fault/change_after=1", 1),
        // Last-Modified was the validator (no ETag at all), and it changed.
        ("/fault/no_etag=1;ignore_if_range=1/fault/change_after=1", 1),
        // The 206 carries no validator, so nothing proves it continues the partial file.
        ("/fault/ignore_if_range=1;no_etag=1;no_last_modified=1;from=2;n=1", 0),
    ]

    @Test(arguments: 0..<3, [true, false])
    func a206OfAnotherVersionIsNeverAppended(kind: Int, sized: Bool) async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        let (faults, version) = Self.foreign206[kind]
        let content = "/gen/\(Self.size)/spliced.bin"
        let path = "/fault/truncate_at=\(Self.cut);n=1\(faults)\(content)"
        try fixture.write(manifest: Self.manifest(slices: Self.slice("spliced.bin", fixture.url(path), size: sized ? Self.size : nil)))
        let (result, report) = try await fixture.applyJSON()
        #expect(result.status == 0, "\(result)")
        let log = try await fixture.requests(path, count: 3)
        #expect(log.count == 3, "\(log)")
        #expect(log[1].header(named: "Range") == "bytes=\(Self.cut)-" && log[1].status == 206, "\(log)")
        // Refused at its head: the partial is discarded and the slice starts again at once.
        #expect(log[2].header(named: "Range") == nil && log[2].header(named: "If-Range") == nil && log[2].status == 200, "\(log)")
        let record = try report.slice("r", "spliced.bin")
        #expect(record.status == "fetched" && record.attempts == 3, "\(record)")
        #expect(try fixture.sha256(ofFile: "mirror/r/spliced.bin") == (try fixture.digest(content, version: version)))
        #expect(!fixture.directory.exists("mirror/r/.spliced.bin.jobrun-part"))
    }

    /// A 200 is the whole file: one carrying `Content-Range` (a part presented as the whole)
    /// is refused, retried, and with no attempt left fails without a file.
    @Test(arguments: [1, 2])
    func a200WithContentRangeIsNeverCommitted(attempts: Int) async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        let content = "/gen/5000/part.bin"
        let path = FaultServer.path(content, faults: "partial_200=1000", "n=1")
        try fixture.write(manifest: Self.manifest(attempts: attempts, slices: Self.slice("part.bin", fixture.url(path))))
        let (result, report) = try await fixture.applyJSON()
        let record = try report.slice("r", "part.bin")
        let log = try await fixture.requests(path, count: attempts)
        #expect(log[0].status == 200 && log[0].responseHeader(named: "Content-Range") == "bytes 0-999/5000", "\(log)")
        if attempts == 1 {
            #expect(result.status == 1, "\(result)")
            #expect(record.status == "failed" && record.error?.type == "InconsistentResponse", "\(record)")
            #expect(record.error?.message.contains("Content-Range") == true, "\(record)")
            #expect(!fixture.directory.exists("mirror/r/part.bin"))
        } else {
            #expect(result.status == 0, "\(result)")
            #expect(record.status == "fetched" && record.attempts == 2, "\(record)")
            #expect(try fixture.sha256(ofFile: "mirror/r/part.bin") == (try fixture.digest(content)))
        }
    }

    /// A proxy that turns the resume's 206 into a 200 (keeping `Content-Range` and the partial
    /// body): not appended, not committed as the whole; the slice starts again from zero.
    @Test func aRangeRewrittenAs200IsRefused() async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        let content = "/gen/\(Self.size)/rewritten.bin"
        let path = "/fault/truncate_at=\(Self.cut);n=1/fault/range_as_200=1;from=2;n=1\(content)"
        try fixture.write(manifest: Self.manifest(slices: Self.slice("rewritten.bin", fixture.url(path))))
        let (result, report) = try await fixture.applyJSON()
        #expect(result.status == 0, "\(result)")
        let log = try await fixture.requests(path, count: 3)
        #expect(log[1].status == 200 && log[1].responseHeader(named: "Content-Range") != nil, "\(log)")
        #expect(log[2].header(named: "Range") == nil && log[2].status == 200, "\(log)")
        #expect(try report.slice("r", "rewritten.bin").attempts == 3)
        #expect(try fixture.sha256(ofFile: "mirror/r/rewritten.bin") == (try fixture.digest(content)))
    }

    /// The same version (same ETag) cannot change its length: a 200 whose `Content-Length`
    /// disagrees with the total an earlier response declared is refused, not committed short.
    @Test func aLengthThatDisagreesWithTheSameVersionsTotalIsRefused() async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        let content = "/gen/\(Self.size)/shrunk.bin"
        let path = "/fault/truncate_at=\(Self.cut);n=1/fault/ignore_range=1;length=1000;from=2;n=1\(content)"
        try fixture.write(manifest: Self.manifest(slices: Self.slice("shrunk.bin", fixture.url(path))))
        let (result, report) = try await fixture.applyJSON()
        #expect(result.status == 0, "\(result)")
        let log = try await fixture.requests(path, count: 3)
        #expect(log[1].status == 200 && log[1].responseHeader(named: "Content-Length") == "1000", "\(log)")
        #expect(log[1].responseHeader(named: "ETag") == log[0].responseHeader(named: "ETag"), "\(log)")
        #expect(log[1].clientDisconnected || log[1].bytesSent < Self.size, "refused at its head: \(log)")
        let record = try report.slice("r", "shrunk.bin")
        #expect(record.status == "fetched" && record.attempts == 3 && record.size == Int64(Self.size), "\(record)")
        #expect(try fixture.sha256(ofFile: "mirror/r/shrunk.bin") == (try fixture.digest(content)))
        // The byte counts add up: the slice's own counts every attempt's body, the first cut
        // attempt's included, and the summary is the sum over fetched and resumed slices.
        #expect(record.bytesTransferred > Int64(Self.size) && report.summary.bytesTransferred == record.bytesTransferred, "\(report.summary) \(record)")
    }

    /// A body framed only by the connection's close cannot be told from one cut short: with a
    /// declared size the cut is caught; with neither size nor digest the slice is committed as
    /// what arrived and reported `unverified`, with the SHA-256 of what was fetched to pin.
    @Test func aBodyWithoutADeclaredLengthIsProvenOnlyByTheManifest() async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        let content = "/gen/5000/framed.bin"
        let path = FaultServer.path(content, faults: "no_length=1", "truncate_at=700", "n=1")
        let other = FaultServer.path("/gen/5000/sized.bin", faults: "no_length=1", "truncate_at=700", "n=1")
        try fixture.write(
            manifest: Self.manifest(
                slices: [
                    Self.slice("framed.bin", fixture.url(path)),
                    Self.slice("sized.bin", fixture.url(other), size: 5000),
                ].joined(separator: "\n")))
        let (result, report) = try await fixture.applyJSON()
        #expect(result.status == 0, "\(result)")
        let framed = try report.slice("r", "framed.bin")
        #expect(framed.integrity == "unverified" && framed.size == 700 && framed.attempts == 1, "\(framed)")
        #expect(framed.lengthDeclared == false, "\(framed)")
        #expect(
            result.stderr.contains("? r/framed.bin: unverifiable: the response declared no length") || result.stdout.contains("? r/framed.bin: unverifiable"),
            "\(result)")
        #expect(framed.computedDigests["sha256"] == (try fixture.sha256(ofFile: "mirror/r/framed.bin")), "\(framed)")
        let sized = try report.slice("r", "sized.bin")
        #expect(sized.integrity == "size_only" && sized.attempts == 2 && sized.size == 5000 && sized.lengthDeclared == true, "\(sized)")
        #expect(try fixture.sha256(ofFile: "mirror/r/sized.bin") == (try fixture.digest("/gen/5000/sized.bin")))
    }

    /// What the partial file's metadata says of the file (its total under its validator) holds
    /// for the whole next run, not only for the attempt that found the partial.
    @Test func theTotalInAPartialsMetadataHoldsForTheWholeNextRun() async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        let content = "/gen/\(Self.size)/kept.bin"
        let path = "/fault/truncate_at=\(Self.cut);n=1/fault/ignore_range=1;length=1000;from=2;n=2\(content)"
        try fixture.write(manifest: Self.manifest(attempts: 1, slices: Self.slice("kept.bin", fixture.url(path))))
        let first = try await fixture.apply()
        #expect(first.status == 1 && fixture.directory.exists("mirror/r/.kept.bin.jobrun-meta"), "\(first)")
        try fixture.write(manifest: Self.manifest(attempts: 3, slices: Self.slice("kept.bin", fixture.url(path))))
        let (second, report) = try await fixture.applyJSON()
        #expect(second.status == 0, "\(second)")
        let log = try await fixture.requests(path, count: 4)
        // Two short 200s under the partial's ETag, both refused; then the whole file.
        #expect(log.map(\.status) == [200, 200, 200, 200] && log[1].header(named: "Range") != nil && log[2].header(named: "Range") == nil, "\(log)")
        #expect(try report.slice("r", "kept.bin").size == Int64(Self.size))
        #expect(try fixture.sha256(ofFile: "mirror/r/kept.bin") == (try fixture.digest(content)))
    }
}
