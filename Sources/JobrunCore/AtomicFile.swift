import JobrunSystem

/// Writes whole files so that readers see either the old file or the complete new one.
public enum AtomicFile {
    /// Writes `bytes` to a temporary file in the directory of `path`, syncs it, and renames it over
    /// `path`. `rename(2)` within one file system is atomic, so no partial file ever appears at
    /// `path`; on any failure the temporary file is removed and `path` is untouched.
    ///
    /// The new file has mode 0644.
    /// - Throws: ``FileWriteError`` naming the step that failed and its `errno`.
    public static func write(_ bytes: [UInt8], to path: String) throws(FileWriteError) {
        try write(to: path) { (append: ([UInt8]) throws(FileWriteError) -> Void) throws(FileWriteError) in try append(bytes) }
    }

    /// ``write(_:to:)`` with the content made a part at a time: `produce` calls the function it is
    /// given with each part, in order, and the file takes the place of `path` once `produce` has
    /// returned. A failure to write a part, or any error `produce` throws, leaves `path` untouched.
    public static func write(
        to path: String, _ produce: (_ append: ([UInt8]) throws(FileWriteError) -> Void) throws(FileWriteError) -> Void
    ) throws(FileWriteError) {
        guard !path.isEmpty else { throw FileWriteError(.createTemporary, path: path, errno: ENOENT) }
        let directory = SlashPath.folder(of: path)
        let base = SlashPath.split(path).name
        // Dot-prefixed so directory listings and globs skip it; the name is capped so that a
        // long target name cannot push the temporary one past NAME_MAX.
        var template = Array((directory + "/." + String(decoding: base.utf8.prefix(96), as: UTF8.self) + ".tmp-XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { buffer in buffer.baseAddress.map { mkstemp($0) } ?? -1 }
        guard fd >= 0 else { throw FileWriteError(.createTemporary, path: path, errno: errno) }
        let temporaryPath = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)

        var failure: FileWriteError?
        // The first failed write ends the file even if `produce` goes on: later parts are not
        // written after a gap, and the file is not renamed into place.
        var writeFailure: FileWriteError?
        do {
            try produce { (part: [UInt8]) throws(FileWriteError) in
                if let writeFailure { throw writeFailure }
                if let error = part.withUnsafeBytes({ DescriptorIO.writeAll(fd, $0) }) {
                    writeFailure = FileWriteError(.write, path: path, errno: error)
                    throw FileWriteError(.write, path: path, errno: error)
                }
            }
        } catch {
            failure = error
        }
        if failure == nil { failure = writeFailure }
        if failure == nil {
            if fchmod(fd, 0o644) != 0 {
                failure = FileWriteError(.write, path: path, errno: errno)
            } else if fsync(fd) != 0 {
                // Without this a crash after rename could leave a named but empty file.
                failure = FileWriteError(.sync, path: path, errno: errno)
            }
        }
        if close(fd) != 0, failure == nil {
            failure = FileWriteError(.write, path: path, errno: errno)
        }
        if failure == nil, rename(temporaryPath, path) != 0 {
            failure = FileWriteError(.rename, path: path, errno: errno)
        }
        if let failure {
            unlink(temporaryPath)
            throw failure
        }
        // Make the rename itself durable; a failure here does not undo a completed write.
        let directoryFD = open(directory, O_RDONLY)
        if directoryFD >= 0 {
            _ = fsync(directoryFD)
            close(directoryFD)
        }
    }
}

/// A file could not be written; ``path`` is unchanged.
public struct FileWriteError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The step that failed.
    public enum Code: String, Hashable, Sendable {
        case createTemporary = "creating a temporary file"
        case write = "writing"
        case sync = "syncing"
        case rename = "renaming the temporary file"
    }

    public var code: Code
    /// The file that was to be written.
    public var path: String
    /// The cause, as reported by the system.
    public var errno: Int32

    public init(_ code: Code, path: String, errno: Int32) {
        self.code = code
        self.path = path
        self.errno = errno
    }

    /// `cannot write 'out/report.xml': No such file or directory (creating a temporary file)`.
    public var description: String {
        "cannot write '\(path)': \(reason)"
    }

    /// `No such file or directory (creating a temporary file)`: why, for a message that names the file.
    public var reason: String { "\(systemErrorText(errno)) (\(code.rawValue))" }
}
