import JobrunCore

extension ManifestDecoder {
    /// One slice mapping. This is the hot path of a million-slice manifest: keys are compared as
    /// bytes, and strings are made only for values that are kept or reported.
    mutating func slice(_ node: YAMLNode) -> Slice? {
        guard doc.kind(node) == .mapping else {
            diagnostics.error("a slice must be a mapping with at least 'path', found \(doc.kindDescription(node))", at: location(node))
            return nil
        }
        var pathNode: YAMLNode?
        var urlNode: YAMLNode?
        var urlsNode: YAMLNode?
        var sizeNode: YAMLNode?
        var headersNode: YAMLNode?
        var refreshNode: YAMLNode?
        var digests: [Digest] = []
        var ok = true
        for pair in doc.pairs(node) {
            let key = pair.key
            if doc.scalar(key, equals: "path") {
                pathNode = pair.value
            } else if doc.scalar(key, equals: "size") {
                sizeNode = pair.value
            } else if doc.scalar(key, equals: "sha256") {
                if let d = digest(pair.value, .sha256) { digests.append(d) } else { ok = false }
            } else if doc.scalar(key, equals: "md5") {
                if let d = digest(pair.value, .md5) { digests.append(d) } else { ok = false }
            } else if doc.scalar(key, equals: "sha1") {
                if let d = digest(pair.value, .sha1) { digests.append(d) } else { ok = false }
            } else if doc.scalar(key, equals: "sha512") {
                if let d = digest(pair.value, .sha512) { digests.append(d) } else { ok = false }
            } else if doc.scalar(key, equals: "sha384") {
                if let d = digest(pair.value, .sha384) { digests.append(d) } else { ok = false }
            } else if doc.scalar(key, equals: "sha224") {
                if let d = digest(pair.value, .sha224) { digests.append(d) } else { ok = false }
            } else if doc.scalar(key, equals: "url") {
                urlNode = pair.value
            } else if doc.scalar(key, equals: "urls") {
                urlsNode = pair.value
            } else if doc.scalar(key, equals: "headers") {
                headersNode = pair.value
            } else if doc.scalar(key, equals: "refresh") {
                refreshNode = pair.value
            } else {
                let k = doc.scalar(key)
                diagnostics.error("unknown key '\(k)' in a slice\(Suggestions.didYouMean(k, in: Self.sliceKeys))", at: location(key))
                ok = false
            }
        }
        // A bad or missing path does not end the checks: the other fields' mistakes are reported too.
        var path = ""
        if let pathNode {
            if let rawPath = string(pathNode, "path") {
                switch PathRules.normalize(rawPath, allowEmpty: false, allowTrailingSlash: false) {
                case .success(let p): path = p
                case .failure(let problem):
                    reportPathProblem(problem, field: "slice path", value: rawPath, node: pathNode)
                    ok = false
                }
            } else {
                ok = false
            }
        } else {
            diagnostics.error("missing required key 'path' in a slice", at: location(node))
            ok = false
        }
        var size: Int64?
        if let sizeNode {
            if let n = byteCount(sizeNode, "size", in: 0...(1 << 50)) { size = n } else { ok = false }
        }
        var url: String?
        if let urlNode, let text = string(urlNode, "url") {
            if checkURL(text, node: urlNode, field: "url") != nil { url = text } else { ok = false }
        }
        var urls: [String] = []
        if let urlsNode {
            if let urlNode {
                diagnostics.error("give either 'url' or 'urls', not both", at: location(urlsNode), notes: [.note("'url' given here", at: location(urlNode))])
                ok = false
            } else if let list = sliceURLs(urlsNode) {
                urls = list
            } else {
                ok = false
            }
        }
        var sliceHeaders: [HeaderField] = []
        if let headersNode {
            if let h = headers(headersNode) { sliceHeaders = h } else { ok = false }
        }
        var refresh: RefreshPolicy?
        if let refreshNode {
            if let policy = refreshPolicy(refreshNode) { refresh = policy } else { ok = false }
            if let policy = refresh, policy.mode != .never, !digests.isEmpty {
                diagnostics.warning("'refresh' has no effect on a slice with a digest: the digest proves its file for good", at: location(refreshNode))
            }
        }
        if digests.count > 1 { digests.sort { $0.algorithm < $1.algorithm } }
        guard ok else { return nil }
        return Slice(path: path, url: url, urls: urls, size: size, digests: digests, headers: sliceHeaders, refresh: refresh, location: location(node))
    }

    /// A hex digest of the right length and alphabet for `algorithm`, any case.
    mutating func digest(_ node: YAMLNode, _ algorithm: DigestAlgorithm) -> Digest? {
        // The common case, straight from the document's bytes; the slow path below explains errors.
        if doc.kind(node) == .scalar, let bytes = doc.withScalarUTF8(node, { Digest.parseHex($0, byteCount: algorithm.byteCount) }) {
            return Digest(algorithm: algorithm, bytes: bytes)
        }
        guard let text = string(node, algorithm.rawValue, expected: "a hex digest") else { return nil }
        if let d = Digest(algorithm: algorithm, hex: text) { return d }
        if let bad = Digest.firstNonHex(in: text) {
            diagnostics.error(
                "\(algorithm.rawValue) digest contains '\(bad.character)', which is not a hex digit",
                at: location(node, offsetInScalar: text.utf8.count > 0 ? String(text.prefix(bad.offset)).utf8.count : 0))
        } else {
            let others = DigestAlgorithm.candidates(forHexLength: text.utf8.count).map(\.rawValue)
            let article = others.first?.hasPrefix("m") == true ? "an" : "a"
            let hint = others.isEmpty ? "" : " (that is the length of \(article) \(others.joined(separator: "/")) digest)"
            diagnostics.error("\(algorithm.rawValue) digest has \(text.utf8.count) hex digits; it needs \(algorithm.hexLength)\(hint)", at: location(node))
        }
        return nil
    }
}
