import JobrunCore
import JobrunSystem
import JobrunTestSupport
import Testing
@testable import JobrunFiles

/// The file-system steps of an atomic publication: a stage of hard links, one exchange, the
/// replaced version retired and expired; never a write through a link.
@Suite struct StageFolderTests {
    @Test func aStageSharesEveryFileByLinkAndNoWorkingFile() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let root = try dir.makeDirectory("mirror")
        _ = try dir.write(file: "mirror/site/a.bin", contents: "a")
        _ = try dir.write(file: "mirror/site/deep/b.bin", contents: "b")
        _ = try dir.write(file: "mirror/site/.c.bin.jobrun-part", contents: "partial")
        #expect(symlink("a.bin", dir.path("mirror/site/link")) == 0)
        let stage = StageFolder.stage(of: "site")
        #expect(stage == ".jobrun/publish/site/next")
        let inode = try StageFolder.create(root: root, stage: stage).get()
        let filled = try StageFolder.fill(root: root, published: "site", stage: stage).get()
        #expect(filled.inode == inode && StageFolder.inode(ofFolder: stage, root: root) == inode)
        #expect(filled.linked.map(\.path).sorted() == ["a.bin", "deep/b.bin"])
        let a = try FileIdentity.ofFile(atPath: dir.path("mirror/site/a.bin"))
        #expect(try FileIdentity.ofFile(atPath: dir.path("mirror/\(stage)/a.bin")).inode == a.inode)
        #expect(filled.linked.first { $0.path == "a.bin" }?.after == a)
        #expect(dir.contents(of: "mirror/\(stage)/deep/b.bin") == "b")
        // The partial download moved to the stage, where the run resumes it.
        #expect(dir.contents(of: "mirror/\(stage)/.c.bin.jobrun-part") == "partial" && !dir.exists("mirror/site/.c.bin.jobrun-part"))
        var target = [CChar](repeating: 0, count: 64)
        #expect(readlink(dir.path("mirror/\(stage)/link"), &target, 63) == 5)
        // Filled again (an interrupted fill): what is there stays, nothing is linked twice.
        #expect(try StageFolder.fill(root: root, published: "site", stage: stage).get().linked.isEmpty)
        // Removing the stage says which files the published version shares: their change time moved.
        let removal = StageFolder.discard(root: root, id: "site")
        #expect(removal.isComplete && removal.removed == ["next"] && removal.shared.contains(a.inode) && !dir.exists("mirror/\(stage)"))
        #expect(try FileIdentity.ofFile(atPath: dir.path("mirror/site/a.bin")).isSameWrite(as: a))
    }

    @Test func aSecondRetirementInTheSameSecondGetsANameOfItsOwn() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let root = try dir.makeDirectory("mirror")
        let stage = StageFolder.stage(of: "site")
        for k in 1...2 {
            _ = try StageFolder.create(root: root, stage: stage).get()
            _ = try dir.write(file: "mirror/\(stage)/v\(k)", contents: "\(k)")
            #expect(try StageFolder.retire(root: root, id: "site", as: "20261129T090000Z-R").get() == (k == 1 ? "20261129T090000Z-R" : "20261129T090000Z-R-2"))
        }
        #expect(dir.contents(of: "mirror/.jobrun/publish/site/20261129T090000Z-R/v1") == "1")
        #expect(dir.contents(of: "mirror/.jobrun/publish/site/20261129T090000Z-R-2/v2") == "2")
    }

    @Test func readOnlyFoldersAreStagedWhole() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let root = try dir.makeDirectory("mirror")
        _ = try dir.write(file: "mirror/site/locked/a.bin", contents: "a")
        _ = try dir.write(file: "mirror/site/sealed/b.bin", contents: "b")
        #expect(chmod(dir.path("mirror/site/locked"), 0o555) == 0 && chmod(dir.path("mirror/site/sealed"), 0o500) == 0)
        defer { _ = chmod(dir.path("mirror/site/locked"), 0o755) }
        let stage = StageFolder.stage(of: "site")
        let filled = try StageFolder.fill(root: root, published: "site", stage: stage).get()
        #expect(filled.linked.map(\.path).sorted() == ["locked/a.bin", "sealed/b.bin"])
        var status = stat()
        #expect(stat(dir.path("mirror/\(stage)/locked"), &status) == 0 && status.st_mode & 0o7777 == 0o555)
        // A stage of read-only folders (and a replaced version) is removed all the same.
        let removal = StageFolder.discard(root: root, id: "site")
        #expect(removal.isComplete && !dir.exists("mirror/\(stage)"), "\(removal)")
    }

    @Test func aFolderThatHoldsAnotherRootsStateIsNotStagedAndModesAreKept() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let root = try dir.makeDirectory("mirror")
        _ = try dir.write(file: "mirror/site/private/a.bin", contents: "a")
        #expect(chmod(dir.path("mirror/site"), 0o750) == 0 && chmod(dir.path("mirror/site/private"), 0o700) == 0)
        let stage = StageFolder.stage(of: "site")
        _ = try StageFolder.fill(root: root, published: "site", stage: stage).get()
        var status = stat()
        #expect(stat(dir.path("mirror/\(stage)"), &status) == 0 && status.st_mode & 0o7777 == 0o750)
        #expect(stat(dir.path("mirror/\(stage)/private"), &status) == 0 && status.st_mode & 0o7777 == 0o700)
        _ = try dir.write(file: "mirror/site/nested/.jobrun/state.sqlite", contents: "another root's")
        guard case .failure(let error) = StageFolder.fill(root: root, published: "site", stage: stage) else {
            Issue.record("a folder holding another root's mirror state was staged")
            return
        }
        #expect(error.path.hasSuffix("mirror/site/nested/.jobrun"), "\(error)")
    }

    @Test func theSwitchExchangesTheFoldersAndTheReplacedVersionIsRetiredThenExpired() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let root = try dir.makeDirectory("mirror")
        let stage = StageFolder.stage(of: "site")
        // No published folder yet: the stage becomes it, its parents made.
        _ = try StageFolder.create(root: root, stage: stage).get()
        _ = try dir.write(file: "mirror/\(stage)/a.bin", contents: "v1")
        #expect(try StageFolder.switchIn(root: root, stage: stage, published: "deep/site").get() == .moved)
        #expect(dir.contents(of: "mirror/deep/site/a.bin") == "v1" && !dir.exists("mirror/\(stage)"))

        let inode = try StageFolder.create(root: root, stage: stage).get()
        _ = try StageFolder.fill(root: root, published: "deep/site", stage: stage).get()
        #expect(unlink(dir.path("mirror/\(stage)/a.bin")) == 0)
        _ = try dir.write(file: "mirror/\(stage)/a.bin", contents: "v2")
        // A reader holding the published folder open keeps reading its version.
        let reader = open(dir.path("mirror/deep/site"), O_RDONLY | O_DIRECTORY)
        defer { close(reader) }
        #expect(try StageFolder.switchIn(root: root, stage: stage, published: "deep/site").get() == .exchanged)
        #expect(dir.contents(of: "mirror/deep/site/a.bin") == "v2" && StageFolder.inode(ofFolder: "deep/site", root: root) == inode)
        let file = openat(reader, "a.bin", O_RDONLY)
        var bytes = [UInt8](repeating: 0, count: 8)
        #expect(file >= 0 && read(file, &bytes, 8) == 2 && Array(bytes.prefix(2)) == Array("v1".utf8))
        close(file)
        #expect(dir.contents(of: "mirror/\(stage)/a.bin") == "v1")

        let name = Trash.folderName(atMilliseconds: 1_000_000, runID: "R")
        #expect(try StageFolder.retire(root: root, id: "site", as: name).get() == name)
        #expect(dir.contents(of: "mirror/.jobrun/publish/site/\(name)/a.bin") == "v1" && !dir.exists("mirror/\(stage)"))
        #expect(StageFolder.expire(root: root, id: "site", keptFor: 60_000, now: 1_059_000).removed.isEmpty)
        // The published version shares no file with it here (a.bin was replaced): no shared inode.
        let expired = StageFolder.expire(root: root, id: "site", keptFor: 60_000, now: 1_060_000)
        #expect(expired.removed == [name] && expired.isComplete && expired.shared.isEmpty)
        #expect(!dir.exists("mirror/.jobrun/publish/site/\(name)") && dir.contents(of: "mirror/deep/site/a.bin") == "v2")
    }

    @Test func nothingGoesThroughALink() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let root = try dir.makeDirectory("mirror")
        _ = try dir.write(file: "outside/secret", contents: "s")
        #expect(symlink(dir.path("outside"), dir.path("mirror/site")) == 0)
        let stage = StageFolder.stage(of: "site")
        _ = try StageFolder.create(root: root, stage: stage).get()
        // The published folder is a link: refused, nothing of what it points to is linked.
        guard case .failure(let error) = StageFolder.fill(root: root, published: "site", stage: stage) else {
            Issue.record("a published folder that is a link was filled from")
            return
        }
        #expect(error.code == ELOOP || error.code == ENOTDIR)
        #expect(!dir.exists("mirror/\(stage)/secret"))
        // A stage whose parent is a link is neither made nor removed through it.
        _ = try dir.makeDirectory("elsewhere/next")
        _ = try dir.write(file: "elsewhere/next/keep", contents: "k")
        _ = try dir.makeDirectory("mirror/.jobrun/publish")
        #expect(symlink(dir.path("elsewhere"), dir.path("mirror/.jobrun/publish/other")) == 0)
        #expect((try? StageFolder.create(root: root, stage: StageFolder.stage(of: "other")).get()) == nil)
        #expect(StageFolder.discard(root: root, id: "other").removed.isEmpty && dir.exists("elsewhere/next/keep"))
        #expect(StageFolder.expire(root: root, id: "other", keptFor: 0, now: .max).removed.isEmpty)
    }
}
