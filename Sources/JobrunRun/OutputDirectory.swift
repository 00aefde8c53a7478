import JobrunCore
#if canImport(Glibc)
internal import CLinux
#endif
import JobrunOutcome
import JobrunSystem

/// A failure writing below the output root.
public struct WriteFailure: Error, Sendable, Hashable {
    public var path: String
    public var operation: String
    public var errno: Int32
    /// What was at `path` when the failure came from what is there (``isUnsafePath``): the
    /// message names it rather than guessing from the error number.
    public var found: Found?

    /// What a name below the output root was, links not followed.
    public enum Found: String, Sendable, Hashable {
        case symbolicLink = "a symbolic link"
        case folder = "a folder"
        case file = "a file"
        case other = "neither a file nor a folder"
    }

    public init(path: String, operation: String, errno: Int32, found: Found? = nil) {
        self.path = path
        self.operation = operation
        self.errno = errno
        self.found = found
    }

    /// A failure of `operation` on `name` in the folder `directoryFD` (shown as `path`), with what
    /// is there when the error number says something is in the way.
    public init(path: String, operation: String, errno: Int32, at name: String, in directoryFD: Int32) {
        self.init(path: path, operation: operation, errno: errno)
        guard isUnsafePath else { return }
        var status = stat()
        guard fstatat(directoryFD, name, &status, AT_SYMLINK_NOFOLLOW) == 0 else { return }
        switch status.st_mode & S_IFMT {
        case S_IFLNK: found = .symbolicLink
        case S_IFDIR: found = .folder
        case S_IFREG: found = .file
        default: found = .other
        }
    }

    public var isDiskFull: Bool { errno == ENOSPC || errno == EDQUOT }
    /// A symbolic link or non-folder where jobrun needs a folder, or a link where it writes.
    public var isUnsafePath: Bool { errno == ELOOP || errno == ENOTDIR || errno == EISDIR }

    /// How a slice that failed with this is reported.
    var sliceErrorKind: SliceErrorKind { isDiskFull ? .diskFull : (isUnsafePath ? .unsafePath : .io) }

    public var message: String {
        switch found {
        case .symbolicLink?: "\(operation) '\(path)': it is a symbolic link, and jobrun never writes through one"
        case .folder? where errno == EISDIR: "\(operation) '\(path)': a folder is in the place of the file"
        case .some(let found) where errno == ENOTDIR: "\(operation) '\(path)': it is \(found.rawValue), where a folder is needed"
        case .some(let found): "\(operation) '\(path)': it is \(found.rawValue) (\(systemErrorText(errno)))"
        case nil: "\(operation) '\(path)': \(systemErrorText(errno))"
        }
    }
}

/// An output root opened once; folders below it are created and opened one component at a time
/// with `O_NOFOLLOW`, so no write can leave the root through a symbolic link, whatever appears on
/// disk between planning and writing. Used from the driver thread only; its descriptors also
/// from the store's (``DiskWorker``), while the driver keeps it.
final class OutputDirectory {
    let rootPath: String
    let rootFD: Int32
    private var folders: [String: Int32] = [:]
    /// The file systems of the root and of every folder opened below it (one may be a mount).
    private(set) var fileSystems: FileSystemSet

    init(rootPath: String) throws(WriteFailure) {
        self.rootPath = rootPath
        rootFD = try Self.openRoot(rootPath)
        fileSystems = FileSystemSet(rootFD)
    }

    /// Creates `rootPath` and its missing parents, and opens it. The root itself is the user's
    /// choice (it may be a link); everything below it is ours.
    static func openRoot(_ rootPath: String) throws(WriteFailure) -> Int32 {
        var prefix = rootPath.hasPrefix("/") ? "/" : ""
        for component in rootPath.split(separator: "/") {
            prefix += (prefix.isEmpty || prefix == "/") ? String(component) : "/" + component
            if component == "." || component == ".." { continue }
            if mkdir(prefix, 0o777) != 0 && errno != EEXIST { throw WriteFailure(path: prefix, operation: "create folder", errno: errno) }
        }
        let fd = open(rootPath, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if fd < 0 { throw WriteFailure(path: rootPath, operation: "open output root", errno: errno) }
        return fd
    }

    deinit {
        for fd in folders.values { close(fd) }
        close(rootFD)
    }

    /// The descriptor of folder `relative` (`""` is the root), created as needed.
    func folder(_ relative: String) throws(WriteFailure) -> Int32 {
        if relative.isEmpty { return rootFD }
        if let fd = folders[relative] { return fd }
        var parent = rootFD
        var prefix = ""
        for component in relative.split(separator: "/") {
            prefix = prefix.isEmpty ? String(component) : prefix + "/" + component
            if let fd = folders[prefix] {
                parent = fd
                continue
            }
            var fd = openat(parent, String(component), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            if fd < 0 && errno == ENOENT {
                if mkdirat(parent, String(component), 0o777) != 0 && errno != EEXIST {
                    throw WriteFailure(path: display(prefix), operation: "create folder", errno: errno)
                }
                fd = openat(parent, String(component), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            }
            if fd < 0 { throw WriteFailure(path: display(prefix), operation: "open folder", errno: errno, at: String(component), in: parent) }
            folders[prefix] = fd
            fileSystems.add(fd)
            parent = fd
        }
        return parent
    }

    func display(_ relative: String) -> String {
        rootPath == "." ? relative : rootPath + "/" + relative
    }

    /// Flushes every file system the root's folders opened so far are on: one call per file
    /// system instead of an fsync per file.
    func syncFileSystem() -> Int32? { fileSystems.sync() }
}
