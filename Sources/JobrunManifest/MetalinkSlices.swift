import JobrunCore

/// The slices of a Metalink 4 document: one per file, its name a clean path below the
/// resource's folder, with its size, its hashes, and its http and https URLs in the order of
/// their `priority` as the slice's own URLs (the run fails over between them). A URL outside the
/// origins the catalog may lead to (``CatalogAllowance``) is dropped, with a warning at its line;
/// a file left without any is an error.
enum MetalinkSlices {
    static let hashTypes: [String: DigestAlgorithm] = [
        "md5": .md5, "sha-1": .sha1, "sha-224": .sha224, "sha-256": .sha256, "sha-384": .sha384, "sha-512": .sha512,
    ]

    static func slices(in bytes: [UInt8], file: String, allowance: CatalogAllowance, diagnostics: inout DiagnosticCollector) -> [Slice] {
        guard let document = MetalinkDocument.parse(bytes, file: file, diagnostics: &diagnostics) else { return [] }
        func at(_ line: Int) -> SourceLocation { SourceLocation(file: file, line: max(1, line), column: 1) }
        var slices: [Slice] = []
        var seen = Set<String>()
        for entry in document.files {
            let path: String
            switch PathRules.normalize(entry.name, allowEmpty: false, allowTrailingSlash: false) {
            case .success(let p): path = p
            case .failure(let problem):
                diagnostics.error(PathRules.message(for: problem, field: "file name", value: entry.name), at: at(entry.line))
                continue
            }
            guard seen.insert(path).inserted else {
                diagnostics.error("the file '\(path)' is described twice", at: at(entry.line))
                continue
            }
            var digests: [Digest] = []
            for hash in entry.hashes {
                guard let algorithm = hashTypes[hash.type.lowercased()] else { continue }
                guard let digest = Digest(algorithm: algorithm, hex: hash.hex.lowercased()) else {
                    diagnostics.error("the \(hash.type) hash of '\(path)' is not \(algorithm.hexLength) hex digits", at: at(hash.line))
                    continue
                }
                if !digests.contains(where: { $0.algorithm == algorithm }) { digests.append(digest) }
            }
            var urls: [(url: String, priority: Int, line: Int)] = []
            for candidate in entry.urls {
                guard case .success(let url) = ParsedURL.parse(candidate.url), url.scheme == "http" || url.scheme == "https" else { continue }
                guard allowance.admits(url) else {
                    diagnostics.warning(
                        "the URL '\(url.displayString)' of '\(path)' is at \(url.origin), which is neither the catalog's origin nor the resource's; name its host in 'allow' to use it",
                        at: at(candidate.line))
                    continue
                }
                urls.append((url.text, candidate.priority, candidate.line))
            }
            guard !urls.isEmpty else {
                diagnostics.error("'\(path)' has no http or https URL jobrun may fetch it from", at: at(entry.line))
                continue
            }
            // Sorted by priority (1 first), in the document's order among equals.
            let ordered = urls.enumerated().sorted { ($0.element.priority, $0.offset) < ($1.element.priority, $1.offset) }.map(\.element.url)
            slices.append(Slice(path: path, urls: ordered, size: entry.size, digests: digests.sorted { $0.algorithm < $1.algorithm }, location: at(entry.line)))
        }
        if document.files.isEmpty { diagnostics.error("the Metalink describes no file", at: at(1)) }
        return slices
    }
}
