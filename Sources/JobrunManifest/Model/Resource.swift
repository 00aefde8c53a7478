public import JobrunCore

/// A resource: a named set of slices that land under one destination folder.
public struct Resource: Sendable {
    public var id: String
    /// Where the resource's `id` is written.
    public var location: SourceLocation
    /// The manifest file that declared it.
    public var manifestFile: String
    /// Where relative slice URLs are resolved, in the order they are tried (`base_urls`, or the
    /// one `base_url`); empty when every slice has its own URL.
    public var origins: [ResourceOrigin]
    /// The output root as a path relative to the current directory, or absolute.
    public var outputRoot: String
    /// Destination folder below the output root, normalised, `""` for the root itself.
    public var dest: String
    public var dependsOn: [Dependency]
    /// The algorithm `slices_from` lists are read with when given.
    public var checksum: DigestAlgorithm?
    public var settings: ResourceSettings
    public var slices: [Slice]
    /// The catalog fetched at each run that adds to ``slices`` (`slices_from: {url: …}`), until
    /// it has been read.
    public var catalog: CatalogSource?

    public init(
        id: String, location: SourceLocation, manifestFile: String, baseURL: String? = nil, origins: [ResourceOrigin] = [], outputRoot: String,
        dest: String, dependsOn: [Dependency], checksum: DigestAlgorithm?, settings: ResourceSettings, slices: [Slice]
    ) {
        self.id = id
        self.location = location
        self.manifestFile = manifestFile
        self.origins = baseURL.map { [ResourceOrigin(url: $0, location: location)] } ?? origins
        self.outputRoot = outputRoot
        self.dest = dest
        self.dependsOn = dependsOn
        self.checksum = checksum
        self.settings = settings
        self.slices = slices
    }

    /// The base of relative slice URLs at the first origin.
    public var baseURL: String? { origins.first?.url }

    public struct Dependency: Hashable, Sendable {
        public var id: String
        public var location: SourceLocation
    }

    /// `dest/path` below the output root.
    public func relativePath(of slice: Slice) -> String {
        dest.isEmpty ? slice.path : dest + "/" + slice.path
    }

    /// Where the resource's files go, as the user would type it: `output/dest`.
    public var folderPath: String {
        dest.isEmpty ? outputRoot : (outputRoot == "." ? dest : outputRoot + "/" + dest)
    }

    /// Where a slice's file is, as the user would type it: `output/dest/path`.
    public func filePath(of slice: Slice) -> String {
        outputRoot == "." ? relativePath(of: slice) : outputRoot + "/" + relativePath(of: slice)
    }

    /// How many URLs a slice may be fetched from: its own (`url`/`urls`), or one per origin.
    public func urlCount(of slice: Slice) -> Int {
        let own = slice.ownURLCount
        return own > 0 ? own : max(1, origins.count)
    }

    /// The URL a slice is fetched from first, or at its `k`-th origin (``urlCount(of:)``).
    public func url(of slice: Slice, at k: Int = 0) -> String {
        if let own = slice.ownURL(at: k) { return own }
        let base = origins.isEmpty ? "" : origins[min(k, origins.count - 1)].url
        return base + ParsedURL.percentEncodePath(slice.path)
    }

    /// The slice's identity at its first URL: `scheme://host[:port]/path`, query and fragment dropped.
    public func identity(of slice: Slice) -> String {
        let url = url(of: slice)
        switch ParsedURL.parse(url) {
        case .success(let parsed): return parsed.identity
        case .failure: return url
        }
    }

    /// Bytes declared by all slices that declare a size.
    public var declaredBytes: Int64 { slices.reduce(0) { $0 + ($1.size ?? 0) } }
}

/// One file of a resource.
public struct Slice: Sendable {
    /// Relative path below the resource's destination, normalised.
    public var path: String
    /// Expected digests, sorted by algorithm, at most one per algorithm.
    public var digests: [Digest]
    public var location: SourceLocation
    /// `-1` for none: an optional would take eight bytes more, for each of a million slices.
    private var sizeOrNone: Int64
    /// The URLs and headers of the few slices that have their own, boxed: one word a slice.
    private var own: Own?

    private final class Own: Sendable {
        let url: String?
        /// The URLs after the first (`urls`): an empty array allocates nothing.
        let others: [String]
        let headers: [HeaderField]
        let refresh: RefreshPolicy?
        init?(urls: [String], headers: [HeaderField], refresh: RefreshPolicy?) {
            guard !urls.isEmpty || !headers.isEmpty || refresh != nil else { return nil }
            self.url = urls.first
            self.others = Array(urls.dropFirst())
            self.headers = headers
            self.refresh = refresh
        }
    }

    /// A slice fetched from `url` (else from its resource's origins), or from `urls` in order.
    public init(
        path: String, url: String? = nil, urls: [String] = [], size: Int64? = nil, digests: [Digest] = [], headers: [HeaderField] = [],
        refresh: RefreshPolicy? = nil, location: SourceLocation
    ) {
        self.path = path
        self.sizeOrNone = size ?? -1
        self.digests = digests
        self.location = location
        self.own = Own(urls: url.map { [$0] } ?? urls, headers: headers, refresh: refresh)
    }

    /// The first absolute URL when the manifest gives the slice its own (`url`, or `urls`);
    /// otherwise the URL is the resource's base plus the path.
    public var url: String? {
        get { own?.url }
        set { own = Own(urls: newValue.map { [$0] + urls.dropFirst() } ?? [], headers: headers, refresh: refresh) }
    }

    /// The slice's own URLs in the order they are tried (`urls`, or the one `url`); empty when
    /// it goes by its resource's origins.
    public var urls: [String] {
        get {
            guard let own, let first = own.url else { return [] }
            return [first] + own.others
        }
        set { own = Own(urls: newValue, headers: headers, refresh: refresh) }
    }

    /// How many URLs of its own the slice has (``urls``' count, without making the list): 0 when
    /// it goes by its resource's origins.
    public var ownURLCount: Int {
        guard let own, own.url != nil else { return 0 }
        return 1 + own.others.count
    }

    /// Its own `k`-th URL (the last for a larger `k`), when it has its own.
    public func ownURL(at k: Int) -> String? {
        guard let own, let first = own.url else { return nil }
        return k == 0 || own.others.isEmpty ? first : own.others[min(k, own.others.count) - 1]
    }

    /// Headers of this slice only (merged over the resource's by ``Resource/headers(for:)``).
    public var headers: [HeaderField] {
        get { own?.headers ?? [] }
        set { own = Own(urls: urls, headers: newValue, refresh: refresh) }
    }

    /// The slice's own `refresh:`, over its resource's (``Resource/refresh(of:)``).
    public var refresh: RefreshPolicy? {
        get { own?.refresh }
        set { own = Own(urls: urls, headers: headers, refresh: newValue) }
    }

    /// The declared size in bytes (never negative), if any.
    public var size: Int64? {
        get { sizeOrNone < 0 ? nil : sizeOrNone }
        set { sizeOrNone = newValue.map { max(0, $0) } ?? -1 }
    }
}

extension Resource {
    /// Whether and when `slice` is asked of its origin again: its own `refresh:`, else the
    /// resource's; never for a slice with a digest.
    public func refresh(of slice: Slice) -> RefreshPolicy {
        let policy = slice.refresh ?? settings.refresh
        return policy.applies(toDigests: slice.digests) ? policy : .never
    }

    /// The headers sent for a slice at its `k`-th URL (``url(of:at:)``): the resource's,
    /// overridden by the slice's, overridden by those of the origin (`base_urls`) it goes to, by
    /// name, case-insensitively.
    public func headers(for slice: Slice, at k: Int = 0) -> [HeaderField] {
        let own = slice.headers
        let merged = own.isEmpty ? settings.headers : HeaderField.merge(settings.headers, over: own)
        guard slice.url == nil, !origins.isEmpty else { return merged }
        let atOrigin = origins[min(k, origins.count - 1)].headers
        return atOrigin.isEmpty ? merged : HeaderField.merge(merged, over: atOrigin)
    }
}

extension HeaderField {
    /// `base` with `overrides` replacing same-named fields (case-insensitive); sorted by lower-cased name.
    public static func merge(_ base: [HeaderField], over overrides: [HeaderField]) -> [HeaderField] {
        var byName: [String: HeaderField] = [:]
        for h in base { byName[h.name.lowercased()] = h }
        for h in overrides { byName[h.name.lowercased()] = h }
        return byName.sorted { $0.key < $1.key }.map(\.value)
    }
}

/// Every resource of every loaded manifest file, validated.
public struct Manifest: Sendable {
    public var files: [ManifestFile]
    /// Every `slices_from` checksum list read, once each, sorted by path: with ``files``, every
    /// input the manifest was made from (a saved plan records them all).
    public var sliceLists: [ManifestFile] = []
    /// Resources in load order (files in the order given, then document order).
    public var resources: [Resource]
    /// What `--resource` selected, `nil` when every resource is (see ``selecting(ids:)``).
    public var selection: ResourceSelection?
    /// What `--shard` kept, `nil` when the run is not one of several shards (``sharding(_:)``).
    public var shard: ShardSelection?

    /// Some resource or slice the manifests declare is left out (`--resource`, `--shard`): what a
    /// run proves or finds is not the whole mirror's.
    public var isPartial: Bool { selection != nil || shard != nil }

    public var sliceCount: Int { resources.reduce(0) { $0 + $1.slices.count } }
}

/// A file as loaded: a manifest, or a `slices_from` list one names.
public struct ManifestFile: Hashable, Sendable {
    public var path: String
    public var byteCount: Int
    /// A fingerprint of the content (hex SHA-256 when the loader was given a hasher), for saved plans.
    public var fingerprint: String?
}
