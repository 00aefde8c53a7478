public import JobrunCore
public import JobrunManifest

/// What ``CatalogResolver`` made of a manifest's catalogs.
public struct CatalogResolution: Sendable {
    /// The manifest with every trusted catalog's slices in its resource, without the refused
    /// resources.
    public var manifest: Manifest
    /// One per resource with a catalog, in the manifest's order (those refused for a dependency
    /// after them).
    public var reports: [CatalogReport] = []
    /// Why each refused resource was, located in the catalog, its signature or the manifest.
    public var diagnostics: [Diagnostic] = []
    /// The catalogs and signatures read, by the names ``diagnostics`` locate lines with.
    public var sources: [(name: String, bytes: [UInt8])] = []
    /// Catalogs fetched anew, to keep (``keep()``) once the output root is the run's own.
    public var updates: [Update] = []

    public struct Update: Sendable {
        public var resourceID: String
        var cache: CatalogCache
        var copy: CatalogCache.Copy
        /// A Debian repository's indexes, by their SHA-256.
        var indexes: [(sha256: Digest, bytes: [UInt8])] = []
        /// The slices the copy yields, and the key they are kept under.
        var slices: [Slice] = []
        var readingKey = ""
    }

    init(manifest: Manifest) { self.manifest = manifest }

    public var refusedCount: Int { reports.count { $0.state == .refused } }

    /// The resources refused, by id, in the order they were.
    public var refusedResources: [String] { reports.filter { $0.state == .refused }.map(\.resource) }

    /// Keeps each catalog fetched anew, with its signature and validators, for the next run's
    /// conditional request and for `verify` and `status`; one that cannot be kept is a warning
    /// (the next run fetches it whole again).
    public func keep() -> [String] {
        var warnings: [String] = []
        for update in updates {
            do {
                try update.cache.write(update.copy)
                if !update.indexes.isEmpty { try update.cache.writeIndexes(update.indexes) }
                try update.cache.writeSlices(update.slices, key: update.readingKey)
            } catch {
                warnings.append(
                    "the catalog of resource '\(update.resourceID)' could not be kept in '\(update.cache.folder)': \(error); the next run fetches it whole")
            }
        }
        return warnings
    }
}
