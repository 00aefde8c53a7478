import JobrunSystem
import JobrunTestSupport
import JobrunCore
import Testing

@Suite struct FileStatusTests {
    @Test func directoriesFilesAndMissingPaths() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        #expect(FileStatus.isDirectory(atPath: directory.path))
        let file = try directory.write(file: "file", contents: "")
        #expect(!FileStatus.isDirectory(atPath: file))
        #expect(!FileStatus.isDirectory(atPath: directory.path("missing")))
        #expect(FileStatus.kind(atPath: file) == .other)
        #expect(FileStatus.kind(atPath: directory.path("missing")) == nil)
        try #require(symlink(directory.path, directory.path("link")) == 0)
        #expect(FileStatus.isDirectory(atPath: directory.path("link")), "a link to a folder counts, as stat follows it")
    }
}
