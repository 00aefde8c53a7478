import JobrunCore
import JobrunSystem

/// How much room the file system holding a path has, and which file system it is.
public struct FileSystemUsage: Sendable, Hashable {
    /// `st_dev`: paths with the same device share one file system, and so one free figure.
    public var device: UInt64
    /// Bytes an unprivileged writer may still use (`f_bavail × f_frsize`, what `df` calls Avail).
    public var freeBytes: Int64
    /// The file system's size (`f_blocks × f_frsize`).
    public var sizeBytes: Int64

    public init(device: UInt64, freeBytes: Int64, sizeBytes: Int64) {
        self.device = device
        self.freeBytes = freeBytes
        self.sizeBytes = sizeBytes
    }

    /// Why a path's file system could not be measured.
    public struct Failure: Error, Sendable, Hashable, CustomStringConvertible {
        /// The path `stat` or `statvfs` was asked about.
        public var path: String
        public var call: String
        public var message: String
        public var description: String { "\(call) '\(path)': \(message)" }
    }

    /// Measures the file system of `path`, or of its nearest existing ancestor when `path` does
    /// not exist yet (an output root that `apply` will create lands on its parent's file system).
    public static func measure(nearest path: String) -> Result<FileSystemUsage, Failure> {
        var candidate = path.isEmpty ? "." : path
        var st = stat()
        while stat(candidate, &st) != 0 {
            let code = errno
            // Only "not there" moves up: anything else (a folder we may not search) is the answer.
            let parent = SlashPath.folder(of: candidate)
            guard code == ENOENT || code == ENOTDIR, parent != candidate else {
                return .failure(Failure(path: candidate, call: "stat", message: systemErrorText(code)))
            }
            candidate = parent
        }
        var vfs = statvfs()
        guard statvfs(candidate, &vfs) == 0 else {
            return .failure(Failure(path: candidate, call: "statvfs", message: systemErrorText(errno)))
        }
        let unit = UInt64(vfs.f_frsize == 0 ? vfs.f_bsize : vfs.f_frsize)
        return .success(
            FileSystemUsage(
                device: UInt64(st.st_dev),
                freeBytes: clampedProduct(UInt64(vfs.f_bavail), unit),
                sizeBytes: clampedProduct(UInt64(vfs.f_blocks), unit)))
    }

    private static func clampedProduct(_ a: UInt64, _ b: UInt64) -> Int64 {
        let (product, overflow) = a.multipliedReportingOverflow(by: b)
        return overflow || product > UInt64(Int64.max) ? .max : Int64(product)
    }
}
