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

    public func admits(_ url: ParsedURL) -> Bool {
        origins.contains(url.origin) || hosts.contains { $0.matches(url.host.lowercased()) }
    }
}
