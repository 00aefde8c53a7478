import JobrunCore
import JobrunSystem
import JobrunTrust

/// `slices_from:` as a file name, or as a mapping `{path | url, format, include, exclude, …}` that
/// keeps only the listed paths the patterns select.
extension ManifestDecoder {
    static let sliceSourceKeys = [
        "path", "url", "format", "include", "exclude", "signature", "minisign_key", "signify_key", "suite", "components", "architectures", "keyring", "allow",
    ]

    /// Where a resource's listed slices come from, and which of them it keeps.
    struct SliceSource {
        /// A file relative to the manifest's folder, read now; or a catalog's absolute URL,
        /// fetched at each run (``CatalogSource``).
        enum Place {
            case file(String)
            case url(String)
        }
        var place: Place
        var placeNode: YAMLNode
        var format = CatalogFormat.sha256sum
        /// For `format: debian`: what of the repository, and the keyring (relative to the manifest's
        /// folder) its InRelease, or a list's detached OpenPGP signature, is verified with.
        var debian: DebianSelection?
        var keyring: String?
        /// A fetched list's detached OpenPGP signature, relative to the list's URL.
        var openPGPSignature: String?
        var include: [PathGlob] = []
        var exclude: [PathGlob] = []
        /// `allow:`: hosts a catalog's URLs may lead to beyond its own origin and the resource's.
        var allow: [PathGlob] = []
        /// The key the list must be signed with, when it must be.
        var trust: ListTrust?

        /// Kept: selected by an `include` pattern (any, when there is none) and by no `exclude` one.
        func keeps(_ path: String) -> Bool {
            (include.isEmpty || include.contains { $0.matches(path) }) && !exclude.contains { $0.matches(path) }
        }
    }

    /// A list's signature: the key it must verify with, and the detached signature's file.
    struct ListTrust {
        var key: SignatureKey
        var keyNode: YAMLNode
        /// Relative to the manifest's folder (a file) or the catalog's URL: `signature:`, or the
        /// list's name with `.minisig` (minisign) or `.sig` (signify), as the tools name it.
        var signature: String
        var signatureNode: YAMLNode?
    }

    /// The source `node` gives; `nil` (with diagnostics) when it gives none. A relative `url:` is
    /// resolved against the first of `origins`.
    mutating func sliceSource(_ node: YAMLNode, origins: [ResourceOrigin]) -> SliceSource? {
        if doc.kind(node) == .mapping {
            checkKeys(node, allowed: Self.sliceSourceKeys, in: "'slices_from'")
            var ok = true
            var format = CatalogFormat.sha256sum
            if let n = doc.value(forKey: "format", in: node), let text = string(n, "format") {
                if let known = CatalogFormat(rawValue: text) {
                    format = known
                } else {
                    let names = CatalogFormat.allCases.map(\.rawValue)
                    diagnostics.error(
                        "'format' must be \(names.dropLast().joined(separator: ", ")) or \(names.last ?? ""), found '\(text)'\(Suggestions.didYouMean(text, in: names))",
                        at: location(n))
                    ok = false
                }
            }
            let include = doc.value(forKey: "include", in: node).map { patterns($0, "include") }
            let exclude = doc.value(forKey: "exclude", in: node).map { patterns($0, "exclude") }
            if format == .debian {
                let source = debianSource(node, origins: origins)
                guard ok, var source, let include = include ?? [], let exclude = exclude ?? [] else { return nil }
                (source.include, source.exclude) = (include, exclude)
                return source
            }
            for key: StaticString in ["suite", "components", "architectures"] {
                guard let n = doc.value(forKey: key, in: node) else { continue }
                diagnostics.error("'\(key)' is used with 'format: debian' only; this list's format is '\(format.rawValue)'", at: location(n))
                ok = false
            }
            let pathNode = doc.value(forKey: "path", in: node)
            let urlNode = doc.value(forKey: "url", in: node)
            let place: SliceSource.Place
            let placeNode: YAMLNode
            if pathNode != nil, let urlNode {
                diagnostics.error("'path' and 'url' both given in 'slices_from'; a list is read from a file or fetched, not both", at: location(urlNode))
                return nil
            } else if let n = pathNode {
                guard let path = string(n, "path"), isFreeOfDeceptiveCharacters(path, node: n, field: "'slices_from' path") else { return nil }
                (place, placeNode) = (.file(path), n)
            } else if let n = urlNode {
                guard let url = catalogURL(n, origins: origins) else { return nil }
                (place, placeNode) = (.url(url), n)
            } else {
                diagnostics.error(
                    "missing required key 'path' or 'url' in 'slices_from' (the list: a file relative to the manifest, or a URL fetched at each run)",
                    at: location(node))
                return nil
            }
            let trust = listTrust(
                node,
                listPath: {
                    switch place {
                    case .file(let p), .url(let p): p
                    }
                }(),
                isFetched: { if case .url = place { true } else { false } }())
            guard ok, let include = include ?? [], let exclude = exclude ?? [] else { return nil }
            var source = SliceSource(place: place, placeNode: placeNode, format: format, include: include, exclude: exclude)
            if let n = doc.value(forKey: "allow", in: node) {
                guard let hosts = patterns(n, "allow") else { return nil }
                source.allow = hosts
            }
            switch trust {
            case .unsigned: break
            case .signed(let trust): source.trust = trust
            case .openPGP(let keyring, let signature): (source.keyring, source.openPGPSignature) = (keyring, signature)
            case .invalid: return nil
            }
            return source
        }
        guard let path = string(node, "slices_from", expected: "a file name, or a mapping with 'path'"),
            isFreeOfDeceptiveCharacters(path, node: node, field: "'slices_from'")
        else { return nil }
        return SliceSource(place: .file(path), placeNode: node)
    }

    /// `url:`, absolute (an http or https URL), or relative to the resource's first origin.
    private mutating func catalogURL(_ node: YAMLNode, origins: [ResourceOrigin]) -> String? {
        guard let text = string(node, "url", expected: "the catalog's URL") else { return nil }
        if case .failure(.missingScheme) = ParsedURL.parse(text) {
            guard let base = origins.first.flatMap({ try? ParsedURL.parse($0.url).get() }) else {
                diagnostics.error("'slices_from' url '\(text)' is relative, and the resource has no 'base_url' to resolve it against", at: location(node))
                return nil
            }
            return checkURL(RedirectPolicy.resolve(text, against: base), node: node, field: "url")?.text
        }
        return checkURL(text, node: node, field: "url")?.text
    }

    /// The catalog a `url:` source names, for the resource to fetch at each run; `nil` (with a
    /// diagnostic) when its signature's URL is not one.
    mutating func catalog(_ source: SliceSource, url: String, algorithm: DigestAlgorithm?) -> CatalogSource? {
        var catalog = CatalogSource(
            url: url, format: source.format, include: source.include, exclude: source.exclude, algorithm: algorithm, location: location(source.placeNode))
        catalog.debian = source.debian
        catalog.allow = source.allow
        catalog.keyring = source.keyring.map { PathRules.join(manifestDirectory, $0) }
        if let signature = source.openPGPSignature, let base = try? ParsedURL.parse(url).get() {
            let signatureURL = RedirectPolicy.resolve(signature, against: base)
            guard checkURL(signatureURL, node: source.placeNode, field: "signature") != nil else { return nil }
            catalog.openPGPSignatureURL = signatureURL
        }
        if let trust = source.trust, let base = try? ParsedURL.parse(url).get() {
            let signatureURL = RedirectPolicy.resolve(trust.signature, against: base)
            guard checkURL(signatureURL, node: trust.signatureNode ?? source.placeNode, field: "signature") != nil else { return nil }
            catalog.trust = CatalogTrust(key: trust.key, signatureURL: signatureURL, location: location(trust.keyNode))
        }
        return catalog
    }

    /// The catalog a `path:` list signed with OpenPGP becomes: read and verified with `gpgv` at
    /// each run, as a fetched one is, rather than with the manifest.
    mutating func localCatalog(_ source: SliceSource, path: String, algorithm: DigestAlgorithm?) -> CatalogSource {
        var catalog = CatalogSource(
            url: PathRules.join(manifestDirectory, path), format: source.format, include: source.include, exclude: source.exclude,
            algorithm: algorithm, location: location(source.placeNode))
        catalog.isLocal = true
        catalog.allow = source.allow
        catalog.keyring = source.keyring.map { PathRules.join(manifestDirectory, $0) }
        catalog.openPGPSignatureURL = source.openPGPSignature.map { PathRules.join(manifestDirectory, $0) }
        return catalog
    }

    /// What `slices_from`'s mapping asks of its list's signature.
    private enum TrustRequest {
        case unsigned
        case signed(ListTrust)
        /// An OpenPGP detached signature, checked with gpgv against `keyring` (relative to the
        /// manifest's folder) when the catalog is read, at each run.
        case openPGP(keyring: String, signature: String)
        /// Given wrong (reported).
        case invalid
    }

    /// The trust `slices_from`'s mapping asks for, its mistakes reported.
    private mutating func listTrust(_ node: YAMLNode, listPath: String, isFetched: Bool) -> TrustRequest {
        let minisign = doc.value(forKey: "minisign_key", in: node)
        let signify = doc.value(forKey: "signify_key", in: node)
        let signatureNode = doc.value(forKey: "signature", in: node)
        if let signify, minisign != nil {
            diagnostics.error("'minisign_key' and 'signify_key' both given; a list is signed with one key", at: location(signify))
            return .invalid
        }
        if let keyringNode = doc.value(forKey: "keyring", in: node) {
            guard minisign == nil, signify == nil else {
                diagnostics.error("'keyring' and a minisign or signify key both given; a list is signed with one key", at: location(keyringNode))
                return .invalid
            }
            guard let signatureNode else {
                let what =
                    isFetched
                    ? "the detached OpenPGP signature's URL (SHA256SUMS.sign, SHA256SUMS.gpg, …), relative to the catalog's"
                    : "the detached OpenPGP signature's file (SHA256SUMS.sign, SHA256SUMS.gpg, …), relative to the manifest"
                diagnostics.error("'keyring' needs 'signature': \(what)", at: location(keyringNode))
                return .invalid
            }
            guard let keyring = string(keyringNode, "keyring", expected: "the keyring's file"),
                isFreeOfDeceptiveCharacters(keyring, node: keyringNode, field: "'keyring'"),
                let signature = string(signatureNode, "signature", expected: isFetched ? "the signature's URL" : "the signature's file"),
                isFetched || isFreeOfDeceptiveCharacters(signature, node: signatureNode, field: "'signature'")
            else { return .invalid }
            let path = PathRules.join(manifestDirectory, keyring)
            switch options.files.read(path) {
            case .success(let bytes): auxiliaryFiles.append((path, bytes))
            case .failure(let f):
                diagnostics.error("cannot read 'keyring' file '\(path)': \(FileReader.describe(f))", at: location(keyringNode))
                return .invalid
            }
            return .openPGP(keyring: keyring, signature: signature)
        }
        guard let keyNode = minisign ?? signify else {
            if let signatureNode {
                diagnostics.error("'signature' needs the key it is checked with: 'minisign_key', 'signify_key' or 'keyring'", at: location(signatureNode))
                return .invalid
            }
            return .unsigned
        }
        let scheme: SignatureKey.Scheme = minisign != nil ? .minisign : .signify
        let field = "\(scheme.rawValue)_key"
        guard let keyText = string(keyNode, field, expected: "a public key, or the name of its file") else { return .invalid }
        var signature = listPath + (scheme == .minisign ? ".minisig" : ".sig")
        if let signatureNode {
            guard let text = string(signatureNode, "signature", expected: "the signature file's name"),
                isFreeOfDeceptiveCharacters(text, node: signatureNode, field: "'signature'")
            else { return .invalid }
            signature = text
        }
        let keyFileText: String
        if SignatureKey.isInline(keyText) {
            keyFileText = keyText
        } else {
            let keyPath = PathRules.join(manifestDirectory, keyText)
            switch options.files.read(keyPath) {
            case .success(let bytes):
                auxiliaryFiles.append((keyPath, bytes))
                keyFileText = String(decoding: bytes, as: UTF8.self)
            case .failure(let f):
                diagnostics.error("cannot read '\(field)' file '\(keyPath)': \(FileReader.describe(f))", at: location(keyNode))
                return .invalid
            }
        }
        do {
            let key = try SignatureKey(parsing: keyFileText, scheme: scheme)
            return .signed(ListTrust(key: key, keyNode: keyNode, signature: signature, signatureNode: signatureNode))
        } catch {
            diagnostics.error("'\(field)' '\(keyText)': \(error.message)", at: location(keyNode))
            return .invalid
        }
    }

    /// One pattern or a list of them; `nil` (with a diagnostic for each bad one) when any is bad.
    private mutating func patterns(_ node: YAMLNode, _ field: String) -> [PathGlob]? {
        guard let nodes = oneOrList(node, field, of: "pattern") else { return nil }
        var globs: [PathGlob] = []
        var ok = true
        for n in nodes {
            guard let text = string(n, field, expected: "a pattern") else {
                ok = false
                continue
            }
            do {
                globs.append(try PathGlob(text))
            } catch {
                var at = location(n)
                // A plain pattern is written as it reads; a quoted one may hold escapes: its start then.
                if doc.style(n) == .plain { at.column += error.offset }
                diagnostics.error("'\(field)' pattern '\(text)': \(error.message)", at: at)
                ok = false
            }
        }
        return ok ? globs : nil
    }
}
