import Foundation
import JobrunCore
import JobrunTestSupport
import Testing

@Suite struct AtomicFileTests {
    @Test func writesAndReplacesWithoutLeavingTemporaryFiles() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("report.xml")
        try AtomicFile.write(Array("first".utf8), to: path)
        #expect(directory.contents(of: "report.xml") == "first")
        try AtomicFile.write(to: path) { (append: ([UInt8]) throws(FileWriteError) -> Void) throws(FileWriteError) in
            try append(Array("second, ".utf8))
            try append(Array("in parts".utf8))
        }
        #expect(directory.contents(of: "report.xml") == "second, in parts")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["report.xml"])
        let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
        #expect(mode == 0o644)
    }

    @Test func writesEmptyFilesThroughDotComponents() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try AtomicFile.write([], to: directory.path("./empty"))
        #expect(directory.contents(of: "empty") == "")
    }

    @Test func reportsTheFailingStepAndLeavesNothingBehind() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        #expect(throws: FileWriteError(.createTemporary, path: directory.path("missing/report.xml"), errno: ENOENT)) {
            try AtomicFile.write([1], to: directory.path("missing/report.xml"))
        }
        try directory.makeDirectory("taken")
        try directory.write(file: "taken/child", contents: "keep")
        do {
            try AtomicFile.write([1], to: directory.path("taken"))
            Issue.record("renaming over a non-empty directory should fail")
        } catch {
            #expect(error.code == .rename)
            #expect(error.description.hasPrefix("cannot write '\(directory.path("taken"))': "))
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["taken"])
        #expect(throws: FileWriteError.self) { try AtomicFile.write([], to: "") }
    }

    /// Content made a part at a time: the file appears whole once every part is written, and an
    /// error while the parts are made leaves the old file and no temporary one.
    @Test func partsAreWrittenInOrderAndAFailureKeepsTheOldFile() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("plan.json")
        try AtomicFile.write(to: path) { (append: ([UInt8]) throws(FileWriteError) -> Void) throws(FileWriteError) in
            for part in ["{", "\"a\": 1", "}"] { try append(Array(part.utf8)) }
        }
        #expect(directory.contents(of: "plan.json") == "{\"a\": 1}")
        let failure = FileWriteError(.write, path: path, errno: ENOSPC)
        #expect(throws: failure) {
            try AtomicFile.write(to: path) { (append: ([UInt8]) throws(FileWriteError) -> Void) throws(FileWriteError) in
                try append(Array("new".utf8))
                throw failure
            }
        }
        #expect(directory.contents(of: "plan.json") == "{\"a\": 1}")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["plan.json"])
    }

    /// A write that fails (a full tmpfs) ends the file even when the content's maker swallows the
    /// error: later parts are refused, and nothing takes the place of the path.
    @Test(.enabled(if: DiskFull.canMount, "mounting a tmpfs needs root"))
    func aFailedWriteIsTheFailureEvenWhenSwallowed() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let small = try directory.makeDirectory("small")
        try #require(DiskFull.mount(at: small, size: "16k"))
        defer { DiskFull.unmount(small) }
        let path = small + "/plan.json"
        var laterPart: FileWriteError?
        #expect(throws: FileWriteError.self) {
            try AtomicFile.write(to: path) { (append: ([UInt8]) throws(FileWriteError) -> Void) throws(FileWriteError) in
                _ = try? append([UInt8](repeating: 7, count: 1 << 20))
                do throws(FileWriteError) { try append([1]) } catch { laterPart = error }
            }
        }
        #expect(laterPart?.code == .write && laterPart?.errno == ENOSPC, "\(String(describing: laterPart))")
        #expect(try FileManager.default.contentsOfDirectory(atPath: small).isEmpty)
    }
}
