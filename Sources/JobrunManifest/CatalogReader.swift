public import JobrunCore
import JobrunTrust

/// Reads a fetched catalog (``CatalogSource``) into its resource's slices, as a manifest's own
/// `slices_from` list is read: its signature first, then its entries, then `include`/`exclude`.
/// Pure: the bytes come from the caller, and every problem is a diagnostic located in the
/// catalog (or its signature) by the names the caller gives them.
public enum CatalogReader {
    /// The kept slices of `list`, or every problem found in it (the resource then takes none).
    /// - Parameters:
    ///   - signature: the detached signature's bytes when the catalog is signed.
    ///   - file: the name the catalog's lines are located by (its URL).
    ///   - signatureFile: the name the signature's lines are located by.
    ///   - origins: the resource's origins, which an HLS playlist's URIs resolve against.
    public static func slices(
        of catalog: CatalogSource, list: [UInt8], signature: [UInt8]?, file: String, signatureFile: String, origins: [ResourceOrigin]
    ) -> Result<[Slice], CatalogRefusal> {
        var diagnostics = DiagnosticCollector()
        if let trust = catalog.trust {
            guard let signature else {
                return .failure(
                    CatalogRefusal(
                        "'\(file)' is signed, and its signature '\(signatureFile)' was not fetched; none of its slices is used", at: catalog.location))
            }
            if case .failure(let problem) = DetachedSignature.verify(list, signature: signature, key: trust.key) {
                let at = problem.line.map { SourceLocation(file: signatureFile, line: $0, column: 1) } ?? trust.location
                return .failure(CatalogRefusal("'\(file)' is not trusted: \(problem.message); none of its slices is used", at: at))
            }
        }
        let listed: [Slice]
        switch catalog.format {
        case .hls: listed = ManifestDecoder.playlistSlices(in: list, file: file, origins: origins, diagnostics: &diagnostics)
        case .sha256sum: listed = ManifestDecoder.checksumEntries(in: list, file: file, algorithm: catalog.algorithm, diagnostics: &diagnostics)
        case .debian:
            // A repository is a chain of files (InRelease, its indexes), read where they are fetched.
            return .failure(CatalogRefusal("'\(file)' is a Debian repository's InRelease, read with its indexes", at: catalog.location))
        }
        if diagnostics.hasErrors { return .failure(CatalogRefusal(diagnostics.diagnostics)) }
        let kept = catalog.include.isEmpty && catalog.exclude.isEmpty ? listed : listed.filter { catalog.keeps($0.path) }
        if kept.isEmpty {
            let why = listed.isEmpty ? "lists no slices" : "lists \(listed.count) slices, and 'include' and 'exclude' keep none of them"
            return .failure(CatalogRefusal("'\(file)' \(why)", at: catalog.location))
        }
        return .success(kept)
    }
}

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
