import Foundation
import JobrunCore
import JobrunVerify
import Testing

struct MappedFileTests {
    @Test func emptyFileIsNotMapped() throws {
        try withTemporaryDirectory { dir in
            let path = try writeFile(dir, "empty", [])
            let file = try MappedFile(path: path)
            #expect(file.count == 0)
            file.withUnsafeBytes { #expect($0.isEmpty) }
            var calls = 0
            file.forEachChunk { _ in calls += 1 }
            #expect(calls == 0)
            #expect(try file.digests([.sha256]).map(\.hex) == ["e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"])
        }
    }

    @Test func chunksCoverTheFileInOrder() throws {
        try withTemporaryDirectory { dir in
            var random = SeededGenerator(seed: 7)
            let contents = random.bytes(5 * 65_536 + 1_000)
            let path = try writeFile(dir, "data", contents)
            let file = try MappedFile(path: path)
            #expect(file.count == contents.count)
            file.withUnsafeBytes { #expect(Array($0) == contents) }
            var seen: [UInt8] = []
            var sizes: [Int] = []
            file.forEachChunk(size: 65_536) { chunk in
                sizes.append(chunk.count)
                seen.append(contentsOf: chunk)
            }
            #expect(seen == contents)
            #expect(sizes == [65_536, 65_536, 65_536, 65_536, 65_536, 1_000])
            // Pages released behind the cursor are read back from the page cache.
            #expect(try file.digests([.md5, .sha1]) == [try Digest.compute(.md5, of: contents), try Digest.compute(.sha1, of: contents)])
        }
    }

    @Test func refusesWhatIsNotARegularFile() throws {
        try withTemporaryDirectory { dir in
            #expect(throws: FileIOError.self) { try MappedFile(path: dir) }
            do {
                _ = try MappedFile(path: dir + "/absent")
                Issue.record("expected an error")
            } catch let error as FileIOError {
                #expect(error.code == ENOENT)
                #expect(error.operation == "open")
            } catch {
                Issue.record("unexpected \(error)")
            }
        }
    }
}
