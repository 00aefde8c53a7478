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
