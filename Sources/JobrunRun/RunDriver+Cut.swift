import JobrunFetch
import JobrunOutcome

/// Attempts cut by the run's stop.
extension RunDriver {
    /// Job `j`'s transfer was cut by the run's stop: not finished rather than failed (it counts
    /// as skipped), which the failure tells reports; its attempt ends here, so a partial file on
    /// disk stays when it can be resumed and is removed otherwise (a body in memory is dropped:
    /// such slices are too small to resume anyway).
    mutating func settleCut(_ j: SliceID, sink: BodySink) {
        let fate = endAttempt(j, sink: sink)
        let reason =
            switch fate {
            case .kept?: "cut in flight by the stop; its partial file is kept to resume"
            case .discarded(let why)?: "cut in flight by the stop; its partial file is removed: \(why)"
            case nil: "cut in flight by the stop; nothing was kept"
            }
        var outcome = SliceOutcome(
            status: .skipped, bytesTransferred: machine.book.jobs[j].bytesTransferred.value, attempts: Int(machine.book.jobs[j].attempts),
            failure: AttemptFailure(kind: .interrupted, message: reason, isTransient: false),
            skipReason: reason, duration: machine.book.firstStart(j).map { ContinuousClock.now - $0 } ?? .zero, displayURL: displayURL(j))
        outcome.partial = fate
        settle(j, outcome)
    }
}
