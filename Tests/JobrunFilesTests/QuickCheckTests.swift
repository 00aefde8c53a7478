import Foundation
import JobrunCore
import Synchronization
import JobrunTestSupport
import JobrunFiles
import Testing
import JobrunSystem

/// A file whose identity is the one its last proof recorded passes without being read; what the
/// checker observes of each passing file is what the mirror state records.
struct QuickCheckTests {
    static let abc = Array("abc".utf8)
    static let abcSHA256 = digest(.sha256, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    static let otherSHA256 = digest(.sha256, String(repeating: "0f", count: 32))

    static func identity(_ path: String) throws -> FileIdentity { try .ofFile(atPath: path) }

    @Test func aFileWithItsProvenIdentityIsNotRead() throws {
        try withTemporaryDirectory { root in
            try writeFile(root, "a/x.bin", Self.abc)
            let proven = try Self.identity(root + "/a/x.bin")
            // The bytes do not match this digest: only a file that is not read can pass.
            var expectation = FileExpectation(root: root, relativePath: "a/x.bin", size: 3, digests: [Self.otherSHA256], proven: proven)
            let recognized = FileChecker().check([expectation], observed: true)
            #expect(recognized.checks == [.ok(size: 3, digests: [Self.otherSHA256])])
            #expect(recognized.observations.map(\.proof) == [.recognized] && recognized.observations[0].identity == proven)

            // Something to compute besides: read.
            expectation.computes = [.md5]
            #expect(FileChecker().check([expectation], observed: true).checks[0] != .ok(size: 3, digests: [Self.otherSHA256]))

            // Another identity (the file was rewritten, same bytes): read, and it mismatches.
            expectation.computes = []
            try writeFile(root, "a/x.bin", Self.abc)
            #expect(try Self.identity(root + "/a/x.bin") != proven)
            guard case .digestMismatch = FileChecker().check([expectation]).checks[0] else {
                Issue.record("a rewritten file was not read")
                return
            }
        }
    }

    @Test func whatIsObservedOfEachFile() throws {
        try withTemporaryDirectory { root in
            try writeFile(root, "hashed.bin", Self.abc)
            try writeFile(root, "sized.bin", Self.abc)
            try writeFile(root, "wrong.bin", Self.abc)
            let before = FileIdentity.now()
            let results = FileChecker().check(
                [
                    FileExpectation(root: root, relativePath: "hashed.bin", size: 3, digests: [Self.abcSHA256]),
                    FileExpectation(root: root, relativePath: "sized.bin", size: 3),
                    FileExpectation(root: root, relativePath: "wrong.bin", digests: [Self.otherSHA256]),
                    FileExpectation(root: root, relativePath: "missing.bin", digests: [Self.abcSHA256]),
                ], observed: true)
            #expect(results.observations.map(\.proof) == [.hashed, .metadata, nil, nil])
            #expect(results.observations[0].identity == (try Self.identity(root + "/hashed.bin")))
            #expect(results.observations[1].identity == (try Self.identity(root + "/sized.bin")))
            // A file that differs is seen as it is (the plan tells a new version by it); a missing one is not.
            #expect(results.observations[2].identity == (try Self.identity(root + "/wrong.bin")))
            #expect(results.observations[3].identity == nil)
            // Taken no earlier than the check began, no later than now.
            #expect(results.observations[0].seenAt >= before && results.observations[0].seenAt <= FileIdentity.now())
            // Just written: not settled (the wall clock's step has not passed), whatever the
            // coarse clock says, so the next check reads it again.
            if let ctime = results.observations[0].identity?.ctimeNanoseconds, before < ctime + 50_000_000 {
                #expect(!results.observations[0].isSettled)
            }
            // Not asked: nothing observed.
            #expect(FileChecker().check([FileExpectation(root: root, relativePath: "hashed.bin")]).observations.isEmpty)
        }
    }

    #if os(Linux)
    /// A file written to while it is hashed (a byte rewritten with itself every millisecond, so
    /// that it still matches, but its times move on with each clock step) passes, but is
    /// observed without an identity: the proof holds for the bytes read, not for the file as it
    /// is now, so the mirror state records nothing of it.
    @Test func aFileChangedWhileItIsHashedIsObservedWithoutItsIdentity() throws {
        try withTemporaryDirectory { root in
            let bytes = [UInt8](repeating: 0x5A, count: 192 << 20)
            let path = try writeFile(root, "big.bin", bytes)
            let expectation = FileExpectation(
                root: root, relativePath: "big.bin", size: Int64(bytes.count), digests: [try Digest.compute(.sha256, of: bytes)])
            let fd = open(path, O_WRONLY | O_CLOEXEC)
            try #require(fd >= 0)
            defer { close(fd) }
            // A writer starved for the whole read on a loaded machine leaves the file unchanged
            // meanwhile, and its identity rightly kept: such a try is made again. A checker that
            // kept the identity of a file that changed never gives nil.
            var identities: [FileIdentity?] = []
            for _ in 1...3 {
                let checked = Self.check(expectation, whileRewriting: fd)
                #expect(checked.checks == [.ok(size: Int64(bytes.count), digests: expectation.digests)])
                #expect(checked.observations.map(\.proof) == [.hashed])
                identities.append(checked.observations.first?.identity)
                if identities.last == .some(nil) { break }
            }
            #expect(identities.last == .some(nil), "an identity kept although the file changed while it was read: \(identities)")
        }
    }

    /// Checks `expectation` while a thread rewrites the first byte of `fd` with itself every
    /// millisecond, from before the check starts until it ends.
    static func check(_ expectation: FileExpectation, whileRewriting fd: Int32) -> FileChecker.Results {
        let writer = Mutex((stop: false, writes: 0))
        let stopped = DispatchSemaphore(value: 0)
        let started = DispatchSemaphore(value: 0)
        Thread {
            var byte: UInt8 = 0x5A
            while !writer.withLock({ $0.stop }) {
                if pwrite(fd, &byte, 1, 0) == 1,
                    writer.withLock({
                        $0.writes += 1; return $0.writes
                    }) == 1
                {
                    started.signal()
                }
                var pause = timespec(tv_sec: 0, tv_nsec: 1_000_000)
                nanosleep(&pause, nil)
            }
            stopped.signal()
        }.start()
        _ = started.wait(timeout: .now() + 60)
        let checked = FileChecker().check([expectation], parallelism: 1, observed: true)
        writer.withLock { $0.stop = true }
        stopped.wait()
        return checked
    }
    #endif

    /// What a check observed is settled once both the coarse clock had passed the change time
    /// (where the file is stamped from it) and the wall clock's step had: a writer that stamped
    /// the time and stalls before its bytes stays unseen no longer than the step.
    @Test func anObservationIsSettledByBothClocks() {
        let file = FileIdentity(device: 1, inode: 2, size: 3, mtimeNanoseconds: 0, ctimeNanoseconds: 5_000_000_123)
        func settled(wall: Int64, coarse: Int64?) -> Bool {
            FileObservation(proof: .hashed, identity: file, seenAt: LookTime(wall: wall, coarse: coarse)).isSettled
        }
        #expect(!settled(wall: 5_001_000_000, coarse: 5_000_000_124), "the coarse clock passed it, the step did not")
        #expect(settled(wall: 5_050_000_123, coarse: 5_000_000_124))
        #expect(!settled(wall: 6_000_000_000, coarse: 5_000_000_123), "the coarse clock still in its tick")
        #expect(settled(wall: 5_050_000_123, coarse: nil) && !settled(wall: 5_050_000_122, coarse: nil))
        #expect(!FileObservation(proof: .hashed, identity: nil, seenAt: LookTime(wall: .max)).isSettled)
    }
}
