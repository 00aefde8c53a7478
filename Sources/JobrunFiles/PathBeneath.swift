import JobrunCore
internal import Synchronization
#if os(Linux)
internal import CLinux
#endif
import JobrunSystem

/// Opening directories beneath an output root without following any symbolic link.
///
/// On Linux one `openat2(RESOLVE_NO_SYMLINKS | RESOLVE_BENEATH)` call opens a whole path; the
/// kernel refuses every symlink in it, trailing one included. Where openat2 is missing
/// (kernel < 5.6, ENOSYS) or filtered (seccomp profiles answer EPERM), and on Darwin, and
/// whenever openat2 fails, the path is walked one `openat(O_NOFOLLOW | O_DIRECTORY)` at a
/// time. The walk also says exactly which component was missing or wrong, which a failed
/// openat2 does not.
enum PathBeneath {
    /// What opening a directory led to.
    enum Opened {
        /// An open directory descriptor, which the caller closes.
        case descriptor(Int32)
        /// Why not, and how many components of the path the failure belongs to: `depth`
        /// components are missing or wrong, so is everything beneath them.
        case failed(FileCheck, depth: Int)
    }

    /// What the descriptor is for: looking names up in it, or listing it.
    enum Purpose {
        case lookup, listing

        var flags: Int32 {
            switch self {
            #if os(Linux)
            // O_PATH needs no read permission on the directory, only search permission on
            // its parents, like a path lookup; fstatat and openat accept it as dirfd.
            case .lookup: Int32(JOBRUN_O_PATH) | O_DIRECTORY | O_CLOEXEC
            #else
            case .lookup: O_RDONLY | O_DIRECTORY | O_CLOEXEC
            #endif
            case .listing: O_RDONLY | O_DIRECTORY | O_CLOEXEC
            }
        }
    }

    /// Opens the output root itself. Symbolic links in `root` are followed: the user named it.
    static func openRoot(_ root: String, for purpose: Purpose) -> Opened {
        let fd = retryingOnInterrupt { open(root, purpose.flags) }
        if fd >= 0 { return .descriptor(fd) }
        let error = errno
        if error == ENOENT { return .failed(.missing, depth: 0) }
        var status = stat()
        if error == ENOTDIR, stat(root, &status) == 0, !FileStatus.isDirectory(mode: status.st_mode) {
            return .failed(.notRegularFile(path: root, kind: fileKindName(status.st_mode)), depth: 0)
        }
        return .failed(.ioError(FileIOError(path: root, operation: "open", code: error)), depth: 0)
    }

    /// Opens the directory `components` (no empty, `.` or `..` entries) beneath `rootFD`.
    /// `tryOpenat2: false` forces the walk (tests use it to cover the fallback).
    static func openDirectory(
        _ components: [Substring], beneath rootFD: Int32, rootPath: String, for purpose: Purpose,
        tryOpenat2: Bool = true
    ) -> Opened {
        #if os(Linux)
        if tryOpenat2, !components.isEmpty, Openat2.isUsable {
            let path = components.joined(separator: "/")
            if let fd = Openat2.open(path, beneath: rootFD, flags: purpose.flags) { return .descriptor(fd) }
        }
        #endif
        return walk(components, beneath: rootFD, rootPath: rootPath, flags: purpose.flags)
    }

    private static func walk(_ components: [Substring], beneath rootFD: Int32, rootPath: String, flags: Int32) -> Opened {
        guard !components.isEmpty else {
            let fd = retryingOnInterrupt { openat(rootFD, ".", flags) }
            if fd >= 0 { return .descriptor(fd) }
            return .failed(.ioError(FileIOError(path: rootPath, operation: "open", code: errno)), depth: 0)
        }
        var current = rootFD
        for (index, component) in components.enumerated() {
            let name = String(component)
            let fd = retryingOnInterrupt { openat(current, name, flags | O_NOFOLLOW) }
            let error = errno
            if fd < 0 {
                let failure = diagnose(
                    error, opening: name, in: current, expecting: .directory,
                    path: { joinPath(rootPath, components[...index].joined(separator: "/")) })
                if current != rootFD { closeDescriptor(current) }
                return .failed(failure, depth: index + 1)
            }
            if current != rootFD { closeDescriptor(current) }
            current = fd
        }
        return .descriptor(current)
    }

    enum ExpectedKind { case directory, regularFile }

    /// Turns a failed `openat(dirFD, name, …O_NOFOLLOW)` or `fstatat` into a `FileCheck`:
    /// ENOENT is `missing`; anything that `fstatat(AT_SYMLINK_NOFOLLOW)` shows to be the wrong
    /// kind (a symbolic link gives ELOOP or ENOTDIR, depending on the flags) is
    /// `notRegularFile`; the rest is `ioError` with the original errno.
    static func diagnose(
        _ error: Int32, opening name: String, in dirFD: Int32, expecting expected: ExpectedKind,
        path: () -> String, operation: String = "open"
    ) -> FileCheck {
        if error == ENOENT { return .missing }
        var status = stat()
        if fstatat(dirFD, name, &status, AT_SYMLINK_NOFOLLOW) == 0 {
            let isRightKind = expected == .directory ? FileStatus.isDirectory(mode: status.st_mode) : FileStatus.isRegularFile(mode: status.st_mode)
            if !isRightKind { return .notRegularFile(path: path(), kind: fileKindName(status.st_mode), needed: expected == .directory ? .folder : .file) }
        } else if errno == ENOENT {
            return .missing  // removed between the two calls
        }
        return .ioError(FileIOError(path: path(), operation: operation, code: error))
    }

    /// The directory components of a validated relative path's parent, or nil when the path
    /// is absolute or climbs with `..` (the manifest layer rejects both; this is a second lock).
    static func components(ofDirectory directory: Substring) -> [Substring]? {
        if directory.utf8.first == UInt8(ascii: "/") { return nil }
        var result: [Substring] = []
        for component in directory.split(separator: "/", omittingEmptySubsequences: true) where component != "." {
            if component == ".." { return nil }
            result.append(component)
        }
        return result
    }
}

/// Calls `body` again while it fails with EINTR (a signal arrived during a blocking call).
@inline(__always)
func retryingOnInterrupt<T: BinaryInteger>(_ body: () -> T) -> T {
    while true {
        let result = body()
        if result >= 0 || errno != EINTR { return result }
    }
}

#if os(Linux)
/// The `openat2` system call (Linux 5.6), which glibc 2.36 does not wrap (called through the
/// `CLinux` shim).
enum Openat2 {
    private static let resolveNoMagicLinks: UInt64 = 0x02
    private static let resolveNoSymlinks: UInt64 = 0x04
    private static let resolveBeneath: UInt64 = 0x08

    /// Cleared for good once the kernel or a seccomp filter refuses the call.
    private static let usable = Atomic<Bool>(true)

    static var isUsable: Bool { usable.load(ordering: .relaxed) }

    /// A descriptor for `path` beneath `dirFD`, or nil when openat2 failed for any reason
    /// (the caller then walks the path, which also explains the failure).
    static func open(_ path: String, beneath dirFD: Int32, flags: Int32) -> Int32? {
        // struct open_how { __u64 flags; __u64 mode; __u64 resolve; }: three naturally
        // aligned u64s, laid out contiguously like this homogeneous tuple.
        var how: (UInt64, UInt64, UInt64) = (
            UInt64(UInt32(bitPattern: flags)), 0, resolveNoSymlinks | resolveBeneath | resolveNoMagicLinks
        )
        for _ in 0..<4 {
            let result = withUnsafeBytes(of: &how) { howBytes in
                path.withCString { cPath in
                    // baseAddress of a non-empty tuple's bytes is never nil.
                    howBytes.baseAddress.map { jobrun_openat2(dirFD, cPath, $0, howBytes.count) } ?? -1
                }
            }
            if result >= 0 { return Int32(truncatingIfNeeded: result) }
            switch errno {
            case EINTR, EAGAIN:
                // EAGAIN: RESOLVE_BENEATH saw a concurrent rename and asks for a retry.
                continue
            case ENOSYS, EPERM, E2BIG:
                usable.store(false, ordering: .relaxed)
                return nil
            default:
                return nil
            }
        }
        return nil
    }
}
#endif
