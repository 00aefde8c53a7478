import Foundation
import JobrunCore
import JobrunTestSupport
import Synchronization
import Testing
@testable import JobrunRun
import JobrunSystem

/// The disk worker's thread: memory bodies are hashed, compared and written there, commits are synced
/// and renamed there, and every one comes back with its outcome, in the order handed over.
@Suite struct DiskWorkerTests {
    typealias Folder = BodySinkTests.Folder

    /// Reports as the disk worker delivers them (on its own thread).
    final class Delivered: Sendable {
        private let reports = Mutex<[DiskWorker.Report]>([])
        /// Signalled once per delivery.
        private let delivery = DispatchSemaphore(value: 0)
        func add(_ batch: [DiskWorker.Report]) {
            reports.withLock { $0 += batch }
            delivery.signal()
        }
        /// Waits for deliveries until `count` bodies have come, or `deadline` has passed.
        func waitForBodies(_ count: Int, until deadline: DispatchTime) {
            while all.count < count, delivery.wait(timeout: deadline) == .success {}
        }
        var all: [(job: SliceID, outcome: DiskWorker.Outcome)] {
            reports.withLock { $0 }.compactMap { report in
                if case .body(let work, let outcome) = report { (work.job, outcome) } else { nil }
            }
        }
        var commits: [(batch: CommitBatch, result: CommitBatch.Result)] {
            reports.withLock { $0 }.compactMap { report in
                if case .committed(let batch, let result) = report { (batch, result) } else { nil }
            }
        }
        /// Bodies as 'b', commits as 'c', in the order delivered.
        var order: String {
            String(reports.withLock { $0 }.map { if case .body = $0 { "b" } else { "c" } })
        }
    }

    /// A sink holding `body` in memory, as the engine leaves it when the transfer completes.
    static func received(_ body: [UInt8], in folder: Folder, name: String) -> BodySink {
        let sink = folder.sink(size: Int64(body.count), name: name)
        #expect(sink.receive(head: BodySinkTests.head(length: body.count)) == .accept)
        #expect(BodySinkTests.feed(sink, body))
        #expect(sink.isInMemory)
        return sink
    }

    /// `sink`'s body as the driver queues it for a commit, once the disk worker has stored it.
    static func verified(_ sink: BodySink) -> VerifiedBody {
        VerifiedBody(sink: sink, digests: [], verifiedAt: .now, httpVersion: nil)
    }

    @Test func verifiedBodiesAreWrittenAndMismatchesAreNot() throws {
        let folder = try Folder()
        let delivered = Delivered()
        let disk = try DiskWorker { delivered.add($0) }
        let otherDigest = try BodySinkTests.sha256(Generated.bytes(size: 10, name: "other"))
        var expected: [[UInt8]] = []
        for i in 0..<40 {
            let body = Generated.bytes(size: 1_000 + i * 997, name: "b\(i)")
            expected.append(body)
            let sink = Self.received(body, in: folder, name: "b\(i).bin")
            // Every fifth body is announced with another body's digest.
            let digest = try i % 5 == 4 ? otherDigest : BodySinkTests.sha256(body)
            disk.submit(DiskWorker.Work(job: SliceID(i), sink: sink, expected: [digest], httpVersion: nil))
        }
        disk.shutdown()  // returns once everything submitted has been delivered

        let outcomes = delivered.all
        #expect(outcomes.map(\.job) == Array(0..<40))
        for (job, outcome) in outcomes {
            let part = folder.directory.path(".b\(job).bin.jobrun-part")
            switch outcome {
            case .stored(let digests):
                #expect(job.index % 5 != 4)
                #expect(try digests == [BodySinkTests.sha256(expected[job])])
                #expect(try Data(contentsOf: URL(fileURLWithPath: part)) == Data(expected[job]))
            case .mismatch(let want, let got):
                #expect(job.index % 5 == 4)
                #expect(want == [otherDigest])
                #expect(try got == [BodySinkTests.sha256(expected[job])])
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
        let sink = BodySinkTests.sink(directoryFD: -1, size: Int64(body.count))
        #expect(sink.receive(head: BodySinkTests.head(length: body.count)) == .accept)
        #expect(BodySinkTests.feed(sink, body))
        let delivered = Delivered()
        let disk = try DiskWorker { delivered.add($0) }
        disk.submit(DiskWorker.Work(job: 7, sink: sink, expected: [try BodySinkTests.sha256(body)], httpVersion: nil))
        disk.shutdown()
        let outcomes = delivered.all
        #expect(outcomes.count == 1)
        guard case .writeFailed(let failure)? = outcomes.first?.outcome else {
            Issue.record("expected a write failure, got \(outcomes)")
            return
        }
        #expect(failure.errno == EBADF, "\(failure)")
        #expect(failure.message.contains("mirror/f.bin"), "\(failure.message)")
    }

    /// A commit syncs the root and renames each file into place, after the bodies handed over
    /// before it; it reports each file's identity just after the rename, and a file that cannot
    /// be renamed (its partial file is gone) as such, without stopping the others.
    @Test func aCommitRenamesAfterTheBodiesBeforeItAndReportsEachFile() throws {
        let folder = try Folder()
        let delivered = Delivered()
        let disk = try DiskWorker { delivered.add($0) }
        var sinks: [BodySink] = []
        for i in 0..<7 {
            let body = Generated.bytes(size: 2_000 + i, name: "c\(i)")
            let sink = Self.received(body, in: folder, name: "c\(i).bin")
            sinks.append(sink)
            disk.submit(DiskWorker.Work(job: SliceID(i), sink: sink, expected: [try BodySinkTests.sha256(body)], httpVersion: nil))
            // The first six are stored before the commit is made; the last is handed over just before it.
            if i == 5 {
                disk.start()
                delivered.waitForBodies(6, until: .now() + .seconds(30))
            }
        }
        var batch = CommitBatch()
        for (i, sink) in sinks.prefix(6).enumerated() {
            batch.add(job: SliceID(i), body: Self.verified(sink), root: folder.directory.path, fileSystems: FileSystemSet(folder.fd))
        }
        // Job 6's partial file was never written: its rename fails.
        let missing = folder.sink(size: 10, name: "missing.bin")
        batch.add(job: 6, body: Self.verified(missing), root: folder.directory.path, fileSystems: FileSystemSet(folder.fd))
        disk.submit(batch)
        disk.shutdown()

        #expect(delivered.order == "bbbbbbbc")
        #expect(delivered.all.count == 7)
        guard let (committed, result) = delivered.commits.first else {
            Issue.record("no commit was reported")
            return
        }
        #expect(committed.files.map(\.job) == Array(0...6))
        #expect(result.synced == [folder.directory.path])
        #expect(result.files.count == 7)
        for i in 0..<6 {
            let path = folder.directory.path("c\(i).bin")
            #expect(result.files[i] == .renamed(identity: try FileIdentity.ofFile(atPath: path)), "file \(i): \(result.files[i])")
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data(Generated.bytes(size: 2_000 + i, name: "c\(i)")))
        }
        guard case .renameFailed(let failure) = result.files[6] else {
            Issue.record("the missing file was reported as \(result.files[6])")
            return
        }
        #expect(failure.errno == ENOENT && failure.message.contains("mirror/missing.bin"), "\(failure.message)")
        #expect(folder.entries() == [".c6.bin.jobrun-part"] + (0..<6).map { "c\($0).bin" }, "a file of the batch was left, or the body after it committed")
    }

    /// A commit renames the file that was verified, not whatever has its partial file's name by
    /// then: here another file was renamed over it after the check, as a slice named like this
    /// one's partial file would have been.
    @Test func aPartialFileReplacedAfterItsCheckIsNotCommitted() throws {
        let folder = try Folder()
        let delivered = Delivered()
        let disk = try DiskWorker { delivered.add($0) }
        let body = Generated.bytes(size: 4_000, name: "v")
        let sink = Self.received(body, in: folder, name: "v.bin")
        disk.submit(DiskWorker.Work(job: 0, sink: sink, expected: [try BodySinkTests.sha256(body)], httpVersion: nil))
        disk.shutdown()
        #expect(folder.entries() == [".v.bin.jobrun-part"])
        try Data("other".utf8).write(to: URL(fileURLWithPath: folder.directory.path("other")))
        #expect(rename(folder.directory.path("other"), folder.directory.path(".v.bin.jobrun-part")) == 0)
        try Data(#"{"etag":"\"v1\""}"#.utf8).write(to: URL(fileURLWithPath: folder.directory.path(".v.bin.jobrun-meta")))

        let committer = try DiskWorker { delivered.add($0) }
        var batch = CommitBatch()
        batch.add(job: 0, body: Self.verified(sink), root: folder.directory.path, fileSystems: FileSystemSet(folder.fd))
        committer.submit(batch)
        committer.shutdown()
        #expect(delivered.commits.first?.result.files == [.notTheVerifiedFile])
        #expect(folder.entries() == [".v.bin.jobrun-part"], "the replacement was renamed into place, or the metadata kept")
    }

    #if os(Linux)
    /// A root whose sync fails renames none of its files, and says so for each. (Without
    /// syncfs, as on Darwin, a sync cannot fail.)
    @Test func aFailedSyncRenamesNothingOfItsRoot() throws {
        let folder = try Folder()
        let delivered = Delivered()
        let disk = try DiskWorker { delivered.add($0) }
        let body = Generated.bytes(size: 3_000, name: "s")
        let sink = Self.received(body, in: folder, name: "s.bin")
        disk.submit(DiskWorker.Work(job: 0, sink: sink, expected: [try BodySinkTests.sha256(body)], httpVersion: nil))
        disk.start()
        delivered.waitForBodies(1, until: .now() + .seconds(30))
        var batch = CommitBatch()
        batch.add(job: 0, body: Self.verified(sink), root: "bad-root", fileSystems: FileSystemSet(-1))  // syncfs fails with EBADF
        disk.submit(batch)
        disk.shutdown()

        #expect(delivered.order == "bc")
        let result = delivered.commits.first?.result
        #expect(result?.synced == [] && result?.files == [.notSynced(errno: EBADF)])
        #expect(folder.entries() == [".s.bin.jobrun-part"], "a file was renamed although its root's sync failed")
    }
    #endif

    /// Work is started by `start()`, without waiting for the disk worker to be shut down: what a
    /// driver that sleeps after it relies on.
    @Test func startWakesTheThreadForTheWorkSubmitted() throws {
        let folder = try Folder()
        let delivered = Delivered()
        let disk = try DiskWorker { delivered.add($0) }
        defer { disk.shutdown() }
        for round in 0..<3 {
            let body = Generated.bytes(size: 500 + round, name: "w\(round)")
            let sink = Self.received(body, in: folder, name: "w\(round).bin")
            disk.submit(DiskWorker.Work(job: SliceID(round), sink: sink, expected: [try BodySinkTests.sha256(body)], httpVersion: nil))
            disk.start()
            delivered.waitForBodies(round + 1, until: .now() + .seconds(30))
            #expect(delivered.all.map(\.job.index) == Array(0...round), "round \(round)")
        }
    }
}
