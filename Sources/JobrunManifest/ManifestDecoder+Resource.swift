import JobrunCore

extension ManifestDecoder {
    static func idAlphabet(_ c: UInt8) -> Bool {
        (c >= UInt8(ascii: "a") && c <= UInt8(ascii: "z")) || (c >= UInt8(ascii: "A") && c <= UInt8(ascii: "Z"))
            || (c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9")) || c == UInt8(ascii: ".") || c == UInt8(ascii: "_")
            || c == UInt8(ascii: "-")
    }

    mutating func resource(_ node: YAMLNode, defaults: ResourceSettings, outputRoot: String) -> Resource? {
        guard requireMapping(node, "a resource") else { return nil }
        checkKeys(node, allowed: Self.resourceKeys, in: "a resource")
        let errorsBefore = diagnostics.errorCount

        var id = ""
        var idLocation = location(node)
        if let n = doc.value(forKey: "id", in: node) {
            idLocation = location(n)
            if let text = string(n, "id") {
                if text.isEmpty {
                    diagnostics.error("resource id is empty; it names the resource's folder, reports and mirror state", at: idLocation)
                } else if !text.utf8.allSatisfy(Self.idAlphabet) {
                    if isFreeOfDeceptiveCharacters(text, node: n, field: "resource id") {
                        diagnostics.error("resource id '\(text)' may contain only ASCII letters and digits, '.', '_' and '-'", at: idLocation)
                    }
                } else if text == "." || text == ".." {
                    diagnostics.error("resource id '\(text)' is reserved", at: idLocation)
                } else {
                    id = text
                }
            }
        } else {
            diagnostics.error("missing required key 'id' in a resource", at: location(node))
        }

        var settings = defaults
        readSettings(from: node, into: &settings, scope: .resource(id: id))
        noteNetworkDefaultsUse(resource: node, policy: settings.network)

        var checksum: DigestAlgorithm?
        if let n = doc.value(forKey: "checksum", in: node), let text = string(n, "checksum") {
            if let a = DigestAlgorithm(rawValue: text.lowercased()) {
                checksum = a
            } else {
                diagnostics.error(
                    "unknown checksum algorithm '\(text)'\(Suggestions.didYouMean(text, in: DigestAlgorithm.allCases.map(\.rawValue))); use md5, sha1, sha224, sha256, sha384 or sha512",
                    at: location(n))
            }
        }

        let origins = origins(of: node)

        var dest = id
        if let n = doc.value(forKey: "dest", in: node), let text = doc.isNull(n) ? "" : string(n, "dest") {
            switch PathRules.normalize(text, allowEmpty: true, allowTrailingSlash: true) {
            case .success(let d): dest = d
            case .failure(let p): reportPathProblem(p, field: "'dest'", value: text, node: n)
            }
        }

        var dependsOn: [Resource.Dependency] = []
        if let n = doc.value(forKey: "depends_on", in: node), !doc.isNull(n), requireSequence(n, "'depends_on'") {
            for item in doc.items(n) {
                if let other = string(item, "depends_on"), isFreeOfDeceptiveCharacters(other, node: item, field: "'depends_on'") {
                    dependsOn.append(.init(id: other, location: location(item)))
                }
            }
        }

        var slices: [Slice] = []
        var slicesHaveErrors = false
        let slicesNode = doc.value(forKey: "slices", in: node)
        if let n = slicesNode, !doc.isNull(n), requireSequence(n, "'slices'") {
            if let k = doc.collapsedList(n), sliceLists.indices.contains(k) {
                // Decoded as the parser read them: shared with the list, not copied.
                slices = sliceLists[k].slices
                slicesHaveErrors = sliceLists[k].hasErrors
            } else {
                slices.reserveCapacity(doc.count(n))
                for item in doc.items(n) {
                    if let s = slice(item) { slices.append(s) }
                }
            }
        }
        let fromNode = doc.value(forKey: "slices_from", in: node)
        var catalog: CatalogSource?
        if let n = fromNode, let source = sliceSource(n, origins: origins ?? []) {
            switch source.place {
            case .file(let path) where source.keyring != nil:
                catalog = localCatalog(source, path: path, algorithm: checksum)
            case .file(let path):
                let listed = checksumList(
                    path, node: source.placeNode, algorithm: checksum, trust: source.trust, format: source.format, origins: origins ?? [], allow: source.allow)
                let kept = source.include.isEmpty && source.exclude.isEmpty ? listed : listed.filter { source.keeps($0.path) }
                if kept.isEmpty, !listed.isEmpty {
                    diagnostics.error("'include' and 'exclude' keep none of the \(listed.count) slices '\(path)' lists", at: location(n))
                }
                slices.append(contentsOf: kept)
            case .url(let url):
                catalog = self.catalog(source, url: url, algorithm: checksum)
            }
        }
        if slicesNode == nil && fromNode == nil {
            diagnostics.error("resource '\(id)' has no 'slices' and no 'slices_from'", at: idLocation)
        } else if slices.isEmpty && catalog == nil && diagnostics.errorCount == errorsBefore && !slicesHaveErrors {
            diagnostics.error("resource '\(id)' has no slices", at: idLocation)
        }
        if origins == nil && doc.value(forKey: "base_url", in: node) == nil && doc.value(forKey: "base_urls", in: node) == nil {
            if let first = slices.first(where: { $0.url == nil }) {
                diagnostics.error("slice '\(first.path)' has no 'url' and its resource has no 'base_url' or 'base_urls'", at: first.location)
            }
        }

        noteSecretsOverOrigins(origins ?? [], headers: settings.headers, slices: slices, at: doc.value(forKey: "base_urls", in: node))
        var resource = Resource(
            id: id, location: idLocation, manifestFile: file, origins: origins ?? [], outputRoot: outputRoot, dest: dest,
            dependsOn: dependsOn, checksum: checksum, settings: settings, slices: slices)
        resource.catalog = catalog
        return resource
    }

    /// Validates a URL: http or https (file only when allowed), no user-info, no control or other
    /// deceptive characters. Those past ASCII are looked for once the URL parses, after user-info
    /// has been found and its quoted line redacted.
    mutating func checkURL(_ text: String, node: YAMLNode, field: String) -> ParsedURL? {
        switch ParsedURL.parse(text) {
        case .success(let url):
            guard isFreeOfDeceptiveCharacters(text, node: node, field: "'\(field)'") else { return nil }
            switch url.scheme {
            case "http", "https":
                return url
            case "file":
                if options.allowFileURLs {
                    if !url.host.isEmpty && url.host != "localhost" {
                        diagnostics.error("'\(field)' names a file on another host ('\(url.host)')", at: location(node))
                        return nil
                    }
                    return url
                }
                diagnostics.error("'\(field)' is a file URL; file URLs are read only with --allow-file-urls", at: location(node))
                return nil
            default:
                diagnostics.error("'\(field)' uses the scheme '\(url.scheme)'; only http and https are allowed", at: location(node))
                return nil
            }
        case .failure(let error):
            switch error {
            case .missingScheme, .missingAuthority:
                diagnostics.error("'\(field)' is not an absolute URL (scheme://host/path)", at: location(node))
            case .controlCharacter:
                // Named and located as in any other name; there is one to report.
                _ = isFreeOfDeceptiveCharacters(text, node: node, field: "'\(field)'")
            case .whitespace(let offset):
                diagnostics.error("'\(field)' contains a space; encode it as %20", at: location(node, offsetInScalar: offset))
            case .userInfo:
                if let afterScheme = text.firstRange(of: "://"), let at = text[afterScheme.upperBound...].firstIndex(of: "@") {
                    secretLiterals.insert(String(text[afterScheme.upperBound..<at]))
                }
                diagnostics.error(
                    "'\(field)' contains user information ('user@' or 'user:password@'); put credentials in a header with ${VAR}", at: location(node))
            case .emptyHost:
                diagnostics.error("'\(field)' has no host", at: location(node))
            case .invalidHost(let h):
                diagnostics.error("'\(field)' has an invalid host '\(h)'", at: location(node))
            case .invalidPort(let p):
                diagnostics.error("'\(field)' has an invalid port '\(p)' (allowed: 1…65535)", at: location(node))
            }
            return nil
        }
    }
}
