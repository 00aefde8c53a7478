import Foundation
import JobrunFiles
import JobrunSystem
import Testing
@testable import JobrunRun

/// A slice's working file, as the body sink, the driver and a commit use it.
@Suite struct PartialFileTests {
    typealias Folder = BodySinkTests.Folder

    static func file(in folder: Folder, name: String = "f.bin") -> PartialFile {
        PartialFile(directoryFD: folder.fd, fileName: name, displayPath: "mirror/\(name)", identity: "http://h/\(name)")
    }

    /// Written, read back at any offset, and closed with the identity a commit checks the name against.
    @Test func writtenReadBackAndClosedWithItsIdentity() throws {
        let folder = try Folder()
        var file = Self.file(in: folder)
        try file.create()
        #expect(file.isOpen)
        let bytes = Array("0123456789".utf8)
        try bytes.withUnsafeBytes { try file.write($0) }
        var back = [UInt8](repeating: 0, count: 4)
        let n = back.withUnsafeMutableBytes { file.read(into: $0.baseAddress!, count: 4, at: 3) }
        #expect(n == 4 && back == Array("3456".utf8))
        #expect(file.closedIdentity == nil)
        file.close()
        #expect(!file.isOpen)
        #expect(file.closedIdentity == (try FileIdentity.ofFile(atPath: folder.directory.path(".f.bin.jobrun-part"))))
        // Closing again keeps the identity.
        file.close()
        #expect(file.closedIdentity != nil)
    }

    /// Continued only when it holds exactly the bytes the request skipped.
    @Test func continuedOnlyAtItsOwnSize() throws {
        let folder = try Folder()
        _ = try folder.directory.write(file: ".f.bin.jobrun-part", contents: "12345")
        var wrong = Self.file(in: folder)
        #expect(throws: WriteFailure.self) { try wrong.continueAppending(expecting: 4) }
        #expect(!wrong.isOpen, "a file that cannot be continued is not kept open")
        var right = Self.file(in: folder)
        try right.continueAppending(expecting: 5)
        try Array("678".utf8).withUnsafeBytes { try right.write($0) }
        right.close()
        #expect(folder.directory.contents(of: ".f.bin.jobrun-part") == "12345678")
        var missing = Self.file(in: folder, name: "g.bin")
        #expect(throws: WriteFailure.self) { try missing.continueAppending(expecting: 0) }
    }

    /// `removeData` leaves the metadata (a stale one is not this attempt's to judge); `discard` removes both.
    @Test func removeDataKeepsTheMetadataAndDiscardRemovesBoth() throws {
        let folder = try Folder()
        var file = Self.file(in: folder)
        try file.create()
        file.writeMetadata(PartialDownload.Metadata(identity: file.identity, validator: nil, totalSize: 10))
        file.close()
        #expect(folder.entries() == [".f.bin.jobrun-meta", ".f.bin.jobrun-part"])
        file.removeData()
        #expect(folder.entries() == [".f.bin.jobrun-meta"])
        try file.create()
        file.close()
        file.discard()
        #expect(folder.entries().isEmpty)
    }
}
