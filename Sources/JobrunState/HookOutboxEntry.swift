/// A hook recorded as due in a root's outbox (`hook_outbox`): written before the hook runs,
/// marked delivered once it has run, so that one due when jobrun died runs on the next apply.
public struct HookOutboxEntry: Sendable, Hashable {
    public var id: Int64
    /// The run whose event it delivers.
    public var runID: String
    /// The event as the hook gets it on stdin: one JSON object.
    public var event: String
    /// The program and its arguments; empty when the stored list could not be read.
    public var argv: [String]
    public var timeoutMilliseconds: Int64
    /// `warn` or `fail`, as the hook's settings said.
    public var failurePolicy: String
    public var createdAtMilliseconds: Int64

    public init(
        id: Int64, runID: String, event: String, argv: [String], timeoutMilliseconds: Int64, failurePolicy: String,
        createdAtMilliseconds: Int64
    ) {
        self.id = id
        self.runID = runID
        self.event = event
        self.argv = argv
        self.timeoutMilliseconds = timeoutMilliseconds
        self.failurePolicy = failurePolicy
        self.createdAtMilliseconds = createdAtMilliseconds
    }
}
