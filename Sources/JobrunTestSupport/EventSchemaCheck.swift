import Foundation

/// Validation of event streams (`--events`) against `docs/events.schema.json`, by
/// `Tests/Support/eventschema.py` with Python's `jsonschema` (Debian: python3-jsonschema, which
/// `make deps` installs). Both files are in the package, so the check runs everywhere; a Python
/// without `jsonschema` is a failure that says so, never a pass.
public enum EventSchemaCheck {
    /// `<package root>/docs/events.schema.json`.
    public static var schemaPath: String? {
        SharedPaths.packageRoot(startingAt: #filePath).map { $0 + "/docs/events.schema.json" }
    }

    /// Validates every line of every file in `files`.
    /// - Returns: whether all are valid events, and the validator's output (a line per problem).
    public static func validate(_ files: [String]) -> (ok: Bool, output: String) {
        guard let root = SharedPaths.packageRoot(startingAt: #filePath) else {
            return (false, "no Package.swift above \(#filePath)")
        }
        let arguments = [root + "/Tests/Support/eventschema.py", root + "/docs/events.schema.json"] + files
        // The `python3` on PATH may be one without jsonschema (a pyenv shim); Debian's has it
        // once python3-jsonschema is installed. Exit 3 means "no jsonschema here".
        var tried: [String] = []
        for python in [ProcessRunner.which("python3"), "/usr/bin/python3"].compactMap({ $0 }) where !tried.contains(python) {
            tried.append(python)
            guard ProcessRunner.isExecutableFile(python) else { continue }
            do {
                let result = try ProcessRunner.runBlocking(
                    executable: python, arguments: arguments,
                    environment: ProcessRunner.environment(overrides: ["PYTHONDONTWRITEBYTECODE": "1"], removals: []),
                    workingDirectory: nil, timeout: .seconds(120))
                if result.status == 3 { continue }
                return (result.status == 0, result.stdout + result.stderr)
            } catch {
                return (false, error.description)
            }
        }
        return (false, "no python3 with the jsonschema module (tried \(tried.joined(separator: ", "))); install python3-jsonschema")
    }
}
