#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A program as `execvp` finds it: each folder of a `PATH` in turn, the first regular file there
/// that this process may execute. Empty entries (the current directory, to `execvp`) are skipped.
public enum ExecutableSearch {
    /// `name` (without a slash) in the folders of `path`.
    public static func find(_ name: String, in path: String) -> String? {
        for folder in path.split(separator: ":", omittingEmptySubsequences: true) {
            let candidate = folder.hasSuffix("/") ? "\(folder)\(name)" : "\(folder)/\(name)"
            var status = stat()
            if stat(candidate, &status) == 0, FileStatus.isRegularFile(mode: status.st_mode), access(candidate, X_OK) == 0 {
                return candidate
            }
        }
        return nil
    }
}
