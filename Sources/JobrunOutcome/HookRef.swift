/// Which hook an event is about, as it may be shown.
public struct HookRef: Sendable, Hashable {
    /// `on_complete`, `on_failure` (a resource's) or `on_run_end` (`--on-run-end`).
    public var hook: String
    /// The resource whose end it tells; `nil` for the run's end.
    public var resource: String?
    /// The run whose event the hook delivers: this one, or an earlier one for a redelivery.
    public var eventRun: String
    /// Due in an earlier run that ended before the hook had run to its end (at-least-once
    /// delivery from the mirror state's outbox).
    public var isRedelivery: Bool
    /// The program and its arguments, with URLs redacted (``ArgumentRedaction``).
    public var argv: [String]

    public init(hook: String, resource: String?, eventRun: String, isRedelivery: Bool, argv: [String]) {
        self.hook = hook
        self.resource = resource
        self.eventRun = eventRun
        self.isRedelivery = isRedelivery
        self.argv = ArgumentRedaction.redact(argv)
    }

    /// `on_complete of 'intro'`, `on_run_end`: as a sentence names it.
    public var description: String {
        resource.map { "\(hook) of '\($0)'" } ?? hook
    }
}
