import Foundation
import JobrunCore
import JobrunFiles
import JobrunTestSupport
import Testing

struct FileCheckerTests {
    let checker = FileChecker()
    static let abc = Array("abc".utf8)
    static let abcMD5 = digest(.md5, "900150983cd24fb0d6963f7d28e17f72")
    static let abcSHA256 = digest(.sha256, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    static let emptySHA256 = digest(.sha256, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")

    func expectation(_ root: String, _ path: String, size: Int64? = nil, _ digests: Digest...) -> FileExpectation {
        FileExpectation(root: root, relativePath: path, size: size, digests: digests)
    }

    @Test func okReturnsComputedDigestsInAlgorithmOrder() throws {
        try withTemporaryDirectory { root in
            try writeFile(root, "lessons/a/raw/ts/x.ts", Self.abc)
            let result = checker.check(expectation(root, "lessons/a/raw/ts/x.ts", size: 3, Self.abcSHA256, Self.abcMD5))
            #expect(result == .ok(size: 3, digests: [Self.abcMD5, Self.abcSHA256]))
        }
    }

    @Test func okAfterStatWhenNothingIsExpected() throws {
        try withTemporaryDirectory { root in
            try writeFile(root, "top.bin", Self.abc)
            #expect(checker.check(expectation(root, "top.bin")) == .ok(size: 3, digests: []))
            #expect(checker.check(expectation(root, "top.bin", size: 3)) == .ok(size: 3, digests: []))
        }
    }

    @Test func emptyFileWithDigest() throws {
        try withTemporaryDirectory { root in
            try writeFile(root, "d/empty", [])
            #expect(
                checker.check(expectation(root, "d/empty", size: 0, Self.emptySHA256))
                    == .ok(size: 0, digests: [Self.emptySHA256]))
        }
    }

    @Test func largeFileIsHashedThroughTheMapping() throws {
        try withTemporaryDirectory { root in
            var random = SeededGenerator(seed: 99)
            let contents = random.bytes(3 << 20 + 17)  // above the 1 MiB read-buffer threshold
            try writeFile(root, "big/blob", contents)
            let sha1 = try Digest.compute(.sha1, of: contents)
            let sha512 = try Digest.compute(.sha512, of: contents)
            #expect(
                checker.check(expectation(root, "big/blob", size: Int64(contents.count), sha512, sha1))
                    == .ok(size: Int64(contents.count), digests: [sha1, sha512]))
            var wrong = sha512
            wrong.bytes[0] ^= 1
            #expect(
                checker.check(expectation(root, "big/blob", wrong))
                    == .digestMismatch(expected: wrong, actual: [sha512], size: Int64(contents.count)))
        }
    }

    @Test func missingFileDirectoryAndRoot() throws {
        try withTemporaryDirectory { root in
            try makeDirectory(root, "lessons/a")
            #expect(checker.check(expectation(root, "lessons/a/x.ts", size: 3, Self.abcMD5)) == .missing)
            #expect(checker.check(expectation(root, "lessons/b/raw/x.ts")) == .missing)
            #expect(checker.check(expectation(root + "/nope", "x.ts")) == .missing)
        }
    }

    @Test func sizeMismatchIsReportedBeforeHashing() throws {
        try withTemporaryDirectory { root in
            try writeFile(root, "a/x", Self.abc)
            #expect(checker.check(expectation(root, "a/x", size: 4, Self.abcMD5)) == .sizeMismatch(expected: 4, actual: 3))
        }
    }

    /// The first mismatch in algorithm order, and the file's digest for every declared algorithm.
    @Test func firstDigestMismatchInAlgorithmOrder() throws {
        try withTemporaryDirectory { root in
            try writeFile(root, "a/x", Self.abc)
            let badMD5 = digest(.md5, String(repeating: "0", count: 32))
            let badSHA256 = digest(.sha256, String(repeating: "1", count: 64))
            // Listed sha256 first; md5 comes first in algorithm order.
            #expect(
                checker.check(expectation(root, "a/x", size: 3, badSHA256, badMD5))
                    == .digestMismatch(expected: badMD5, actual: [Self.abcMD5, Self.abcSHA256], size: 3))
            #expect(
                checker.check(expectation(root, "a/x", badSHA256, Self.abcMD5))
                    == .digestMismatch(expected: badSHA256, actual: [Self.abcMD5, Self.abcSHA256], size: 3))
        }
    }

    @Test func symlinkedFileIsNotFollowed() throws {
        try withTemporaryDirectory { root in
            try writeFile(root, "a/real", Self.abc)
            try makeSymlink(root, "a/link", to: "real")
            try makeSymlink(root, "a/dangling", to: "nowhere")
            #expect(
                checker.check(expectation(root, "a/link", size: 3, Self.abcMD5))
                    == .notRegularFile(path: root + "/a/link", kind: "symbolic link"))
            #expect(
                checker.check(expectation(root, "a/dangling"))
                    == .notRegularFile(path: root + "/a/dangling", kind: "symbolic link"))
        }
    }

    @Test func symlinkedParentDirectoryIsNotFollowed() throws {
        try withTemporaryDirectory { root in
            try writeFile(root, "elsewhere/raw/x.ts", Self.abc)
            try makeDirectory(root, "lessons")
            try makeSymlink(root, "lessons/a", to: root + "/elsewhere")
            let bad = FileCheck.notRegularFile(path: root + "/lessons/a", kind: "symbolic link", needed: .folder)
            #expect(checker.check(expectation(root, "lessons/a/raw/x.ts", size: 3, Self.abcMD5)) == bad)
            #expect(checker.check(expectation(root, "lessons/a/x.ts")) == bad)
        }
    }

    @Test func fileWhereADirectoryShouldBe() throws {
        try withTemporaryDirectory { root in
            try writeFile(root, "lessons/a", Self.abc)
            #expect(
                checker.check(expectation(root, "lessons/a/raw/x.ts"))
                    == .notRegularFile(path: root + "/lessons/a", kind: "regular file", needed: .folder))
        }
    }

    @Test func directoryWhereAFileShouldBe() throws {
        try withTemporaryDirectory { root in
            try makeDirectory(root, "a/x.ts")
            #expect(
                checker.check(expectation(root, "a/x.ts", size: 3))
                    == .notRegularFile(path: root + "/a/x.ts", kind: "directory"))
        }
    }

    @Test func fifoDoesNotHang() throws {
        try withTemporaryDirectory { root in
            try makeDirectory(root, "a")
            #expect(mkfifo(root + "/a/pipe", 0o644) == 0)
            let bad = FileCheck.notRegularFile(path: root + "/a/pipe", kind: "FIFO")
            #expect(checker.check(expectation(root, "a/pipe", Self.abcMD5)) == bad)
            #expect(checker.check(expectation(root, "a/pipe")) == bad)
        }
    }

    @Test(.disabled(if: isRoot, "root reads files whatever their mode"))
    func permissionDenied() throws {
        try withTemporaryDirectory { root in
            let path = try writeFile(root, "a/secret", Self.abc)
            #expect(chmod(path, 0) == 0)
            #expect(
                checker.check(expectation(root, "a/secret", size: 3, Self.abcMD5))
                    == .ioError(path: path, errno: EACCES, message: "open: " + String(cString: strerror(EACCES))))
            // Size alone needs no read permission.
            #expect(checker.check(expectation(root, "a/secret", size: 3)) == .ok(size: 3, digests: []))
        }
    }

    @Test func rootMayBeASymlink() throws {
        try withTemporaryDirectory { dir in
            try writeFile(dir, "real/a/x", Self.abc)
            try makeSymlink(dir, "out", to: dir + "/real")
            #expect(
                checker.check(expectation(dir + "/out", "a/x", size: 3, Self.abcSHA256))
                    == .ok(size: 3, digests: [Self.abcSHA256]))
        }
    }

    @Test(arguments: ["../x", "a/../../x", "/etc/passwd", "a/", "a/.."])
    func pathsThatLeaveTheRootAreRefused(_ path: String) throws {
        try withTemporaryDirectory { root in
            try writeFile(root, "a/x", Self.abc)
            let result = checker.check(expectation(root, path))
            guard case .ioError(_, let code, _) = result else {
                Issue.record("\(path): \(result)")
                return
            }
            #expect(code == EINVAL)
        }
    }
}

/// `FileExpectation.computes`: algorithms hashed in the same pass as the expected digests and
/// compared with nothing (how `--record-sums` pins a file that declares no SHA-256).
struct FileCheckerComputesTests {
    let checker = FileChecker()

    @Test func aFileWithNothingDeclaredIsHashedWhenAsked() throws {
        try withTemporaryDirectory { root in
            try writeFile(root, "a/x.bin", FileCheckerTests.abc)
            let asked = FileExpectation(root: root, relativePath: "a/x.bin", computes: [.sha256])
            #expect(checker.check(asked) == .ok(size: 3, digests: [FileCheckerTests.abcSHA256]))
        }
    }

    @Test func declaredDigestsAreStillComparedAndComputedOnesAreNot() throws {
        try withTemporaryDirectory { root in
            try writeFile(root, "x.bin", FileCheckerTests.abc)
            let ok = FileExpectation(root: root, relativePath: "x.bin", size: 3, digests: [FileCheckerTests.abcMD5], computes: [.sha256])
            #expect(checker.check(ok) == .ok(size: 3, digests: [FileCheckerTests.abcMD5, FileCheckerTests.abcSHA256]))
            var wrong = FileCheckerTests.abcMD5
            wrong.bytes[0] ^= 1
            let bad = FileExpectation(root: root, relativePath: "x.bin", digests: [wrong], computes: [.sha256])
            #expect(checker.check(bad) == .digestMismatch(expected: wrong, actual: [FileCheckerTests.abcMD5, FileCheckerTests.abcSHA256], size: 3))
            // A size that differs is reported before any hashing, as without `computes`.
            let short = FileExpectation(root: root, relativePath: "x.bin", size: 4, computes: [.sha256])
            #expect(checker.check(short) == .sizeMismatch(expected: 4, actual: 3))
        }
    }

    @Test func anAlgorithmBothDeclaredAndAskedForIsHashedOnce() throws {
        try withTemporaryDirectory { root in
            try writeFile(root, "x.bin", FileCheckerTests.abc)
            let both = FileExpectation(root: root, relativePath: "x.bin", digests: [FileCheckerTests.abcSHA256], computes: [.sha256])
            #expect(checker.check(both) == .ok(size: 3, digests: [FileCheckerTests.abcSHA256]))
        }
    }
}
