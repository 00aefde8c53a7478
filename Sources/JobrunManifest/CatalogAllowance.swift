public import JobrunCore

/// Where URLs a catalog yields may lead: the catalog's own origin, the resource's origins, and
/// the hosts `allow:` names (patterns: `mirror.example.org`, `*.example.net`).
public struct CatalogAllowance: Sendable {
    public var origins: Set<String>
    public var hosts: [PathGlob]

    public init(origins: Set<String>, hosts: [PathGlob]) {
        self.origins = origins
        self.hosts = hosts
    }

    /// At one of the origins, at a host a pattern matches, or at an address (`http://10.1.2.3/`)
    /// in a range `allow:` names (`10.0.0.0/8`).
    public func admits(_ url: ParsedURL) -> Bool {
        if origins.contains(url.origin) { return true }
        let host = url.host.lowercased()
        if hosts.contains(where: { $0.matches(host) }) { return true }
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        guard let address = AddressRange.parse(bare) else { return false }
        return hosts.contains { AddressRange($0.pattern)?.contains(address) == true }
    }
}

extension CatalogSource {
    /// The addresses a request to `url` may reach: every address for the catalog's own origin and
    /// the resource's (`origins`), which the manifest names; public ones only elsewhere (a host a
    /// catalog led to, a redirect away), unless `allow:` names the address or its range.
    public func addressRule(for url: String, origins: [ResourceOrigin]) -> AddressRule? {
        guard case .success(let parsed) = ParsedURL.parse(url) else { return AddressRule(allowed: []) }
        if (try? ParsedURL.parse(self.url).get().origin) == parsed.origin { return nil }
        if origins.contains(where: { (try? ParsedURL.parse($0.url).get().origin) == parsed.origin }) { return nil }
        return AddressRule(allowed: allow.compactMap { AddressRange($0.pattern) })
    }
}
