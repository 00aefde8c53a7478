public import JobrunCore

/// One origin of a resource (an entry of `base_urls`, or its `base_url`): the base its slices'
/// relative URLs are resolved against, and the headers sent to it only.
public struct ResourceOrigin: Hashable, Sendable {
    /// The base URL, ending with `/` in any sensible manifest.
    public var url: String
    /// Headers for this origin only (``HeaderField/staysAtOrigin``), merged over the resource's.
    public var headers: [HeaderField]
    /// Its own `per_host` (slots at once at this origin), over the resource's `concurrency.per_host`.
    public var perHost: Int?
    /// Its share of the requests in flight when slices spread over the resource's origins,
    /// against the others' (1 unless given; 0: a standby that takes slices only by failover).
    public var weight: Int
    /// Where the entry is written.
    public var location: SourceLocation

    public init(url: String, headers: [HeaderField] = [], perHost: Int? = nil, weight: Int = 1, location: SourceLocation) {
        self.url = url
        self.headers = headers
        self.perHost = perHost
        self.weight = weight
        self.location = location
    }
}
