/// Validates XML files against XML Schemas with libxml2's `xmllint` (Debian: libxml2-utils).
public enum XMLLint {
    /// The `xmllint` on `PATH`, if any.
    public static var executable: String? { ProcessRunner.which("xmllint") }

    /// Runs `xmllint --noout --schema <schema> <xmlFile>`.
    /// - Returns: whether the file is well-formed and valid, and xmllint's combined output (its
    ///   reasons on failure). A missing `xmllint` is a failure that says so, never a pass.
    public static func validate(xmlFile: String, schema: String) -> (ok: Bool, output: String) {
        guard let executable else {
            return (false, "xmllint not found on PATH (install libxml2-utils)")
        }
        do {
            let result = try ProcessRunner.runBlocking(
                executable: executable, arguments: ["--noout", "--schema", schema, xmlFile],
                environment: ProcessRunner.environment(overrides: [:], removals: []), workingDirectory: nil,
                timeout: .seconds(60))
            return (result.status == 0, result.stdout + result.stderr)
        } catch {
            return (false, error.description)
        }
    }
}
