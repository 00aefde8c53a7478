import JobrunCore
import JobrunManifest

/// A slice's URL, identity and origin, worked out once per run. Slices under a `base_url` that
/// ends with `/` (the usual case) share its parse: their identity is the base's plus the encoded
/// path, since the encoded path holds no `?` or `#`.
struct SliceAddress {
    let url: String
    let identity: String
    let origin: String

    /// What the slices of one resource share.
    struct Base {
        let url: String
        let identityPrefix: String
        let origin: String

        init?(_ resource: Resource) {
            guard let base = resource.baseURL, base.hasSuffix("/"), case .success(let parsed) = ParsedURL.parse(base),
                parsed.query == nil, parsed.fragment == nil, parsed.path.hasSuffix("/")
            else { return nil }
            url = base
            identityPrefix = parsed.identity
            origin = parsed.origin
        }
    }

    init(_ slice: Slice, of resource: Resource, base: Base?) {
        if slice.url == nil, let base {
            let path = ParsedURL.percentEncodePath(slice.path)
            url = base.url + path
            identity = base.identityPrefix + path
            origin = base.origin
            return
        }
        let url = resource.url(of: slice)
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
