import JobrunCore
import JobrunTestSupport
import Testing

@Suite struct SlashPathTests {
    @Test(arguments: [
        ("a/b/c.ts", "a/b", "c.ts"), ("c.ts", "", "c.ts"), ("/c.ts", "", "c.ts"), ("a/", "a", ""),
        ("", "", ""), ("dir/é/ü.ts", "dir/é", "ü.ts"), ("a//b", "a/", "b"),
    ])
    func splitsAtTheLastSlash(path: String, folder: String, name: String) {
        let parts = SlashPath.split(path)
        #expect(parts.folder == folder)
        #expect(parts.name == name)
    }

    @Test(arguments: [("a/b.yaml", "a"), ("b.yaml", "."), ("/b.yaml", "/"), ("/x/y/b.yaml", "/x/y"), ("../b.yaml", "..")])
    func folderOfAPathIsAPathItself(path: String, folder: String) {
        #expect(SlashPath.folder(of: path) == folder)
    }
}

@Suite struct FileStatusTests {
    @Test func directoriesFilesAndMissingPaths() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let folder = directory.path
        #expect(FileStatus.isDirectory(atPath: folder))
        let file = try directory.write(file: "file", contents: "")
        #expect(!FileStatus.isDirectory(atPath: file))
        #expect(!FileStatus.isDirectory(atPath: folder + "/missing"))
        #expect(FileStatus.kind(atPath: file) == .other)
        #expect(FileStatus.kind(atPath: folder + "/missing") == nil)
        try #require(symlink(folder, folder + "/link") == 0)
        #expect(FileStatus.isDirectory(atPath: folder + "/link"), "a link to a folder counts, as stat follows it")
    }
}
