import JobrunOutcome

/// Where the run stands: going, or stopping and why, and whether the disk has filled up. A part
/// of the run's machine: the one place the run's stop is decided, with no clock of its own (the
/// driver tells it what came: a request, the deadline, the offline wait, a full disk).
struct RunPhase {
    /// Why the run ends early: what stopped it, or the gate that held work back for the rest of
    /// it (the deadline's). What the reports and the exit status say.
    private(set) var stopReason: StopReason?
    /// Stopped: nothing new starts or is retried, and transfers under way are cut.
    private(set) var isStopping = false
    /// Slices whose own file's write, read-back or sync failed on a full disk.
    private(set) var fullDisks = 0

    /// What a stop request changes.
    enum Change: Equatable {
        case none
        /// The run stops now, for this reason: transfers are cut, slices not started are skipped.
        case stop(StopReason)
        /// The run was stopping already; from now on it stops for this reason (told again).
        case reason(StopReason)
    }

    /// The disk has filled up once: every body is then checked before anything new starts, so
    /// that a second full disk is known before more slices start.
    var hasFilledDisk: Bool { fullDisks > 0 }
    /// The disk has filled up twice: nothing starts any more (what would start fails).
    var startsNothing: Bool { fullDisks >= 2 }

    /// The run is asked to stop (a signal, or its deadline or offline wait passing). A signal
    /// during the deadline's stop is what the run ends with (130, 143); any other request while
    /// stopping changes nothing.
    mutating func request(_ reason: StopReason) -> Change {
        guard isStopping else {
            isStopping = true
            stopReason = reason
            return .stop(reason)
        }
        guard stopReason == .deadline, reason != .deadline else { return .none }
        stopReason = reason
        return .reason(reason)
    }

    /// A gate holds work back for the rest of the run: it ends early for `reason`, once what is
    /// under way and still fits has finished.
    mutating func heldBack(for reason: StopReason) {
        stopReason = stopReason ?? reason
    }

    /// A slice's own file's write, read-back or sync failed on a full disk.
    mutating func diskFilled() {
        fullDisks += 1
    }
}
