import JobrunOutcome

/// A gate's answer for one slice.
enum GateDecision: Equatable {
    /// It may start now.
    case admit
    /// Not before this instant; it waits, then asks again.
    case later(ContinuousClock.Instant)
    /// Not in this run, for this reason (it is reported as not started); with a stop reason
    /// when it means the run ends early (the deadline), without one when the slice only waits
    /// for better conditions.
    case deferred(String, StopReason?)
}
