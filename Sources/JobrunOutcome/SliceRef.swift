/// Which slice an event is about, as it may be shown (no query, no secret).
public struct SliceRef: Sendable, Hashable {
    public var resource: String
    public var path: String
    /// The URL last used, without query and fragment.
    public var url: String

    public init(resource: String, path: String, url: String) {
        self.resource = resource
        self.path = path
        self.url = url
    }
}
