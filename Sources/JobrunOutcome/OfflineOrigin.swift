/// An origin found unreachable when the run went offline, with its last failure
/// (`network_offline` lists them).
public struct OfflineOrigin: Sendable, Hashable {
    public var origin: String
    public var failure: AttemptFailure

    public init(origin: String, failure: AttemptFailure) {
        self.origin = origin
        self.failure = failure
    }
}
