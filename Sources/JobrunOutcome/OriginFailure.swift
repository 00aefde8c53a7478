/// A failed attempt of a slice with several URLs (`base_urls`, a slice's `urls`): where it went,
/// as shown (no query), and how it failed. A slice's outcome lists them in order.
public struct OriginFailure: Sendable, Hashable {
    public var url: String
    public var failure: AttemptFailure

    public init(url: String, failure: AttemptFailure) {
        self.url = url
        self.failure = failure
    }
}
