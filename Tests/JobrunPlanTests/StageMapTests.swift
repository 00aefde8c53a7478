import JobrunState
import JobrunSystem
import Testing

@testable import JobrunPlan

/// Where a staged resource's files are: published paths to stage paths and back, byte for byte.
@Suite struct StageMapTests {
    static let identity = FileIdentity(device: 1, inode: 2, size: 3, mtimeNanoseconds: 4, ctimeNanoseconds: 5)

    @Test func pathsMapBothWaysOnlyBelowTheStagedFolder() {
        var map = StageMap()
        map.add(root: "mirror", dest: "dépôt", stage: ".jobrun/publish/d/next")
        #expect(map.location(of: "dépôt/a/b.bin", root: "mirror") == ".jobrun/publish/d/next/a/b.bin")
        #expect(map.location(of: "dépôt/a/b.bin", root: "other") == "dépôt/a/b.bin")
        // A sibling whose name starts the same, the folder itself, and a decomposed spelling are not below it.
        #expect(map.location(of: "dépôts/x", root: "mirror") == "dépôts/x")
        #expect(map.location(of: "dépôt", root: "mirror") == "dépôt")
        #expect(map.location(of: "de\u{301}pôt/x", root: "mirror") == "de\u{301}pôt/x")
        #expect(map.publishedPath(of: ".jobrun/publish/d/next/a/b.bin", root: "mirror") == "dépôt/a/b.bin")
        #expect(map.publishedPath(of: ".jobrun/publish/d/nextx/a", root: "mirror") == nil)
        #expect(map.stage(of: "dépôt", root: "mirror") == ".jobrun/publish/d/next")
    }

    @Test func recordsAreSeenAsThePublishedFolderWouldHaveThem() {
        var map = StageMap()
        map.add(root: "mirror", dest: "site", stage: ".jobrun/publish/site/next")
        let records = ["site/old.bin", ".jobrun/publish/site/next/new.bin", "other/x.bin"].map {
            StateStore.RecordedFile(path: $0, resource: "site", wasFetched: true, file: Self.identity)
        }
        #expect(map.published(records, root: "mirror").map(\.path) == ["site/new.bin", "other/x.bin"])
        #expect(map.published(records, root: "elsewhere").map(\.path) == records.map(\.path))
    }
}
