import JobrunManifest
import JobrunOutcome

/// A hook that is due: what runs, with what limits, and what it is told.
struct HookJob: Sendable {
    /// Its resource's id, or `""` for the run's end: one hook at a time per key.
    var key: String
    var argv: [String]
    var timeout: Duration
    var policy: HookFailurePolicy
    /// On its stdin, with its newline.
    var input: [UInt8]
    /// Its `JOBRUN_*` variables.
    var variables: [(name: String, value: String)]
    var ref: HookRef
    /// The output root whose outbox holds it; `nil` without one.
    var root: String?
    /// Its outbox entry, once recorded (a redelivery's is).
    var outboxID: Int64?
    /// A hook of this run's resources: its end is part of the run's result.
    var isResourceHook: Bool

    /// A hook due now, for `event`.
    init(event: HookEvent, argv: [String], timeout: Duration, policy: HookFailurePolicy, root: String?) {
        key = event.resource ?? ""
        self.argv = argv
        self.timeout = timeout
        self.policy = policy
        input = event.line
        variables = event.variables
        ref = HookRef(hook: event.hook, resource: event.resource, eventRun: event.run, isRedelivery: event.isRedelivery, argv: argv)
        self.root = root
        isResourceHook = event.resource != nil && !event.isRedelivery
    }
}
