import JobrunCore
import JobrunSystem
import JobrunTestSupport
import Testing
@testable import JobrunState

/// Schema 6: the journal of atomic publications, and the records that follow a stage.
@Suite struct PublicationStateTests {
    static func proven(_ path: String, inode: UInt64, ctime: Int64 = 5, resource: String = "site") -> ProvenSlice {
        ProvenSlice(
            path: path, resource: resource, digests: [],
            file: FileIdentity(device: 1, inode: inode, size: 10, mtimeNanoseconds: 4, ctimeNanoseconds: ctime),
            seenAtNanoseconds: 1_000_000_000_000, settled: true, provenAtMilliseconds: 1_000, fetchedAtMilliseconds: 1_000)
    }

    @Test func aStageIsRememberedUntilItsPublicationIsFinished() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let store = try StateStore(root: try dir.makeDirectory("mirror"))
        #expect(try store.stages().isEmpty)
        let stage = StateStore.Stage(resource: "site", dest: "site", inode: 42, isFilled: false)
        try store.remember(stage)
        #expect(try store.stages() == ["site": stage])
        try store.remember(StateStore.Stage(resource: "site", dest: "other", inode: 43, isFilled: false))
        #expect(try store.stages()["site"]?.dest == "other")
        try store.finishPublication(of: "site", dest: "other", stage: ".jobrun/publish/site/next")
        #expect(try store.stages().isEmpty)
    }

    @Test func linkedFilesTakeTheirNewChangeTimeAndTheirRecordsGoWithTheStage() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let store = try StateStore(root: try dir.makeDirectory("mirror"))
        let stage = ".jobrun/publish/site/next"
        // a: linked as recorded; b: changed before its link (another mtime); others: outside the folder.
        try store.record([
            Self.proven("site/a", inode: 1), Self.proven("site/sub/b", inode: 2), Self.proven("sites/c", inode: 3, resource: "x"),
            Self.proven("site0", inode: 4, resource: "x"),
        ])
        try store.remember(StateStore.Stage(resource: "site", dest: "site", inode: 9, isFilled: false))
        let a = FileIdentity(device: 1, inode: 1, size: 10, mtimeNanoseconds: 4, ctimeNanoseconds: 5)
        var aLinked = a
        aLinked.ctimeNanoseconds = 77
        let bBefore = FileIdentity(device: 1, inode: 2, size: 10, mtimeNanoseconds: 8, ctimeNanoseconds: 5)
        var bLinked = bBefore
        bLinked.ctimeNanoseconds = 78
        try store.adoptLinks(
            [StateStore.StageLink(path: "a", before: a, after: aLinked), StateStore.StageLink(path: "sub/b", before: bBefore, after: bLinked)],
            of: "site", dest: "site", stage: stage)
        let files = try store.provenFiles()
        #expect(files["site/a"]?.file.ctimeNanoseconds == 77 && files["\(stage)/a"]?.file.ctimeNanoseconds == 77)
        #expect(files["site/a"]?.fetchedAtMilliseconds == 1_000 && files["\(stage)/a"]?.isSettled == true)
        // Not the file recorded: its record stays as it was, a stale one in both places.
        #expect(files["site/sub/b"]?.file.ctimeNanoseconds == 5 && files["\(stage)/sub/b"]?.file.ctimeNanoseconds == 5)
        #expect(files["\(stage)s/c"] == nil && files[stage + "0"] == nil && files.count == 6)
        #expect(try store.stages()["site"]?.isFilled == true)

        // The run replaced a in the stage and added d; then the switch.
        try store.record([Self.proven("\(stage)/a", inode: 11), Self.proven("\(stage)/d", inode: 12)])
        try store.finishPublication(of: "site", dest: "site", stage: stage)
        let after = try store.provenFiles()
        #expect(Set(after.keys) == ["site/a", "site/sub/b", "site/d", "sites/c", "site0"])
        #expect(after["site/a"]?.file.inode == 11 && after["site/d"]?.file.inode == 12 && after["sites/c"]?.file.inode == 3)
        #expect(try store.stages().isEmpty)
    }

    @Test func aFolderNamedBeyondASCIIKeepsItsPaths() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let store = try StateStore(root: try dir.makeDirectory("mirror"))
        let stage = ".jobrun/publish/d/next"
        try store.record([Self.proven("dépôt/ü.bin", inode: 1)])
        try store.remember(StateStore.Stage(resource: "site", dest: "dépôt", inode: 9, isFilled: false))
        try store.adoptLinks([], of: "site", dest: "dépôt", stage: stage)
        #expect(try Set(store.provenFiles().keys) == ["dépôt/ü.bin", "\(stage)/ü.bin"])
        #expect(try store.identities(under: "dépôt").keys.sorted() == ["ü.bin"])
        try store.finishPublication(of: "site", dest: "dépôt", stage: stage)
        #expect(try Set(store.provenFiles().keys) == ["dépôt/ü.bin"])
    }

    @Test func aRemovedLinkMovesOnlyTheChangeTimeOfTheSameWrite() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let store = try StateStore(root: try dir.makeDirectory("mirror"))
        try store.record([Self.proven("site/a", inode: 1), Self.proven("site/b", inode: 2)])
        let a = FileIdentity(device: 1, inode: 1, size: 10, mtimeNanoseconds: 4, ctimeNanoseconds: 5)
        var aNow = a
        aNow.ctimeNanoseconds = 90
        var bNow = FileIdentity(device: 1, inode: 2, size: 10, mtimeNanoseconds: 4, ctimeNanoseconds: 5)
        bNow.mtimeNanoseconds = 91  // written since: its record must not be renewed
        bNow.ctimeNanoseconds = 91
        try store.retime(
            [
                StateStore.StageLink(path: "a", before: a, after: aNow),
                StateStore.StageLink(path: "b", before: FileIdentity(device: 1, inode: 2, size: 10, mtimeNanoseconds: 4, ctimeNanoseconds: 5), after: bNow),
            ], dest: "site")
        let files = try store.provenFiles()
        #expect(files["site/a"]?.file == aNow && files["site/b"]?.file.ctimeNanoseconds == 5)
    }

    @Test func aDiscardedStageTakesItsRecordsWithIt() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let store = try StateStore(root: try dir.makeDirectory("mirror"))
        let stage = ".jobrun/publish/site/next"
        try store.record([Self.proven("site/a", inode: 1), Self.proven("\(stage)/a", inode: 1)])
        try store.remember(StateStore.Stage(resource: "site", dest: "site", inode: 9, isFilled: true))
        try store.forgetStage(of: "site", stage: stage)
        #expect(try Set(store.provenFiles().keys) == ["site/a"] && store.stages().isEmpty)
    }
}
