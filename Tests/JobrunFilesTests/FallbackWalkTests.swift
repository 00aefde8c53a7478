import Foundation
import JobrunCore
@testable import JobrunFiles
import Testing

/// The same answers whether directories are opened by one `openat2` call or walked one
/// `openat(O_NOFOLLOW)` at a time (the path taken without openat2: old kernels, seccomp, macOS).
struct FallbackWalkTests {
    @Test(arguments: [true, false])
    func everyOutcome(usesOpenat2: Bool) throws {
        var checker = FileChecker()
        checker.usesOpenat2 = usesOpenat2
        try withTemporaryDirectory { root in
            let abc = Array("abc".utf8)
            let md5 = digest(.md5, "900150983cd24fb0d6963f7d28e17f72")
            try writeFile(root, "a/b/c/ok", abc)
            try writeFile(root, "elsewhere/x", abc)
            try makeSymlink(root, "a/b/link", to: root + "/elsewhere")
            try makeSymlink(root, "a/b/c/filelink", to: "ok")
            try writeFile(root, "a/b/plain", abc)
            let cases: [(String, FileCheck)] = [
                ("a/b/c/ok", .ok(size: 3, digests: [md5])),
                ("a/b/c/absent", .missing),
                ("a/nothing/here/x", .missing),
                ("a/b/link/x", .notRegularFile(path: root + "/a/b/link", kind: "symbolic link", needed: .folder)),
                ("a/b/link/deeper/x", .notRegularFile(path: root + "/a/b/link", kind: "symbolic link", needed: .folder)),
                ("a/b/c/filelink", .notRegularFile(path: root + "/a/b/c/filelink", kind: "symbolic link")),
                ("a/b/plain/x", .notRegularFile(path: root + "/a/b/plain", kind: "regular file", needed: .folder)),
                ("a/b/c", .notRegularFile(path: root + "/a/b/c", kind: "directory")),
                ("a/./b/c/ok", .ok(size: 3, digests: [md5])),
            ]
            let expectations = cases.map { FileExpectation(root: root, relativePath: $0.0, size: 3, digests: [md5]) }
            let results = checker.checkAll(expectations, parallelism: 2)
            for ((path, expected), result) in zip(cases, results) {
                #expect(result == expected, "\(path)")
            }
        }
    }
}
