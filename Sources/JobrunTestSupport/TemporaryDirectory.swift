public import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A fresh directory made by `mkdtemp(3)`, for one test's files.
///
///     let dir = try TemporaryDirectory()
///     defer { dir.remove() }
///     let manifest = try dir.write(file: "manifests/site.yaml", contents: "…")
public struct TemporaryDirectory: Sendable, CustomStringConvertible {
    /// Absolute path of the directory, without a trailing slash.
    public let path: String

    /// Creates `$TMPDIR/<prefix>-XXXXXX` (`/tmp` when `TMPDIR` is unset), mode 0700.
    public init(prefix: String = "jobrun-test") throws {
        var base = ProcessInfo.processInfo.environment["TMPDIR"] ?? "/tmp"
        if base.isEmpty { base = "/tmp" }
        while base.count > 1, base.hasSuffix("/") { base.removeLast() }
        var template = Array("\(base)/\(prefix)-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { buffer in
            buffer.baseAddress.map { mkdtemp($0) != nil } ?? false
        }
        guard made else {
            throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO, userInfo: [NSFilePathErrorKey: base])
        }
        self.path = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Runs `body` with a new directory and removes the directory afterwards, even on throw.
    public static func with<T>(prefix: String = "jobrun-test", _ body: (TemporaryDirectory) async throws -> T) async throws -> T {
        let directory = try TemporaryDirectory(prefix: prefix)
        defer { directory.remove() }
        return try await body(directory)
    }

    public var url: URL { URL(fileURLWithPath: path, isDirectory: true) }

    public var description: String { path }

    /// The absolute path of `relativePath` inside the directory (absolute paths are returned as is).
    public func path(_ relativePath: String) -> String {
        relativePath.hasPrefix("/") ? relativePath : path + "/" + relativePath
    }

    /// Writes `contents` to `relativePath`, creating parent directories; returns the absolute path.
    @discardableResult
    public func write(file relativePath: String, contents: String) throws -> String {
        try write(file: relativePath, bytes: Array(contents.utf8))
    }

    /// Writes `bytes` to `relativePath`, creating parent directories; returns the absolute path.
    @discardableResult
    public func write(file relativePath: String, bytes: [UInt8]) throws -> String {
        let target = path(relativePath)
        let parent = (target as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true)
        try Data(bytes).write(to: URL(fileURLWithPath: target))
        return target
    }

    /// Creates `relativePath` and its parents; returns the absolute path.
    @discardableResult
    public func makeDirectory(_ relativePath: String) throws -> String {
        let target = path(relativePath)
        try FileManager.default.createDirectory(atPath: target, withIntermediateDirectories: true)
        return target
    }

    /// The UTF-8 contents of `relativePath`, or `nil` when it cannot be read.
    public func contents(of relativePath: String) -> String? {
        FileManager.default.contents(atPath: path(relativePath)).map { String(decoding: $0, as: UTF8.self) }
    }

    /// The bytes of `relativePath`, or `nil` when it cannot be read.
    public func bytes(of relativePath: String) -> [UInt8]? {
        FileManager.default.contents(atPath: path(relativePath)).map { [UInt8]($0) }
    }

    /// Whether `relativePath` exists (any file type).
    public func exists(_ relativePath: String) -> Bool {
        FileManager.default.fileExists(atPath: path(relativePath))
    }

    /// Deletes the directory and everything in it; errors (already removed, say) are ignored.
    public func remove() {
        try? FileManager.default.removeItem(atPath: path)
    }
}
