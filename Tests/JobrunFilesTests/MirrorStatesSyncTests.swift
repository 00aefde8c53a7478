import JobrunCore
import JobrunState
import JobrunTestSupport
import Testing
@testable import JobrunFiles
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import JobrunSystem

/// Before the mirror state records files changed within the writeback horizon, it syncs the file
/// system of each, through the file's own folder: a folder below the root may be another mount.
@Suite struct MirrorStatesSyncTests {
    static func slice(_ path: String, device: UInt64, changedAt ctime: Int64 = 0) -> ProvenSlice {
        ProvenSlice(
            path: path, resource: "r", digests: [],
            file: FileIdentity(device: device, inode: 1, size: 1, mtimeNanoseconds: 0, ctimeNanoseconds: ctime),
            seenAtNanoseconds: 0, provenAtMilliseconds: 0, fetchedAtMilliseconds: nil)
    }

    @Test(.enabled(if: FileSystemDevices.procIsAMount, "/proc is not a file system of its own here"))
    func eachFileSystemIsFlushedThroughItsFilesFolder() throws {
        let root = try #require(FileSystemDevices.device(atPath: "/"))
        let proc = try #require(FileSystemDevices.device(atPath: "/proc"))
        let slices = [
            // Its folder is gone: another folder on the device stands for it.
            Self.slice("no-such-folder/x", device: root),
            Self.slice("top", device: root),
            Self.slice("proc/sys/a", device: proc),
            Self.slice("proc/sys/b", device: proc),
            Self.slice("proc/c", device: proc),
            // Its folder is on another device than the file was proven on: not synced.
            Self.slice("proc/d", device: proc &+ 1_000_003),
            // No folder of its device opens.
            Self.slice("no-such-folder/e", device: 4_242_424),
        ]
        var flushed: [UInt64] = []
        let unsynced = MirrorStates.syncFileSystems(of: slices, root: "/") { fd in
            if let device = FileSystemDevices.device(of: fd) { flushed.append(device) }
            return nil
        }
        #expect(flushed == [root, proc], "one flush per file system")
        #expect(unsynced == [proc &+ 1_000_003, 4_242_424])
    }

    @Test func aFailedFlushLeavesItsFileSystemUnsynced() throws {
        let root = try #require(FileSystemDevices.device(atPath: "/"))
        let unsynced = MirrorStates.syncFileSystems(of: [Self.slice("a", device: root), Self.slice("b", device: root)], root: "/") { _ in EIO }
        #expect(unsynced == [root])
        #expect(MirrorStates.syncFileSystems(of: [Self.slice("a", device: root)], root: "/no/such/root") == [root])
    }

    /// What `learn` records: a file changed within the writeback horizon only when its file
    /// system was synced; an older one in any case.
    @Test func youngFilesOfAFileSystemThatDidNotSyncAreNotRecorded() throws {
        let directory = try TemporaryDirectory(prefix: "learn")
        defer { directory.remove() }
        let now = FileIdentity.now()
        for (answer, expected) in [(EIO, ["old.bin"]), (nil, ["old.bin", "young.bin"])] as [(Int32?, [String])] {
            let root = try directory.makeDirectory("root-\(answer ?? 0)")
            let device = try #require(FileSystemDevices.device(atPath: root))
            let states = MirrorStates(roots: [root], access: .create) { Issue.record("\($0)") }
            var proofs = CheckProofs()
            proofs.proven[root] = [
                Self.slice("young.bin", device: device, changedAt: now - 1_000_000_000),
                Self.slice("old.bin", device: device, changedAt: now - MirrorStates.writebackHorizon - 1_000_000_000),
            ]
            var flushes = 0
            states.learn(proofs) { _ in
                flushes += 1
                return answer
            }
            #expect(flushes == 1)
            #expect(states.provenFiles()[root].map { Array($0.keys).sorted() } == expected, "flush answered \(answer.map(String.init) ?? "nil")")
        }
    }
}
