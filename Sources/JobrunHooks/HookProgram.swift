import JobrunCore
import JobrunSystem

/// Where a hook's program is, as `execvp` would find it: a name with a slash is a path (the
/// manifest's folder or the current directory already made it absolute); a bare name is looked
/// up in each folder of `PATH` in turn, and the first regular file there that jobrun may
/// execute is it. Empty `PATH` entries (the current directory, to `execvp`) are skipped.
enum HookProgram {
    static func resolve(_ name: String, path: String) -> Result<String, LookupError> {
        if name.contains("/") { return .success(name) }
        for folder in path.split(separator: ":", omittingEmptySubsequences: true) {
            let candidate = folder.hasSuffix("/") ? "\(folder)\(name)" : "\(folder)/\(name)"
            var status = stat()
            if stat(candidate, &status) == 0, FileStatus.isRegularFile(mode: status.st_mode), access(candidate, X_OK) == 0 {
                return .success(candidate)
            }
        }
        return .failure(LookupError(name: name, path: path))
    }

    struct LookupError: Error, Sendable, CustomStringConvertible {
        var name: String
        var path: String
        var description: String { "'\(name)' is not an executable file in any folder of PATH (\(path))" }
    }
}
