import JobrunCore
import JobrunSystem

/// A system call on a file failed: which call, on which path, and the `errno` it set.
public struct FileIOError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The path as the caller would write it (root joined with the relative path).
    public var path: String
    /// The failing call, e.g. `open`, `mmap`, `read`.
    public var operation: String
    /// The `errno` value. Classify by this, never by `message`.
    public var code: Int32

    public init(path: String, operation: String, code: Int32) {
        self.path = path
        self.operation = operation
        self.code = code
    }

    /// `strerror` text of `code`, prefixed with the operation: `open: Permission denied`.
    public var message: String { "\(operation): \(systemErrorText(code))" }

    public var description: String { "\(path): \(message)" }
}

/// A human name for the file type in `mode`: the `kind` of `FileCheck.notRegularFile`.
func fileKindName(_ mode: mode_t) -> String {
    switch mode & S_IFMT {
    case S_IFREG: "regular file"
    case S_IFDIR: "directory"
    case S_IFLNK: "symbolic link"
    case S_IFIFO: "FIFO"
    case S_IFSOCK: "socket"
    case S_IFCHR: "character device"
    case S_IFBLK: "block device"
    default: "file of unknown type"
    }
}

/// `close` that ignores the result: on Linux the descriptor is released even when close
/// reports EINTR or EIO, so retrying would close someone else's descriptor.
func closeDescriptor(_ fd: Int32) {
    _ = close(fd)
}
