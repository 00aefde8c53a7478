import Foundation
import JobrunCore
import JobrunTestSupport
import Synchronization
import Testing
@testable import JobrunRun

/// The store thread: memory bodies are hashed, compared and written there, and every one comes
/// back with its outcome, in the order handed over.
@Suite struct BodyStoreTests {
    typealias Folder = SliceWriterTests.Folder

    /// Outcomes as the store delivers them (on its own thread).
    final class Delivered: Sendable {
        private let items = Mutex<[(job: Int, outcome: BodyStore.Outcome)]>([])
        func add(_ batch: [(job: Int, writer: SliceWriter, outcome: BodyStore.Outcome)]) {
            items.withLock { $0 += batch.map { ($0.job, $0.outcome) } }
        }
        var all: [(job: Int, outcome: BodyStore.Outcome)] { items.withLock { $0 } }
    }

    /// A writer holding `body` in memory, as the engine leaves it when the transfer completes.
    static func received(_ body: [UInt8], in folder: Folder, name: String) -> SliceWriter {
        let writer = folder.writer(size: Int64(body.count), name: name)
        #expect(writer.receive(head: SliceWriterTests.head(length: body.count)) == .accept)
        #expect(SliceWriterTests.feed(writer, body))
        #expect(writer.isInMemory)
        return writer
    }

    @Test func verifiedBodiesAreWrittenAndMismatchesAreNot() throws {
        let folder = try Folder()
        let delivered = Delivered()
        let store = try BodyStore { delivered.add($0) }
        let otherDigest = try SliceWriterTests.sha256(Generated.bytes(size: 10, name: "other"))
        var expected: [[UInt8]] = []
        for i in 0..<40 {
            let body = Generated.bytes(size: 1_000 + i * 997, name: "b\(i)")
            expected.append(body)
            let writer = Self.received(body, in: folder, name: "b\(i).bin")
            // Every fifth body is announced with another body's digest.
            let digest = try i % 5 == 4 ? otherDigest : SliceWriterTests.sha256(body)
            store.submit(BodyStore.Work(job: i, writer: writer, expected: [digest]))
        }
        store.shutdown()  // returns once everything submitted has been delivered

        let outcomes = delivered.all
        #expect(outcomes.map(\.job) == Array(0..<40))
        for (job, outcome) in outcomes {
            let part = folder.directory.path(".b\(job).bin.jobrun-part")
            switch outcome {
            case .stored(let digests):
                #expect(job % 5 != 4)
                #expect(try digests == [SliceWriterTests.sha256(expected[job])])
                #expect(try Data(contentsOf: URL(fileURLWithPath: part)) == Data(expected[job]))
            case .mismatch(let want, let got):
                #expect(job % 5 == 4)
                #expect(want == [otherDigest])
                #expect(try got == [SliceWriterTests.sha256(expected[job])])
                #expect(!FileManager.default.fileExists(atPath: part), "a body that failed its digest was written")
            case .writeFailed(let failure):
                Issue.record("body \(job) could not be written: \(failure.message)")
            }
        }
        #expect(folder.entries().count == 32)
    }

    @Test func aBodyThatCannotBeWrittenIsReportedAsSuch() throws {
        let body = Generated.bytes(size: 5_000, name: "f.bin")
        // No folder to create the partial file in (an invalid descriptor: openat fails with EBADF).
        let writer = SliceWriterTests.writer(directoryFD: -1, size: Int64(body.count))
        #expect(writer.receive(head: SliceWriterTests.head(length: body.count)) == .accept)
        #expect(SliceWriterTests.feed(writer, body))
        let delivered = Delivered()
        let store = try BodyStore { delivered.add($0) }
        store.submit(BodyStore.Work(job: 7, writer: writer, expected: [try SliceWriterTests.sha256(body)]))
        store.shutdown()
        let outcomes = delivered.all
        #expect(outcomes.count == 1)
        guard case .writeFailed(let failure)? = outcomes.first?.outcome else {
            Issue.record("expected a write failure, got \(outcomes)")
            return
        }
        #expect(failure.errno == EBADF, "\(failure)")
        #expect(failure.message.contains("mirror/f.bin"), "\(failure.message)")
    }
}
