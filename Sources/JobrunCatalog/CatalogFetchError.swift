/// Why a catalog could not be fetched.
public struct CatalogFetchError: Error, Sendable, Hashable {
    public var message: String
    /// The same request may well succeed later.
    public var isTransient: Bool
    /// The origin says it has no such file (404, 410).
    public var isAbsent = false

    public init(_ message: String, isTransient: Bool) {
        self.message = message
        self.isTransient = isTransient
    }
}
