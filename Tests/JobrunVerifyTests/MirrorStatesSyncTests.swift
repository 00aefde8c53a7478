import JobrunCore
import JobrunState
import JobrunTestSupport
import Testing
@testable import JobrunVerify
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Before the mirror state records files changed within the writeback horizon, it syncs the file
/// system of each, through the file's own folder: a folder below the root may be another mount.
@Suite struct MirrorStatesSyncTests {
    static func slice(_ path: String, device: UInt64) -> ProvenSlice {
        ProvenSlice(
            path: path, resource: "r", digests: [],
            file: FileIdentity(device: device, inode: 1, size: 1, mtimeNanoseconds: 0, ctimeNanoseconds: 0),
            seenAtNanoseconds: 0, provenAtMilliseconds: 0, fetchedAtMilliseconds: nil)
    }

    @Test(.enabled(if: FileSystemDevices.procIsAMount, "/proc is not a file system of its own here"))
    func eachFileSystemIsFlushedThroughItsFilesFolder() throws {
        let root = try #require(FileSystemDevices.device(atPath: "/"))
        let proc = try #require(FileSystemDevices.device(atPath: "/proc"))
        let slices = [
            Self.slice("top", device: root),
            Self.slice("proc/sys/a", device: proc),
            Self.slice("proc/sys/b", device: proc),
            Self.slice("proc/c", device: proc),
            // Its folder is on another device than the file was proven on: not synced.
            Self.slice("proc/d", device: proc &+ 1_000_003),
            // Its folder is gone.
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
}
