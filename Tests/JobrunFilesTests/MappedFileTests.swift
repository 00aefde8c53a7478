import Foundation
import JobrunCore
import JobrunFiles
import JobrunTestSupport
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
            #expect(try file.digests([.sha256])?.map(\.hex) == ["e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"])
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

    /// Another process truncating a mapped file would raise SIGBUS on the vanished pages; the
    /// guard turns that into `hasShrunk`, the reads past the new end into zeros, and stops the
    /// chunk walk, so a verify of a mirror being rewritten reports the file instead of dying.
    @Test func aFileTruncatedWhileMappedIsReportedNotFatal() throws {
        try withTemporaryDirectory { dir in
            var random = SeededGenerator(seed: 11)
            let contents = random.bytes(3 << 20)
            let path = try writeFile(dir, "shrinking", contents)
            let file = try MappedFile(path: path)
            let other = try MappedFile(path: try writeFile(dir, "steady", contents))
            #expect(!file.hasShrunk)
            #expect(truncate(path, 1 << 20) == 0)
            var seen = 0
            var sum: UInt8 = 0
            file.forEachChunk(size: 256 << 10) { chunk in
                // Touch every page, as hashing does.
                for i in stride(from: 0, to: chunk.count, by: 4096) { sum &+= chunk[i] }
                seen += chunk.count
            }
            #expect(file.hasShrunk)
            #expect(seen < contents.count, "the walk stops at the chunk where the file ended")
            #expect(seen > 1 << 20, "the bytes before the new end were read")
            // Whatever is read now is zeros past the new end, never a fault.
            file.withUnsafeBytes { bytes in
                #expect(bytes[(1 << 20) - 1] == contents[(1 << 20) - 1])
                #expect(bytes[contents.count - 1] == 0)
            }
            #expect(try file.digests([.sha256]) == nil)
            // Another mapping is not affected.
            #expect(try other.digests([.sha256]) == [try Digest.compute(.sha256, of: contents)])
            #expect(!other.hasShrunk)
        }
    }

    /// Shrinking to a size inside a page: the rest of that page reads as zeros (no fault, as for
    /// any mapping), the pages after it are guarded.
    @Test func aFileTruncatedMidPageIsReportedToo() throws {
        try withTemporaryDirectory { dir in
            let contents = [UInt8](repeating: 0xAB, count: 200_000)
            let path = try writeFile(dir, "midpage", contents)
            let file = try MappedFile(path: path)
            #expect(truncate(path, 5_000) == 0)
            #expect(try file.digests([.md5, .sha512]) == nil, "no digests of zeros that are not the file")
            #expect(file.hasShrunk)
        }
    }
}
