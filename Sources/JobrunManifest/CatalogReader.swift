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
    ///   - warnings: what was found wrong that did not refuse the catalog (a Metalink URL that
    ///     may not be used).
    public static func slices(
        of catalog: CatalogSource, list: [UInt8], signature: [UInt8]?, file: String, signatureFile: String, origins: [ResourceOrigin],
        warnings: inout [Diagnostic]
    ) -> Result<[Slice], CatalogRefusal> {
        var diagnostics = DiagnosticCollector(limit: CatalogRefusal.reportedProblems)
        defer { warnings.append(contentsOf: diagnostics.diagnostics.filter { $0.severity != .error }) }
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
        case .metalink:
            let allowance = CatalogAllowance(origins: catalog.trustedOrigins(origins), hosts: catalog.allow)
            listed = MetalinkSlices.slices(in: list, file: file, allowance: allowance, diagnostics: &diagnostics)
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

    /// ``slices(of:list:signature:file:signatureFile:origins:warnings:)``, its warnings dropped.
    public static func slices(
        of catalog: CatalogSource, list: [UInt8], signature: [UInt8]?, file: String, signatureFile: String, origins: [ResourceOrigin]
    ) -> Result<[Slice], CatalogRefusal> {
        var warnings: [Diagnostic] = []
        return slices(of: catalog, list: list, signature: signature, file: file, signatureFile: signatureFile, origins: origins, warnings: &warnings)
    }
}
