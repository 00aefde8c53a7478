// This file names `mode_t` in public signatures, so it imports the platform module itself: with
// a cold module cache the compiler can take `mode_t` from SwiftOverlayShims (sys/mman.h), which
// no file of this module imports, and refuses the signature (CI failed so on f8622ed).
#if canImport(Glibc)
public import Glibc
#elseif canImport(Musl)
public import Musl
#elseif canImport(Darwin)
public import Darwin
#endif

/// What `stat(2)` says about a path (following symbolic links, as `stat` does), for the few
/// places that only ask what kind of thing is there.
public enum FileStatus {
    public enum Kind: Sendable, Hashable {
        case directory
        /// A regular file or anything else that is not a directory.
        case other
    }

    /// The kind of thing at `path`; `nil` when `stat` fails (nothing there, or not reachable).
    public static func kind(atPath path: String) -> Kind? {
        var st = stat()
        guard stat(path, &st) == 0 else { return nil }
        return isDirectory(mode: st.st_mode) ? .directory : .other
    }

    /// The file type bits of `mode` (`st_mode`) say "regular file".
    public static func isRegularFile(mode: mode_t) -> Bool { mode & S_IFMT == S_IFREG }
    /// The file type bits of `mode` (`st_mode`) say "directory".
    public static func isDirectory(mode: mode_t) -> Bool { mode & S_IFMT == S_IFDIR }

    /// `path` exists and is a directory.
    public static func isDirectory(atPath path: String) -> Bool { kind(atPath: path) == .directory }
}
