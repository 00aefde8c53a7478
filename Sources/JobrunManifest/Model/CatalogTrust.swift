public import JobrunCore
public import JobrunTrust

/// A catalog's signature: the key it must verify with and where its detached signature is.
public struct CatalogTrust: Sendable {
    public var key: SignatureKey
    /// Absolute: `signature:` resolved against the catalog's URL, or the catalog's URL with
    /// `.minisig` (minisign) or `.sig` (signify), as the tools name it.
    public var signatureURL: String
    /// Where the key is given.
    public var location: SourceLocation

    public init(key: SignatureKey, signatureURL: String, location: SourceLocation) {
        self.key = key
        self.signatureURL = signatureURL
        self.location = location
    }
}
