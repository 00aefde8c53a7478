import JobrunCore
import JobrunSystem

/// Where a hook's program is, as `execvp` would find it: a name with a slash is a path (the
/// manifest's folder or the current directory already made it absolute); a bare name is looked
/// up in `PATH` (``ExecutableSearch``).
enum HookProgram {
    static func resolve(_ name: String, path: String) -> Result<String, LookupError> {
        if name.contains("/") { return .success(name) }
        return ExecutableSearch.find(name, in: path).map { .success($0) } ?? .failure(LookupError(name: name, path: path))
    }

    struct LookupError: Error, Sendable, CustomStringConvertible {
        var name: String
        var path: String
        var description: String { "'\(name)' is not an executable file in any folder of PATH (\(path))" }
    }
}
