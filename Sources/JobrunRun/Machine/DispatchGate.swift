/// A rule that may hold a ready slice back before it starts: the deadline now, the network
/// policy later. Gates are values asked by the ``Scheduler``; they do no I/O.
protocol DispatchGate {
    func decide(_ candidate: Candidate, now: ContinuousClock.Instant) -> GateDecision
}
