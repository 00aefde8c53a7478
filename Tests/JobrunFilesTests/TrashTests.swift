import JobrunCore
import JobrunSystem
import JobrunTestSupport
import Testing
@testable import JobrunFiles

/// The trash a prune moves files to: renamed below `.jobrun/trash/STAMP-RUNID`, never through a
/// link, and removed once older than its keeping time.
@Suite struct TrashTests {
    @Test func aFolderNameSaysWhenItWasMade() {
        let ms: Int64 = 1_764_398_700_123  // 2025-11-29T06:45:00.123Z
        let name = Trash.folderName(atMilliseconds: ms, runID: "01JD/../x")
        #expect(name == "20251129T064500Z-01JD..x")
        #expect(Trash.madeAt(folderName: name) == 1_764_398_700_000)
        #expect(Trash.madeAt(folderName: "20251129T064500Z") == 1_764_398_700_000)
        for other in ["notes", "2025-11-29", "20251329T064500Z-x", "20251129X064500Z-x", ""] { #expect(Trash.madeAt(folderName: other) == nil, "\(other)") }
    }

    @Test func filesAreRenamedWithTheirPartialDownloadAndNeverThroughALink() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let root = try dir.makeDirectory("mirror")
        _ = try dir.write(file: "mirror/r/a.bin", contents: "a")
        _ = try dir.write(file: "mirror/r/.a.bin.jobrun-part", contents: "a-part")
        _ = try dir.write(file: "mirror/r/deep/b.bin", contents: "b")
        _ = try dir.makeDirectory("mirror/r/folder.bin")
        _ = try dir.write(file: "outside/secret", contents: "s")
        #expect(symlink(dir.path("outside"), dir.path("mirror/r/linked")) == 0)
        #expect(symlink(dir.path("outside/secret"), dir.path("mirror/r/link.bin")) == 0)
        let inode = try FileIdentity.ofFile(atPath: dir.path("mirror/r/a.bin")).inode
        #expect(Trash.obstacles(to: ["r/a.bin", "r/deep/b.bin", "r/gone.bin", "r/link.bin"], root: root).isEmpty)
        #expect(Trash.obstacles(to: ["r/folder.bin", "r/linked/secret"], root: root).count == 2)
        let (folder, moved) = Trash.move(["r/a.bin", "r/deep/b.bin", "r/gone.bin", "r/folder.bin", "r/linked/secret", "r/link.bin"], root: root, into: "T")
        #expect(folder == "T")
        #expect(moved[0] == .moved(trashPath: ".jobrun/trash/T/r/a.bin") && moved[1] == .moved(trashPath: ".jobrun/trash/T/r/deep/b.bin"))
        #expect(moved[2] == .gone)
        guard case .failed(let folder) = moved[3], case .failed(let through) = moved[4] else {
            Issue.record("a folder and a path through a link are refused: \(moved)")
            return
        }
        #expect(folder.code == EISDIR && through.code == ELOOP || through.code == ENOTDIR, "\(folder) \(through)")
        // A link is a file of its own: it goes, what it points at stays.
        #expect(moved[5] == .moved(trashPath: ".jobrun/trash/T/r/link.bin"))
        #expect(dir.contents(of: "outside/secret") == "s")
        #expect(dir.contents(of: "mirror/.jobrun/trash/T/r/a.bin") == "a" && dir.contents(of: "mirror/.jobrun/trash/T/r/.a.bin.jobrun-part") == "a-part")
        #expect(try FileIdentity.ofFile(atPath: dir.path("mirror/.jobrun/trash/T/r/a.bin")).inode == inode)
        #expect(!dir.exists("mirror/r/a.bin") && !dir.exists("mirror/r/.a.bin.jobrun-part") && dir.exists("mirror/r/folder.bin"))
        // A second run of the same name (the same second, the same run id) gets a folder of its own.
        _ = try dir.write(file: "mirror/r/a.bin", contents: "a2")
        let (second, again) = Trash.move(["r/a.bin"], root: root, into: "T")
        #expect(second == "T-2" && again == [.moved(trashPath: ".jobrun/trash/T-2/r/a.bin")])
        #expect(dir.contents(of: "mirror/.jobrun/trash/T/r/a.bin") == "a" && dir.contents(of: "mirror/.jobrun/trash/T-2/r/a.bin") == "a2")
    }

    @Test func aLinkInPlaceOfTheTrashIsNotFollowed() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let root = try dir.makeDirectory("mirror")
        _ = try dir.write(file: "mirror/a.bin", contents: "a")
        _ = try dir.makeDirectory("mirror/.jobrun")
        _ = try dir.makeDirectory("elsewhere")
        #expect(symlink(dir.path("elsewhere"), dir.path("mirror/.jobrun/trash")) == 0)
        guard case .failed = Trash.move(["a.bin"], root: root, into: "T").moved.first else {
            Issue.record("moved through a link")
            return
        }
        #expect(dir.contents(of: "mirror/a.bin") == "a" && DirectoryTree.entries(under: dir.path("elsewhere")).isEmpty)
    }

    @Test func foldersOlderThanTheKeepingTimeAreRemoved() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let root = try dir.makeDirectory("mirror")
        let day: Int64 = 86_400_000
        let now: Int64 = 1_764_398_700_000
        let old = Trash.folderName(atMilliseconds: now - 8 * day, runID: "old")
        let young = Trash.folderName(atMilliseconds: now - day, runID: "young")
        for name in [old, young, "notes"] { _ = try dir.write(file: "mirror/.jobrun/trash/\(name)/r/a.bin", contents: "x") }
        #expect(Trash.expire(root: root, keptFor: 7 * day, now: now) == [old])
        #expect(!dir.exists("mirror/.jobrun/trash/\(old)") && dir.exists("mirror/.jobrun/trash/\(young)/r/a.bin") && dir.exists("mirror/.jobrun/trash/notes"))
        #expect(Trash.expire(root: root, keptFor: 0, now: now) == [young])
        #expect(Trash.expire(root: dir.path("no-root"), keptFor: 0, now: now).isEmpty)
        // A link in place of the trash is not followed.
        let elsewhere = try dir.makeDirectory("elsewhere/\(old)")
        TreeRemoval.remove(dir.path("mirror/.jobrun/trash"))
        #expect(symlink(dir.path("elsewhere"), dir.path("mirror/.jobrun/trash")) == 0)
        #expect(Trash.expire(root: root, keptFor: 0, now: now).isEmpty && dir.exists("elsewhere/\(old)"), "\(elsewhere)")
    }
}
