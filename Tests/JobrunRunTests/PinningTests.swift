import Foundation
import JobrunCore
import JobrunManifest
import JobrunTestSupport
import Testing
@testable import JobrunRun

/// A slice that declares no digest is hashed with SHA-256 anyway, so what was fetched can be
/// pinned; a slice that declares digests is hashed with exactly those.
@Suite struct PinningTests {
    static let here = SourceLocation(file: "m.yaml", line: 1, column: 1)

    @Test func aSliceWithoutDigestsIsHashedWithSHA256AndOthersWithTheirOwn() {
        let bare = Slice(path: "a", location: Self.here)
        let sized = Slice(path: "b", size: 10, location: Self.here)
        let md5 = Slice(path: "c", digests: [Digest(algorithm: .md5, bytes: Array(repeating: 0, count: 16))], location: Self.here)
        #expect(RunDriver.hashedAlgorithms(for: bare) == [.sha256])
        #expect(RunDriver.hashedAlgorithms(for: sized) == [.sha256])
        #expect(RunDriver.hashedAlgorithms(for: md5) == [.md5])
    }

    @Test func computedDigestsAreReportedApartFromDeclaredOnes() throws {
        let digest = try Digest.compute(.sha256, of: Array("abc".utf8))
        let bare = Slice(path: "a", location: Self.here)
        let declared = Slice(path: "b", digests: [digest], location: Self.here)
        #expect(RunDriver.outcomeDigests([digest], for: bare) == ([], [digest]))
        #expect(RunDriver.outcomeDigests([digest], for: declared) == ([digest], []))
    }

    /// The store compares declared digests only: with none declared, a body is stored and its
    /// SHA-256 comes back.
    @Test func aMemoryBodyWithNothingDeclaredIsStoredWithItsSHA256() throws {
        let folder = try BodySinkTests.Folder()
        let body = Generated.bytes(size: 3_000, name: "bare.bin")
        let sink = DiskWorkerTests.received(body, in: folder, name: "bare.bin")
        let outcome = DiskWorker.check(sink, expected: [], pool: DigestPool())
        guard case .stored(let digests) = outcome else {
            Issue.record("expected the body stored, got \(outcome)")
            return
        }
        #expect(try digests == [BodySinkTests.sha256(body)])
        #expect(try Data(contentsOf: URL(fileURLWithPath: folder.directory.path(".bare.bin.jobrun-part"))) == Data(body))
    }
}
