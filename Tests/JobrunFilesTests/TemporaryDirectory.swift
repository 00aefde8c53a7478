import Foundation
import JobrunCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import JobrunSystem

/// A fresh directory under the system temporary directory, removed when `body` returns, after
/// giving back the permissions a test took away (JobrunTestSupport's `TemporaryDirectory` does
/// not, and these tests make files and folders unreadable).
func withTemporaryDirectory<Result>(_ body: (String) throws -> Result) throws -> Result {
    var template = Array((NSTemporaryDirectory() + "/jobrun-verify-XXXXXX").utf8CString)
    let created = template.withUnsafeMutableBufferPointer { buffer in
        buffer.baseAddress.flatMap { mkdtemp($0) }.map { String(cString: $0) }
    }
    guard let path = created else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
    defer {
        restorePermissions(path)
        try? FileManager.default.removeItem(atPath: path)
    }
    return try body(path)
}

/// Tests take permissions away; give them back, each directory before it is listed (a
/// listing of the whole tree would stop at the first unreadable directory).
private func restorePermissions(_ directory: String) {
    _ = chmod(directory, 0o755)
    for name in (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [] {
        let child = directory + "/" + name
        var status = stat()
        guard lstat(child, &status) == 0 else { continue }
        if FileStatus.isDirectory(mode: status.st_mode) {
            restorePermissions(child)
        } else if FileStatus.isRegularFile(mode: status.st_mode) {
            _ = chmod(child, 0o644)
        }
    }
}

/// Creates `relativePath` beneath `root` (and its parent directories) with `contents`.
@discardableResult
func writeFile(_ root: String, _ relativePath: String, _ contents: [UInt8]) throws -> String {
    let path = root + "/" + relativePath
    let parent = (path as NSString).deletingLastPathComponent
    try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true)
    guard FileManager.default.createFile(atPath: path, contents: Data(contents)) else {
        throw POSIXError(.EIO)
    }
    return path
}

func makeDirectory(_ root: String, _ relativePath: String) throws {
    try FileManager.default.createDirectory(atPath: root + "/" + relativePath, withIntermediateDirectories: true)
}

func makeSymlink(_ root: String, _ relativePath: String, to destination: String) throws {
    try FileManager.default.createSymbolicLink(atPath: root + "/" + relativePath, withDestinationPath: destination)
}

var isRoot: Bool { geteuid() == 0 }

/// A digest from published hex; a typo yields an empty digest that no computation matches.
func digest(_ algorithm: DigestAlgorithm, _ hex: String) -> Digest {
    Digest(algorithm: algorithm, hex: hex) ?? Digest(algorithm: algorithm, bytes: [])
}
