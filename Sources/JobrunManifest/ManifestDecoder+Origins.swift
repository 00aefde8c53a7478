import JobrunCore

/// A resource's origins: `base_url` (one) or `base_urls` (several, tried in order), each held to
/// every rule of a base URL, and a slice's own `urls`.
extension ManifestDecoder {
    static let originKeys = ["url", "headers", "per_host", "weight"]
    /// The most URLs a slice may be tried at (the run keeps which it tried in 64 bits).
    static let maximumURLs = 64

    /// The origins `node` (a resource) declares; `nil` when it declares none, or when what it
    /// declares is wrong (reported).
    mutating func origins(of node: YAMLNode) -> [ResourceOrigin]? {
        let single = doc.value(forKey: "base_url", in: node)
        let list = doc.value(forKey: "base_urls", in: node)
        if let single, let list {
            diagnostics.error(
                "give either 'base_url' or 'base_urls', not both", at: location(list),
                notes: [.note("'base_url' given here", at: location(single))])
            return nil
        }
        if let single {
            guard let text = string(single, "base_url"), let url = baseURL(text, node: single, field: "base_url") else { return nil }
            return [ResourceOrigin(url: url, location: location(single))]
        }
        guard let list, isListOfURLs(list, "base_urls", each: "origin") else { return nil }
        var origins: [ResourceOrigin] = []
        var ok = true
        var byURL: [String: SourceLocation] = [:]
        var byOrigin: [String: SourceLocation] = [:]
        for (i, item) in doc.items(list).enumerated() {
            guard let origin = origin(item, index: i) else {
                ok = false
                continue
            }
            if let first = byURL[origin.url] {
                diagnostics.error("base_urls[\(i)] repeats '\(origin.url)'", at: origin.location, notes: [.note("first given here", at: first)])
                ok = false
                continue
            }
            byURL[origin.url] = origin.location
            if case .success(let parsed) = ParsedURL.parse(origin.url) {
                if let first = byOrigin[parsed.origin] {
                    diagnostics.warning(
                        "base_urls[\(i)] is at \(parsed.origin) like an earlier entry; they share one breaker and one limit, and fail over to each other only for what the origin answers",
                        at: origin.location, notes: [.note("the earlier entry", at: first)])
                } else {
                    byOrigin[parsed.origin] = origin.location
                }
            }
            origins.append(origin)
        }
        return ok ? origins : nil
    }

    /// One entry of `base_urls`: a URL, or a mapping with `url` and `headers`.
    private mutating func origin(_ item: YAMLNode, index i: Int) -> ResourceOrigin? {
        let field = "base_urls[\(i)]"
        if doc.kind(item) != .mapping {
            guard let text = string(item, field, expected: "a URL or a mapping with 'url'"), let url = baseURL(text, node: item, field: field) else {
                return nil
            }
            return ResourceOrigin(url: url, location: location(item))
        }
        checkKeys(item, allowed: Self.originKeys, in: "an origin of 'base_urls'")
        var headers: [HeaderField] = []
        var ok = true
        if let h = doc.value(forKey: "headers", in: item) {
            if let fields = self.headers(h) {
                headers = fields.map { HeaderField(name: $0.name, value: $0.value, isSecret: $0.isSecret, staysAtOrigin: true) }
            } else {
                ok = false
            }
        }
        var weight = 1
        if let n = doc.value(forKey: "weight", in: item) {
            if let v = integer(n, "\(field).weight", in: 0...1000) { weight = Int(v) } else { ok = false }
        }
        var perHost: Int?
        if let n = doc.value(forKey: "per_host", in: item) {
            if let v = integer(n, "\(field).per_host", in: ConcurrencyLimits.perHostRange) { perHost = Int(v) } else { ok = false }
        }
        guard let n = doc.value(forKey: "url", in: item) else {

            diagnostics.error("missing required key 'url' in an origin of 'base_urls'", at: location(item))
            return nil
        }
        guard let text = string(n, "\(field).url"), let url = baseURL(text, node: n, field: "\(field).url"), ok else { return nil }
        return ResourceOrigin(url: url, headers: headers, perHost: perHost, weight: weight, location: location(n))
    }

    /// A base URL's text, held to ``checkURL(_:node:field:)`` and more: no query or fragment, a
    /// warning without a trailing `/`.
    private mutating func baseURL(_ text: String, node: YAMLNode, field: String) -> String? {
        guard let parsed = checkURL(text, node: node, field: field) else { return nil }
        if parsed.query != nil || parsed.fragment != nil {
            diagnostics.error("'\(field)' must not have a query or fragment; give signed URLs per slice with 'url'", at: location(node))
            return nil
        }
        if !text.hasSuffix("/") {
            diagnostics.warning("'\(field)' does not end with '/'; slice paths are appended to it as they are", at: location(node))
        }
        return text
    }

    /// Whether `node` (`field`) is a list of one to ``maximumURLs`` entries, each an `each`.
    private mutating func isListOfURLs(_ node: YAMLNode, _ field: String, each: String) -> Bool {
        guard requireSequence(node, "'\(field)'") else { return false }
        let count = doc.count(node)
        if count == 0 {
            diagnostics.error("'\(field)' is empty; give at least one \(each)", at: location(node))
        } else if count > Self.maximumURLs {
            diagnostics.error("'\(field)' has \(count) entries; at most \(Self.maximumURLs) are allowed", at: location(node))
        }
        return (1...Self.maximumURLs).contains(count)
    }

    /// A slice's `urls`: one or more URLs, tried in order, none repeated.
    mutating func sliceURLs(_ node: YAMLNode) -> [String]? {
        guard isListOfURLs(node, "urls", each: "URL") else { return nil }
        var urls: [String] = []
        var seen: [String: SourceLocation] = [:]
        var ok = true
        for (i, item) in doc.items(node).enumerated() {
            guard let text = string(item, "urls[\(i)]", expected: "a URL"), checkURL(text, node: item, field: "urls[\(i)]") != nil else {
                ok = false
                continue
            }
            if let first = seen[text] {
                diagnostics.error("urls[\(i)] repeats '\(text)'", at: location(item), notes: [.note("first given here", at: first)])
                ok = false
                continue
            }
            seen[text] = location(item)
            urls.append(text)
        }
        return ok ? urls : nil
    }

    /// Warns when credentials go to every one of several hosts: the resource's over its origins
    /// (at `base_urls`), and, at the first such slice, a slice's own over its resource's origins,
    /// or the resource's or its own over its `urls`.
    mutating func noteSecretsOverOrigins(_ origins: [ResourceOrigin], headers: [HeaderField], slices: [Slice], at node: YAMLNode?) {
        let hosts = Set(origins.compactMap { try? ParsedURL.parse($0.url).get().origin })
        let resourceSecret = headers.first(where: \.isSecret)
        if hosts.count > 1, let secret = resourceSecret, let node {
            diagnostics.warning(
                "header '\(secret.name)' is secret and given for the whole resource: it goes to each of its \(hosts.count) origins; give it under the origin it belongs to ('base_urls' entries take 'headers')",
                at: location(node))
        }
        for slice in slices where slice.ownURLCount > 1 || (hosts.count > 1 && !slice.headers.isEmpty) {
            let own = slice.headers.first(where: \.isSecret)
            if slice.ownURLCount > 1 {
                guard let secret = own ?? resourceSecret else { continue }
                let urlHosts = Set(slice.urls.compactMap { try? ParsedURL.parse($0).get().origin })
                guard urlHosts.count > 1 else { continue }
                diagnostics.warning(
                    "header '\(secret.name)' is secret and goes to each of the \(urlHosts.count) hosts of slice '\(slice.path)''s 'urls'", at: slice.location)
                return
            } else if let secret = own, slice.url == nil {
                diagnostics.warning(
                    "header '\(secret.name)' of slice '\(slice.path)' is secret: it goes to each of its resource's \(hosts.count) origins; give it under the origin it belongs to",
                    at: slice.location)
                return
            }
        }
    }
}
