import JobrunCore
import JobrunTestSupport
import Testing
@testable import JobrunRun

/// An output root knows the file systems of the folders it opened, so that its sync reaches a
/// mount below it.
@Suite struct OutputDirectoryTests {
    @Test func foldersCreatedBelowTheRootShareItsFileSystem() throws {
        let directory = try TemporaryDirectory(prefix: "output")
        defer { directory.remove() }
        let output = try OutputDirectory(rootPath: directory.path("mirror"))
        _ = try output.folder("a/b")
        _ = try output.folder("c")
        #expect(output.fileSystems.descriptors == [output.rootFD])
        #expect(output.syncFileSystem() == nil)
    }

    @Test(.enabled(if: FileSystemDevices.procIsAMount, "/proc is not a file system of its own here"))
    func aMountBelowTheRootIsAFileSystemOfItsOwn() throws {
        let output = try OutputDirectory(rootPath: "/")
        let sys = try output.folder("proc/sys")
        #expect(output.fileSystems.members.map(\.device) == [FileSystemDevices.device(atPath: "/"), FileSystemDevices.device(atPath: "/proc")])
        // The first folder opened on the mount stands for it.
        #expect(output.fileSystems.descriptors.first == output.rootFD && output.fileSystems.descriptors.count == 2)
        #expect(output.fileSystems.descriptors.last != sys, "proc/sys is on the file system /proc opened first")
    }
}
