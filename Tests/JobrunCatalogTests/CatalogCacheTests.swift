import JobrunCore
import JobrunManifest
import JobrunTestSupport
import Testing

@testable import JobrunCatalog

/// The copy of a catalog kept from the last run, and what changed between two versions.
@Suite struct CatalogCacheTests {
    @Test func aCopyIsKeptAndReadBackOnlyWholeAndForItsURL() throws {
        let root = try TemporaryDirectory()
        defer { root.remove() }
        let cache = CatalogCache(root: root.path, resourceID: "rel")
        let copy = CatalogCache.Copy(
            url: "https://e.com/SUMS", signatureURL: "https://e.com/SUMS.sig", validators: OriginValidators(etag: "\"v1\"", lastModified: nil),
            catalog: Array("list\n".utf8), signature: Array("sig\n".utf8))
        try cache.write(copy)
        let read = try #require(cache.read(url: "https://e.com/SUMS"))
        #expect(read.catalog == copy.catalog && read.signature == copy.signature && read.validators?.etag == "\"v1\"")
        #expect(read.signatureURL == "https://e.com/SUMS.sig")
        #expect(cache.read(url: "https://e.com/OTHER") == nil, "a copy of another URL was taken")
        // A catalog that is not the one recorded (changed on disk, or a write cut short) is no copy.
        try root.write(file: ".jobrun/catalogs/rel/catalog", contents: "changed\n")
        #expect(cache.read(url: "https://e.com/SUMS") == nil)
    }

    @Test func theSlicesOfACopyAreKeptUnderTheirKey() throws {
        let root = try TemporaryDirectory()
        defer { root.remove() }
        let cache = CatalogCache(root: root.path, resourceID: "rel")
        try cache.write(CatalogCache.Copy(url: "https://e.com/M", signatureURL: nil, validators: nil, catalog: [1], signature: nil))
        let at = SourceLocation(file: "https://e.com/M", line: 7, column: 1)
        let digest = Digest(algorithm: .sha256, bytes: Array(repeating: 0xAB, count: 32))
        let slices = [
            Slice(path: "dir/a file.bin", urls: ["https://a.example/x", "https://b.example/x?t=1"], size: 12, digests: [digest], location: at),
            Slice(path: "b", location: at),
        ]
        try cache.writeSlices(slices, key: "k1")
        let read = try #require(cache.readSlices(key: "k1", file: "https://e.com/M"))
        #expect(read.map(\.path) == ["dir/a file.bin", "b"] && read[0].urls == slices[0].urls && read[0].size == 12 && read[0].digests == [digest])
        #expect(read[1].urls.isEmpty && read[1].size == nil && read[1].digests.isEmpty && read[0].location == at)
        #expect(cache.readSlices(key: "k2", file: "f") == nil, "slices kept under another key were used")
        // Cut short: not used.
        let whole = root.bytes(of: ".jobrun/catalogs/rel/slices") ?? []
        try root.write(file: ".jobrun/catalogs/rel/slices", bytes: Array(whole.dropLast(8)))
        #expect(cache.readSlices(key: "k1", file: "f") == nil)
    }

    @Test func changesCountNewRemovedAndChangedPaths() {
        let at = SourceLocation(file: "f", line: 1, column: 1)
        let before = [Slice(path: "a", size: 1, location: at), Slice(path: "b", size: 2, location: at), Slice(path: "c", size: 3, location: at)]
        let after = [Slice(path: "a", size: 1, location: at), Slice(path: "b", size: 5, location: at), Slice(path: "d", size: 3, location: at)]
        #expect(CatalogChanges.between(before, after) == CatalogReport.Changes(added: 1, removed: 1, changed: 1))
        #expect(CatalogChanges.between(before, before).isEmpty)
    }
}
