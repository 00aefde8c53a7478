import Foundation
import JobrunTestSupport
import Testing

/// The faults that misrepresent which bytes a response carries, as curl sees them.
extension FaultServerTests {
    @Test func ignoreIfRangeAnswersARangeOfTheNewVersion() async throws {
        let fixture = try Fixture()
        defer { fixture.finish() }
        let path = "/fault/ignore_if_range=1/fault/change_after=1/gen/5000/v.bin"
        let first = try await fixture.curl(fixture.server.url(path))
        let etag = try #require(first.header("ETag"))
        let second = try await fixture.curl(fixture.server.url(path), options: ["-H", "Range: bytes=1000-", "-H", "If-Range: \(etag)"])
        #expect(second.status == 206 && second.header("Content-Range") == "bytes 1000-4999/5000", "\(second)")
        #expect(second.header("ETag") != etag, "the 206 is of the next version")
        #expect(second.body == Array(Generated.bytes(size: 5_000, name: "v.bin", version: 1)[1_000...]))
    }

    @Test func rangeAs200AndPartial200CarryContentRangeOnA200() async throws {
        let fixture = try Fixture()
        defer { fixture.finish() }
        let whole = Generated.bytes(size: 5_000, name: "p.bin")
        let rewritten = try await fixture.curl(fixture.server.url("/fault/range_as_200=1/gen/5000/p.bin"), options: ["-H", "Range: bytes=1000-"])
        #expect(rewritten.status == 200 && rewritten.header("Content-Range") == "bytes 1000-4999/5000", "\(rewritten)")
        #expect(rewritten.body == Array(whole[1_000...]))
        let partial = try await fixture.curl(fixture.server.url("/fault/partial_200=1200/gen/5000/p.bin"))
        #expect(partial.status == 200 && partial.header("Content-Range") == "bytes 0-1199/5000", "\(partial)")
        #expect(partial.header("Content-Length") == "1200" && partial.body == Array(whole[..<1_200]))
    }

    @Test func noLengthEndsTheBodyWithTheConnection() async throws {
        let fixture = try Fixture()
        defer { fixture.finish() }
        let whole = try await fixture.curl(fixture.server.url("/fault/no_length=1/gen/5000/n.bin"))
        #expect(whole.exitStatus == 0 && whole.status == 200 && whole.header("Content-Length") == nil, "\(whole)")
        #expect(whole.header("Transfer-Encoding") == nil && whole.body == Generated.bytes(size: 5_000, name: "n.bin"))
        // Cut short, it looks just as complete to the client: nothing declares the length.
        let cut = try await fixture.curl(fixture.server.url("/fault/no_length=1;truncate_at=700/gen/5000/n.bin"))
        #expect(cut.exitStatus == 0 && cut.status == 200 && cut.body.count == 700, "\(cut)")
    }
}
