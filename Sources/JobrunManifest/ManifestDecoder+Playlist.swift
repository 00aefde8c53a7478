import JobrunCore

/// `slices_from: {path: …, format: hls}`: the files an HLS playlist names become the resource's
/// slices, each URI resolved against the resource's origins and never outside them.
extension ManifestDecoder {
    /// The slices of the playlist in `bytes` (read from `file`): one per file its URIs name (a
    /// file named twice, as byte ranges do, once), in the order they are named.
    static func playlistSlices(in bytes: [UInt8], file: String, origins: [ResourceOrigin], diagnostics: inout DiagnosticCollector) -> [Slice] {
        guard let playlist = HLSPlaylist.parse(bytes, file: file, diagnostics: &diagnostics) else { return [] }
        guard let base = origins.first.flatMap({ try? ParsedURL.parse($0.url).get() }) else {
            if let first = playlist.references.first {
                diagnostics.error("an HLS playlist's URIs are resolved against the resource's 'base_url', and it has none", at: first.location)
            }
            return []
        }
        // A folder's URIs are below it: without its '/', a base URL names a file, not a folder.
        if let first = playlist.references.first, let loose = origins.first(where: { !$0.url.hasSuffix("/") }) {
            diagnostics.error("an HLS playlist's URIs are resolved below the base URL '\(loose.url)', which must end with '/'", at: first.location)
            return []
        }
        let bases = origins.compactMap { try? ParsedURL.parse($0.url).get() }
        var seen = Set<String>()
        var slices: [Slice] = []
        for reference in playlist.references {
            guard let slice = resolve(reference, base: base, bases: bases, diagnostics: &diagnostics), seen.insert(slice.path).inserted else { continue }
            slices.append(slice)
        }
        return slices
    }

    /// A reference's slice: its path below the origin it is at (the first, for a relative URI), and
    /// its own URL when it has a query (a token the origin asks for).
    private static func resolve(
        _ reference: HLSPlaylist.Reference, base: ParsedURL, bases: [ParsedURL], diagnostics: inout DiagnosticCollector
    ) -> Slice? {
        var uri = Substring(reference.uri)
        // By scalars: a '#' or '?' followed by a combining mark is still one.
        if let hash = uri.unicodeScalars.firstIndex(of: "#") { uri = uri[..<hash] }
        let isAbsolute = hasScheme(uri)
        var origin = base
        var relative: Substring
        var query: Substring?
        if isAbsolute {
            guard case .success(let url) = ParsedURL.parse(String(uri)), url.scheme == "http" || url.scheme == "https" else {
                diagnostics.error("the \(reference.kind.rawValue) URI '\(reference.uri)' is not an http or https URL", at: reference.location)
                return nil
            }
            guard let at = bases.first(where: { $0.origin == url.origin && url.path.hasPrefix(folder(of: $0)) }) else {
                diagnostics.error(
                    "the \(reference.kind.rawValue) URI '\(reference.uri)' is outside the resource's origins; a playlist's URIs stay below its 'base_url' or 'base_urls'",
                    at: reference.location)
                return nil
            }
            origin = at
            relative = Substring(url.path.dropFirst(folder(of: at).count))
            query = url.query.map { Substring($0) }
        } else {
            if let mark = uri.unicodeScalars.firstIndex(of: "?") {
                query = uri[uri.unicodeScalars.index(after: mark)...]
                uri = uri[..<mark]
            }
            if uri.hasPrefix("/") {
                guard uri.hasPrefix(folder(of: base)) else {
                    diagnostics.error(
                        "the \(reference.kind.rawValue) URI '\(reference.uri)' is outside the resource's 'base_url' (\(base.text))", at: reference.location)
                    return nil
                }
                uri = uri.dropFirst(folder(of: base).count)
            }
            relative = uri
        }
        guard let decoded = ParsedURL.percentDecoded(relative) else {
            diagnostics.error("the \(reference.kind.rawValue) URI '\(reference.uri)' has a malformed '%' escape", at: reference.location)
            return nil
        }
        switch PathRules.normalize(decoded, allowEmpty: false, allowTrailingSlash: false) {
        case .success(let path):
            let ownURL = query.map { origin.origin + folder(of: origin) + ParsedURL.percentEncodePath(path) + "?" + $0 }
            if let ownURL, case .failure = ParsedURL.parse(ownURL) {
                diagnostics.error("the \(reference.kind.rawValue) URI '\(reference.uri)' has a query that is not a valid URL's", at: reference.location)
                return nil
            }
            return Slice(path: path, url: ownURL, location: reference.location)
        case .failure(let problem):
            diagnostics.error(
                "the \(reference.kind.rawValue) URI '\(reference.uri)': \(PathRules.message(for: problem, field: "its path", value: decoded))",
                at: reference.location)
            return nil
        }
    }

    /// Whether `uri` starts with a scheme (RFC 3986: a letter, then letters, digits, `+`, `-`, `.`,
    /// then `:` before any `/`, `?` or `#`).
    static func hasScheme(_ uri: Substring) -> Bool {
        guard let first = uri.unicodeScalars.first, ("a"..."z").contains(first) || ("A"..."Z").contains(first) else { return false }
        for c in uri.unicodeScalars.dropFirst() {
            if c == ":" { return true }
            guard ("a"..."z").contains(c) || ("A"..."Z").contains(c) || ("0"..."9").contains(c) || c == "+" || c == "-" || c == "." else { return false }
        }
        return false
    }

    /// The folder a base URL names: its path up to its last `/`.
    private static func folder(of base: ParsedURL) -> String {
        guard let slash = base.path.lastIndex(of: "/") else { return "/" }
        return String(base.path[...slash])
    }
}
