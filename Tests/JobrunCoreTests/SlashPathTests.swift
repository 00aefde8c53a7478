import JobrunCore
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
        let folder = "/tmp/jobrun-filestatus-\(getpid())"
        mkdir(folder, 0o755)
        defer { _ = unlink(folder + "/file"); _ = unlink(folder + "/link"); _ = rmdir(folder) }
        #expect(FileStatus.isDirectory(atPath: folder))
        let fd = open(folder + "/file", O_CREAT | O_WRONLY | O_CLOEXEC, 0o644)
        try #require(fd >= 0)
        close(fd)
        #expect(!FileStatus.isDirectory(atPath: folder + "/file"))
        #expect(!FileStatus.isDirectory(atPath: folder + "/missing"))
        try #require(symlink(folder, folder + "/link") == 0)
        #expect(FileStatus.isDirectory(atPath: folder + "/link"), "a link to a folder counts, as stat follows it")
    }
}
