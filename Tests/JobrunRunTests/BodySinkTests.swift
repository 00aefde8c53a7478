import Foundation
import JobrunCore
import JobrunFetch
import JobrunPlan
import JobrunTestSupport
import Synchronization
import Testing
@testable import JobrunRun
import JobrunFiles

/// The sink of one attempt, driven the way the engine drives it: a head, then body pieces.
@Suite struct BodySinkTests {
    /// A folder to write into, opened as the driver opens it.
    final class Folder {
        let directory: TemporaryDirectory
        let fd: Int32

        init() throws {
            directory = try TemporaryDirectory(prefix: "jobrun-bodysink")
            fd = open(directory.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        }

        deinit {
            close(fd)
            directory.remove()
        }

        func sink(
            size: Int64?, name: String = "f.bin", digests: [DigestAlgorithm] = [.sha256], cap: Int64? = nil,
            resumeOffset: Int64 = 0, progress: (@Sendable (BodySink, ByteCount) -> Void)? = nil
        ) -> BodySink {
            BodySinkTests.sink(
                directoryFD: fd, size: size, name: name, digests: digests, cap: cap, resumeOffset: resumeOffset, progress: progress)
        }

        func entries() -> [String] {
            ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).sorted()
        }
    }

    /// A sink for slice `name` of `size` bytes (the cap defaults to the size, else 4 GiB) whose
    /// partial file goes into the folder open on `directoryFD`.
    static func sink(
        directoryFD: Int32, size: Int64?, name: String = "f.bin", digests: [DigestAlgorithm] = [.sha256],
        cap: Int64? = nil, resumeOffset: Int64 = 0, progress: (@Sendable (BodySink, ByteCount) -> Void)? = nil
    ) -> BodySink {
        let keepsMetadata = (size ?? 0) >= PartialDownload.resumableSize
        return BodySink(
            file: PartialFile(directoryFD: directoryFD, fileName: name, displayPath: "mirror/\(name)", identity: "http://h/\(name)"),
            check: ResponseCheck(
                resumeOffset: ByteCount(resumeOffset), resumeValidator: nil, expectedSize: size.map { ByteCount($0) }, cap: ByteCount(cap ?? size ?? (4 << 30)),
                learned: nil),
            algorithms: digests, keepsMetadata: keepsMetadata, sent: RequestSent(at: .now, inFlight: 1),
            progress: progress)
    }

    static func head(_ status: Int = 200, length: Int?) -> ResponseHead {
        ResponseHead(status: status, headers: length.map { [.init(name: "Content-Length", value: "\($0)")] } ?? [])
    }

    /// Feeds `bytes` in pieces of `piece` bytes, as libcurl's write callback does.
    static func feed(_ sink: BodySink, _ bytes: [UInt8], piece: Int = 16 << 10) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let end = min(offset + piece, bytes.count)
            let ok = bytes[offset..<end].withUnsafeBytes { sink.receive(body: $0) }
            if !ok { return false }
            offset = end
        }
        return true
    }

    static func sha256(_ bytes: [UInt8]) throws -> Digest {
        try Digest.compute(.sha256, of: bytes)
    }

    @Test func aSmallBodyStaysInMemoryUntilItIsVerifiedAndPersisted() throws {
        let folder = try Folder()
        let body = Generated.bytes(size: 70_000, name: "f.bin")
        let sink = folder.sink(size: Int64(body.count))
        #expect(sink.receive(head: Self.head(length: body.count)) == .accept)
        #expect(Self.feed(sink, body))
        #expect(sink.isInMemory)
        #expect(folder.entries().isEmpty, "a memory body touched the disk before it was verified: \(folder.entries())")
        #expect(try sink.digests(pool: DigestPool()).get() == [Self.sha256(body)])
        #expect(sink.persist() == nil)
        #expect(!sink.isInMemory)
        #expect(folder.entries() == [".f.bin.jobrun-part"])
        #expect(try Data(contentsOf: URL(fileURLWithPath: folder.directory.path(".f.bin.jobrun-part"))) == Data(body))
    }

    /// A partial file left by an earlier run (or a link planted there) is replaced, never
    /// followed or appended to.
    @Test func persistReplacesAStalePartialFile() throws {
        let folder = try Folder()
        _ = try folder.directory.write(file: ".f.bin.jobrun-part", contents: "stale bytes from another run")
        let target = try folder.directory.write(file: "elsewhere.txt", contents: "keep me")
        try FileManager.default.createSymbolicLink(atPath: folder.directory.path(".g.bin.jobrun-part"), withDestinationPath: target)
        for name in ["f.bin", "g.bin"] {
            let body = Generated.bytes(size: 1000, name: name)
            let sink = folder.sink(size: 1000, name: name)
            #expect(sink.receive(head: Self.head(length: 1000)) == .accept)
            #expect(Self.feed(sink, body))
            #expect(sink.persist() == nil)
            let stored = try Data(contentsOf: URL(fileURLWithPath: folder.directory.path(".\(name).jobrun-part")))
            #expect(stored == Data(body))
        }
        #expect(folder.directory.contents(of: "elsewhere.txt") == "keep me")
    }

    @Test func aBodyWithoutDeclaredSizeUsesTheContentLength() throws {
        let folder = try Folder()
        let small = folder.sink(size: nil)
        #expect(small.receive(head: Self.head(length: 100)) == .accept)
        #expect(small.isInMemory)
        // No Content-Length either (a chunked response): straight to the partial file.
        let unknown = folder.sink(size: nil, name: "u.bin")
        #expect(unknown.receive(head: Self.head(length: nil)) == .accept)
        #expect(!unknown.isInMemory)
        #expect(folder.entries() == [".u.bin.jobrun-part"])
        // Above the memory limit: the partial file from the first byte.
        let large = folder.sink(size: nil, name: "l.bin")
        #expect(large.receive(head: Self.head(length: ResponseGate.memoryLimit.int + 1)) == .accept)
        #expect(!large.isInMemory)
    }

    /// More bytes than a Content-Length announced (no declared size): what was buffered moves to
    /// the partial file and the body continues there; the digest covers every byte.
    @Test func aBodyLongerThanAnnouncedMovesToThePartialFile() throws {
        let folder = try Folder()
        let body = Generated.bytes(size: 5000, name: "f.bin")
        let sink = folder.sink(size: nil)
        #expect(sink.receive(head: Self.head(length: 3000)) == .accept)
        #expect(Self.feed(sink, body, piece: 1000))
        #expect(!sink.isInMemory)
        #expect(sink.written == 5000)
        #expect(try sink.digests(pool: DigestPool()).get() == [Self.sha256(body)])
        sink.close()
        #expect(try Data(contentsOf: URL(fileURLWithPath: folder.directory.path(".f.bin.jobrun-part"))) == Data(body))
    }

    @Test func theByteCapHoldsInBothModes() throws {
        let folder = try Folder()
        for size in [1000, 2 << 20] {
            let sink = folder.sink(size: Int64(size), name: "f\(size).bin")
            #expect(sink.receive(head: Self.head(length: nil)) == .accept)
            #expect(!Self.feed(sink, Generated.bytes(size: size + 1, name: "x")))
            guard case .refused(let failure) = sink.verdict else {
                Issue.record("no refusal: \(String(describing: sink.verdict))")
                continue
            }
            #expect(failure.kind == .tooLarge)
            #expect(sink.written <= ByteCount(size))
        }
    }

    /// A large body from byte 0 streams to disk and is hashed on the way (no read-back: its
    /// progress reports, one per step, only say how far it got); the digest covers the whole
    /// file and the file holds every byte.
    @Test func aFreshLargeBodyIsHashedAsItIsWritten() throws {
        let folder = try Folder()
        let size = 3 * BodySink.progressStep.int + 12_345
        let body = Generated.bytes(size: size, name: "big.bin")
        let reports = ReportLog()
        let sink = folder.sink(size: Int64(size), name: "big.bin", digests: [.md5, .sha256], progress: { reports.add($1, from: $0) })
        #expect(sink.receive(head: Self.head(length: size)) == .accept)
        #expect(!sink.isInMemory)
        #expect(Self.feed(sink, body, piece: 100_000))
        #expect(reports.count == size / BodySink.progressStep.int - 1, "a report per step written (after the first piece past each)")
        #expect(reports.senders == [ObjectIdentifier(sink)], "each report names its sink (the driver drops reports of other attempts)")
        sink.hash(upTo: ByteCount(size), scratch: DigestPool().scratch)  // a no-op: nothing is read back
        let digests = try sink.digests(pool: DigestPool()).get()
        #expect(digests == [try Digest.compute(.md5, of: body), try Self.sha256(body)])
        sink.close()
        #expect(try Data(contentsOf: URL(fileURLWithPath: folder.directory.path(".big.bin.jobrun-part"))) == Data(body))
    }

    /// A resumed body continues a partial file of exactly the resume offset; the driver
    /// hashes the file from its first byte as progress reports arrive, so the digest covers the
    /// bytes already there too.
    @Test func aResumedBodyIsHashedWithTheBytesAlreadyOnDisk() throws {
        let folder = try Folder()
        let size = 4 * BodySink.progressStep.int + 4321
        let body = Generated.bytes(size: size, name: "r.bin")
        let cut = 700_000
        _ = try folder.directory.write(file: ".r.bin.jobrun-part", bytes: Array(body[0..<cut]))
        let reports = ReportLog()
        let sink = folder.sink(
            size: Int64(size), name: "r.bin", digests: [.md5, .sha256], resumeOffset: Int64(cut),
            progress: { reports.add($1, from: $0) })
        let head = ResponseHead(status: 206, headers: [.init(name: "Content-Range", value: "bytes \(cut)-\(size - 1)/\(size)")])
        #expect(sink.receive(head: head) == .accept)
        #expect(sink.startOffset == ByteCount(cut))
        let pool = DigestPool()
        var offset = cut
        while offset < size {
            let end = min(offset + 100_000, size)
            #expect(body[offset..<end].withUnsafeBytes { sink.receive(body: $0) })
            offset = end
            // What the driver does with each report, in between.
            for written in reports.take() { sink.hash(upTo: written, scratch: pool.scratch) }
        }
        #expect(reports.count >= 2, "the engine side reported progress \(reports.count) times")
        #expect(reports.senders == [ObjectIdentifier(sink)])
        #expect(try sink.digests(pool: pool).get() == [try Digest.compute(.md5, of: body), try Self.sha256(body)])
    }

    /// The partial file changed size between the plan and the response: not appended to.
    @Test func aResumeOntoAPartialOfTheWrongSizeFails() throws {
        let folder = try Folder()
        _ = try folder.directory.write(file: ".r.bin.jobrun-part", bytes: Array(repeating: 1, count: 500))
        let sink = folder.sink(size: 2 << 20, name: "r.bin", resumeOffset: 700)
        let head = ResponseHead(status: 206, headers: [.init(name: "Content-Range", value: "bytes 700-2097151/2097152")])
        #expect(sink.receive(head: head) == .reject)
        #expect(sink.writeFailure != nil)
    }

    @Test func theDigestPoolReusesItsDigesters() throws {
        let pool = DigestPool()
        for n in [0, 1, 64, 70_000] {
            let bytes = Generated.bytes(size: n, name: "p")
            let got = bytes.withUnsafeBytes { pool.digests([.sha1, .sha512], of: $0) }
            #expect(got == [try Digest.compute(.sha1, of: bytes), try Digest.compute(.sha512, of: bytes)])
        }
    }
}

/// Progress reports collected from the "engine" side of a test.
final class ReportLog: Sendable {
    private let state = Mutex<(pending: [ByteCount], total: Int, senders: Set<ObjectIdentifier>)>(([], 0, []))

    var count: Int { state.withLock { $0.total } }
    /// The sinks that reported.
    var senders: Set<ObjectIdentifier> { state.withLock { $0.senders } }

    func add(_ written: ByteCount, from sink: BodySink) {
        state.withLock {
            $0.pending.append(written)
            $0.total += 1
            $0.senders.insert(ObjectIdentifier(sink))
        }
    }

    func take() -> [ByteCount] {
        state.withLock { box in
            let taken = box.pending
            box.pending = []
            return taken
        }
    }
}
