public import JobrunCore

extension ManifestLoader {
    /// The cross-resource rules that involve slices (distinct files, no file where a folder must
    /// be; every slice with a digest under `--require-digests`), for resources whose catalogs
    /// have been read since they were loaded.
    public static func checkSlices(_ resources: [Resource], currentDirectory: String, requiresDigests: Bool) -> [Diagnostic] {
        var collector = DiagnosticCollector()
        ManifestValidator.checkDestinations(resources, currentDirectory: currentDirectory, into: &collector)
        if requiresDigests { DigestRequirement.check(resources, into: &collector) }
        return collector.diagnostics
    }
}
