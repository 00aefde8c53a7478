import JobrunCore
#if canImport(Glibc)
internal import CLinux
#endif
import JobrunOutcome

/// A failure writing below the output root.
public struct WriteFailure: Error, Sendable, Hashable {
    public var path: String
    public var operation: String
    public var errno: Int32

    public var isDiskFull: Bool { errno == ENOSPC || errno == EDQUOT }
    /// A symbolic link or non-folder where jobrun needs a folder, or a link where it writes.
    public var isUnsafePath: Bool { errno == ELOOP || errno == ENOTDIR || errno == EISDIR }

    /// How a slice that failed with this is reported.
    var sliceErrorKind: SliceErrorKind { isDiskFull ? .diskFull : (isUnsafePath ? .unsafePath : .io) }

    public var message: String {
        let reason = systemErrorText(errno)
        if isUnsafePath { return "\(operation) '\(path)': \(reason) (jobrun never writes through a symbolic link)" }
        return "\(operation) '\(path)': \(reason)"
    }
}

/// An output root opened once; folders below it are created and opened one component at a time
/// with `O_NOFOLLOW`, so no write can leave the root through a symbolic link, whatever appears on
/// disk between planning and writing. Used from the coordinator thread only; its descriptors also
/// from the store's (``BodyStore``), while the coordinator keeps it.
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
            if fd < 0 { throw WriteFailure(path: display(prefix), operation: "open folder", errno: errno) }
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
