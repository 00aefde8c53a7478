/// GNU coreutils' `sha256sum -c`, the other reader of the lists `--record-sums` writes.
public enum SHA256Sum {
    /// The `sha256sum` on `PATH`, if any.
    public static var executable: String? { ProcessRunner.which("sha256sum") }

    /// Runs `sha256sum --check --strict <list>` in `directory` (`--strict`: a line it cannot
    /// read fails the check instead of being skipped with a warning).
    /// - Returns: whether every listed file is there with its digest, and the combined output.
    ///   A missing `sha256sum` is a failure that says so, never a pass.
    public static func check(list: String, in directory: String) -> (ok: Bool, output: String) {
        guard let executable else { return (false, "sha256sum not found on PATH (install coreutils)") }
        do {
            let result = try ProcessRunner.runBlocking(
                executable: executable, arguments: ["--check", "--strict", list],
                environment: ProcessRunner.environment(overrides: ["LC_ALL": "C"], removals: []), workingDirectory: directory,
                timeout: .seconds(60))
            return (result.status == 0, result.stdout + result.stderr)
        } catch {
            return (false, error.description)
        }
    }
}
