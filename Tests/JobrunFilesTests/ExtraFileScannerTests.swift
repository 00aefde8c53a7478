import Foundation
import JobrunCore
import JobrunFiles
import Testing

struct ExtraFileScannerTests {
    let scanner = ExtraFileScanner()

    @Test func reportsEverythingNotExpected() throws {
        try withTemporaryDirectory { root in
            let expected: Set<String> = ["lessons/a/raw/1.ts", "lessons/a/raw/2.ts", "lessons/b/3.ts", "lessons/b/sub/4.ts"]
            for path in expected { try writeFile(root, path, [0]) }
            try writeFile(root, "lessons/a/raw/2.ts.part", [0])
            try writeFile(root, "lessons/a/stray/deep/old.ts", [0])
            try makeDirectory(root, "lessons/a/empty")
            try writeFile(root, "outside/never-scanned", [0])
            try makeSymlink(root, "lessons/b/to-outside", to: root + "/outside")  // a directory link: not followed
            #expect(mkfifo(root + "/lessons/b/fifo", 0o644) == 0)

            let scan = scanner.scan(root: root, directories: ["lessons/a", "lessons/b", "lessons/a/raw", "missing/dir"], expected: expected)
            #expect(
                scan.extraPaths == [
                    "lessons/a/raw/2.ts.part",
                    "lessons/a/stray/deep/old.ts",
                    "lessons/b/fifo",
                    "lessons/b/to-outside",
                ])
            #expect(scan.errors.isEmpty)

            let whole = scanner.scan(root: root, directories: [""], expected: expected)
            #expect(whole.extraPaths.contains("outside/never-scanned"))
            #expect(whole.extraPaths.count == 5)
        }
    }

    /// Working files are jobrun's only beside a file the manifests name; one that would belong to
    /// any other file is as foreign as the rest.
    @Test func workingFilesOfExpectedFilesOnly() throws {
        try withTemporaryDirectory { root in
            try writeFile(root, "a/1.ts", [0])
            try writeFile(root, "a/.2.ts.jobrun-part", [0])
            try writeFile(root, "a/.2.ts.jobrun-meta", [0])
            try writeFile(root, ".top.ts.jobrun-part", [0])
            try writeFile(root, "a/.gone.ts.jobrun-part", [0])
            try writeFile(root, "b/.2.ts.jobrun-meta", [0])
            // Named like one but not a file: not jobrun's.
            try makeSymlink(root, "a/.1.ts.jobrun-part", to: root + "/a/1.ts")
            #expect(mkfifo(root + "/a/.1.ts.jobrun-meta", 0o644) == 0)
            let scan = scanner.scan(root: root, directories: [""], expected: ["a/1.ts", "a/2.ts", "top.ts"])
            #expect(scan.workingPaths == [".top.ts.jobrun-part", "a/.2.ts.jobrun-meta", "a/.2.ts.jobrun-part"])
            #expect(scan.extraPaths == ["a/.1.ts.jobrun-meta", "a/.1.ts.jobrun-part", "a/.gone.ts.jobrun-part", "b/.2.ts.jobrun-meta"])
        }
    }

    @Test func symlinkedScanDirectoryIsReportedNotFollowed() throws {
        try withTemporaryDirectory { root in
            try writeFile(root, "elsewhere/x", [0])
            try makeDirectory(root, "lessons")
            try makeSymlink(root, "lessons/a", to: root + "/elsewhere")
            let scan = scanner.scan(root: root, directories: ["lessons/a"], expected: ["lessons/a/x"])
            #expect(scan.extraPaths == ["lessons/a"])
        }
    }

    @Test func nothingExtraInAnExactTreeOrMissingRoot() throws {
        try withTemporaryDirectory { root in
            try writeFile(root, "a/b/c", [0])
            #expect(scanner.scan(root: root, directories: ["a"], expected: ["a/b/c"]) == ExtraFileScan())
            #expect(scanner.scan(root: root + "/none", directories: ["a"], expected: []) == ExtraFileScan())
            #expect(scanner.scan(root: root + "/a/b/c", directories: ["a"], expected: []).errors.map(\.code) == [ENOTDIR])
        }
    }

    @Test(.disabled(if: isRoot, "root lists directories whatever their mode"))
    func unreadableDirectoryIsAnError() throws {
        try withTemporaryDirectory { root in
            try writeFile(root, "a/locked/x", [0])
            #expect(chmod(root + "/a/locked", 0) == 0)
            let scan = scanner.scan(root: root, directories: ["a"], expected: [])
            #expect(scan.errors.map(\.code) == [EACCES])
        }
    }
}
