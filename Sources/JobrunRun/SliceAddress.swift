import JobrunCore
import JobrunManifest

/// A slice's URL, identity and origin at one of its URLs. Slices under a base URL that ends with
/// `/` (the usual case) share its parse, worked out once per run: their identity is the base's
/// plus the encoded path, since the encoded path holds no `?` or `#`.
struct SliceAddress {
    let url: String
    let identity: String
    let origin: String

    /// What the slices of one resource share at one of its origins.
    struct Base {
        let url: String
        let identityPrefix: String
        let origin: String

        /// The bases of each of `resource`'s origins, in order.
        static func all(_ resource: Resource) -> [Base?] {
            resource.origins.map { Base($0.url) }
        }

        init?(_ base: String) {
            guard base.hasSuffix("/"), case .success(let parsed) = ParsedURL.parse(base),
                parsed.query == nil, parsed.fragment == nil, parsed.path.hasSuffix("/")
            else { return nil }
            url = base
            identityPrefix = parsed.identity
            origin = parsed.origin
        }
    }

    /// The address of `slice` at its `k`-th URL (``Resource/url(of:at:)``), `base` being that
    /// origin's when the slice goes by its resource's origins.
    init(_ slice: Slice, of resource: Resource, base: Base?, at k: Int = 0) {
        if slice.url == nil, let base {
            let path = ParsedURL.percentEncodePath(slice.path)
            url = base.url + path
            identity = base.identityPrefix + path
            origin = base.origin
            return
        }
        let url = resource.url(of: slice, at: k)
        self.url = url
        switch ParsedURL.parse(url) {
        case .success(let parsed):
            identity = parsed.identity
            origin = parsed.origin
        case .failure:
            identity = url
            origin = url
        }
    }
}
