import JobrunSystem
import JobrunTestSupport
import JobrunCore
import Testing
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One descriptor per file system: folders on one are one member, a mount below them another.
@Suite struct FileSystemSetTests {
    static func openFolder(_ path: String) -> Int32 {
        open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    }

    @Test func foldersOnOneFileSystemAreOneMember() throws {
        let directory = try TemporaryDirectory(prefix: "filesystems")
        defer { directory.remove() }
        _ = try directory.makeDirectory("a/b")
        let paths: [String] = [directory.path, directory.path("a"), directory.path("a/b")]
        let fds = paths.map(Self.openFolder)
        defer { for fd in fds { close(fd) } }
        try #require(fds.allSatisfy { $0 >= 0 })
        var set = FileSystemSet()
        for fd in fds { set.add(fd) }
        #expect(set.descriptors == [fds[0]])
        #expect(set.sync() == nil)
    }

    @Test(.enabled(if: FileSystemDevices.procIsAMount, "/proc is not a file system of its own here"))
    func eachFileSystemIsFlushedOnceAndEveryOneIsTried() throws {
        let fds = ["/", "/proc", "/proc/sys", "/etc"].map(Self.openFolder)
        defer { for fd in fds { close(fd) } }
        try #require(fds.allSatisfy { $0 >= 0 })
        var set = FileSystemSet(fds[0])
        for fd in fds.dropFirst() { set.add(fd) }
        let expected =
            [FileSystemDevices.device(atPath: "/"), FileSystemDevices.device(atPath: "/proc")]
            + (FileSystemDevices.device(atPath: "/etc") == FileSystemDevices.device(atPath: "/") ? [] : [FileSystemDevices.device(atPath: "/etc")])
        #expect(set.members.map(\.device) == expected)
        var flushed: [UInt64?] = []
        // The first file system fails: the others are flushed all the same, and its error is the answer.
        let error = set.sync { fd in
            flushed.append(FileSystemDevices.device(of: fd))
            return flushed.count == 1 ? EIO : nil
        }
        #expect(error == EIO)
        #expect(flushed == expected)
    }

    /// A descriptor `fstat` refuses is a file system of its own, whose flush fails in turn.
    @Test func aDescriptorThatCannotBeStatedIsKeptAndItsFlushFails() {
        let set = FileSystemSet(-1)
        #expect(set.members.map(\.device) == [nil] && set.descriptors == [-1])
        #if os(Linux)
        #expect(set.sync() == EBADF)
        #endif
    }
}
