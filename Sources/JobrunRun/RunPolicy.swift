public import JobrunConditions
public import JobrunPlan

/// The network policy during a run: the context the plan was judged by, and how the run judges
/// it again as conditions and time go on (``PolicyGate``).
public struct RunPolicy: Sendable {
    /// The conditions, the time and the first deferrals the run starts with.
    public var context: PolicyContext
    /// Reads the conditions again, on a thread of its own; `nil` when no resource's policy looks
    /// at them (only windows and earliest starts: the clock alone decides).
    public var readConditions: (@Sendable () -> Conditions)?
    /// How often the run reviews its verdicts.
    public var interval: Duration = .seconds(30)
    /// `--wait-for-conditions`: until then deferred work waits instead of being deferred (the
    /// plan then defers nothing; the gate holds it).
    public var waitUntil: ContinuousClock.Instant?
    /// The wall clock, in milliseconds since the epoch.
    public var wallMilliseconds: @Sendable () -> Int64

    public init(context: PolicyContext, wallMilliseconds: @escaping @Sendable () -> Int64) {
        self.context = context
        self.wallMilliseconds = wallMilliseconds
    }
}
