import Foundation
import JobrunCore
@testable import JobrunFiles
import JobrunTestSupport
import Testing

struct CheckAllTests {
    let checker = FileChecker()

    /// A tree with every outcome, listed in an interleaved order, checked at several widths:
    /// results come back in input order and equal the one-by-one answers.
    @Test(arguments: [1, 2, 3, 8])
    func resultsKeepInputOrder(parallelism: Int) throws {
        try withTemporaryDirectory { root in
            var random = SeededGenerator(seed: 2024)
            var expectations: [FileExpectation] = []
            var expected: [FileCheck] = []
            for index in 0..<600 {
                let directory = "lessons/\(index % 7)/raw"
                let path = "\(directory)/s\(index).ts"
                let contents = random.bytes(Int.random(in: 0...5_000, using: &random))
                let sha = try Digest.compute(.sha256, of: contents)
                switch index % 5 {
                case 0:
                    expectations.append(FileExpectation(root: root, relativePath: path))
                    expected.append(.missing)
                case 1:
                    try writeFile(root, path, contents)
                    expectations.append(FileExpectation(root: root, relativePath: path, size: Int64(contents.count), digests: [sha]))
                    expected.append(.ok(size: Int64(contents.count), digests: [sha]))
                case 2:
                    try writeFile(root, path, contents)
                    expectations.append(FileExpectation(root: root, relativePath: path, size: Int64(contents.count) + 1, digests: [sha]))
                    expected.append(.sizeMismatch(expected: Int64(contents.count) + 1, actual: Int64(contents.count)))
                case 3:
                    try writeFile(root, path, contents + [1])
                    let actual = try Digest.compute(.sha256, of: contents + [1])
                    expectations.append(FileExpectation(root: root, relativePath: path, digests: [sha]))
                    expected.append(.digestMismatch(expected: sha, actual: [actual], size: Int64(contents.count) + 1))
                default:
                    // Whole missing directories, in and out of the middle of the list.
                    let missing = "gone/\(index % 3)/s\(index).ts"
                    expectations.append(FileExpectation(root: root, relativePath: missing, size: 1))
                    expected.append(.missing)
                }
            }
            let results = checker.checkAll(expectations, parallelism: parallelism)
            #expect(results.count == expectations.count)
            #expect(results == expected)
            #expect(results == expectations.map { checker.check($0) })
        }
    }

    @Test func emptyBatch() {
        #expect(checker.checkAll([]).isEmpty)
    }

    /// An empty output root: every file reports missing, and whole missing directories are
    /// answered from memory — the walk that failed at `lessons` is not repeated for each of the
    /// 200 directories beneath it (at most once more per worker that checked the memory before
    /// the first record landed; see `DirectoryFailures.recordCount`).
    @Test(arguments: [1, 2])
    func missingDirectoriesAreAnsweredFromMemory(parallelism: Int) throws {
        try withTemporaryDirectory { root in
            var expectations: [FileExpectation] = []
            let sha256 = digest(.sha256, String(repeating: "a", count: 64))
            for directory in 0..<200 {
                for file in 0..<250 {
                    expectations.append(
                        FileExpectation(
                            root: root, relativePath: "lessons/l\(directory)/raw/ts/\(file).ts", size: 65_536, digests: [sha256]))
                }
            }
            let failures = DirectoryFailures()
            let results = checker.checkAll(expectations, parallelism: parallelism, failures: failures)
            #expect(results.count == 50_000)
            #expect(results.allSatisfy { $0 == .missing })
            #expect(failures.recordCount >= 1 && failures.recordCount <= parallelism, "\(failures.recordCount) failed walks")
        }
    }

    @Test func failuresAreScopedToTheirRootAndDirectory() throws {
        try withTemporaryDirectory { dir in
            let full = dir + "/full"
            let empty = dir + "/empty"
            try writeFile(full, "a/x", [1])
            try makeDirectory(empty, "")
            try writeFile(full, "elsewhere/y", [2])
            try makeSymlink(full, "linked", to: full + "/elsewhere")
            let results = checker.checkAll(
                [
                    FileExpectation(root: empty, relativePath: "a/x"),
                    FileExpectation(root: full, relativePath: "a/x"),
                    FileExpectation(root: empty, relativePath: "a/x"),
                    FileExpectation(root: full, relativePath: "linked/y"),
                    FileExpectation(root: full, relativePath: "linked/deeper/z"),
                    FileExpectation(root: full, relativePath: "elsewhere/y"),
                    FileExpectation(root: dir + "/absent", relativePath: "a/x"),
                ], parallelism: 2)
            let link = FileCheck.notRegularFile(path: full + "/linked", kind: "symbolic link", needed: .folder)
            #expect(results == [.missing, .ok(size: 1, digests: []), .missing, link, link, .ok(size: 1, digests: []), .missing])
        }
    }
}
