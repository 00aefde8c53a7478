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
        return trustedOrigins(origins).contains(parsed.origin) ? nil : AddressRule(allowed: allowedAddresses)
    }

    /// The origins the manifest names for this catalog: the resource's (`origins`) and, for a
    /// fetched catalog, its own.
    public func trustedOrigins(_ origins: [ResourceOrigin]) -> Set<String> {
        var trusted = CatalogAllowance.origins(of: origins)
        if let own = try? ParsedURL.parse(url).get().origin { trusted.insert(own) }
        return trusted
    }

    /// The addresses and ranges `allow:` names.
    public var allowedAddresses: [AddressRange] { allow.compactMap { AddressRange($0.pattern) } }
}

extension CatalogAllowance {
    /// The origins (`scheme://host[:port]`) of a resource's `base_url`s.
    public static func origins(of origins: [ResourceOrigin]) -> Set<String> {
        Set(origins.compactMap { try? ParsedURL.parse($0.url).get().origin })
    }
}
