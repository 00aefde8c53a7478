public import JobrunCore

/// A catalog a resource's slices come from that is read at each run, not with the manifest: fetched
/// (`slices_from: {url: …}`), or a local list whose OpenPGP signature `gpgv` must verify
/// (`slices_from: {path: …, keyring: …}`). Where it is, how it is read, which of its slices are
/// kept, and the key it must be signed with.
public struct CatalogSource: Sendable {
    /// Absolute: `url:` as written, or resolved against the resource's first origin; for a local
    /// list (``isLocal``), its path.
    public var url: String
    /// A file read at each run (`path:`), not fetched: ``url`` and ``openPGPSignatureURL`` are paths.
    public var isLocal = false
    public var format: CatalogFormat
    public var include: [PathGlob]
    public var exclude: [PathGlob]
    /// The key and detached signature the catalog must verify with, when it must.
    public var trust: CatalogTrust?
    /// The algorithm a `sha256sum` list's bare hex digests are read as (the resource's `checksum`).
    public var algorithm: DigestAlgorithm?
    /// Where `url:` is written.
    public var location: SourceLocation
    /// Hosts beyond the catalog's origin and the resource's that URLs it yields may lead to (`allow:`).
    public var allow: [PathGlob] = []
    /// For `format: debian`: the suite, components and architectures mirrored.
    public var debian: DebianSelection?
    /// The OpenPGP keyring `InRelease` (`format: debian`), or the detached signature at
    /// ``openPGPSignatureURL``, must verify with (absolute, or relative to the current directory).
    public var keyring: String?
    /// A list's detached OpenPGP signature (a path for a local list).
    public var openPGPSignatureURL: String?

    /// The detached signature fetched with the catalog, of whichever kind.
    public var signatureURL: String? { trust?.signatureURL ?? openPGPSignatureURL }

    public init(
        url: String, format: CatalogFormat, include: [PathGlob] = [], exclude: [PathGlob] = [], trust: CatalogTrust? = nil,
        algorithm: DigestAlgorithm? = nil, location: SourceLocation
    ) {
        self.url = url
        self.format = format
        self.include = include
        self.exclude = exclude
        self.trust = trust
        self.algorithm = algorithm
        self.location = location
    }

    /// Kept: selected by an `include` pattern (any, when there is none) and by no `exclude` one.
    public func keeps(_ path: String) -> Bool {
        (include.isEmpty || include.contains { $0.matches(path) }) && !exclude.contains { $0.matches(path) }
    }
}
