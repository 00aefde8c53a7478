/// The formats `slices_from`'s `format:` takes.
public enum CatalogFormat: String, CaseIterable, Sendable {
    /// GNU lines and BSD tags of the six digests.
    case sha256sum
    /// An HLS playlist: the files its URIs name.
    case hls
    /// A Debian repository: `InRelease`, the `Packages` indexes it lists, and their pool files.
    case debian
    /// A Metalink 4 document (RFC 5854): files with their sizes, hashes and URLs.
    case metalink
}
