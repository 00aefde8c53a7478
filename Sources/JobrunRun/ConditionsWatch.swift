import Dispatch
import JobrunConditions
import JobrunCore
import Synchronization
import JobrunSystem

/// Reads the conditions again and again on a thread of its own, as a D-Bus call may take its
/// whole timeout: the run's thread only picks up the latest reading (``take()``).
final class ConditionsWatch: Sendable {
    /// Shared with the thread, which outlives nothing but may outlive the watch by one reading.
    private final class Shared: Sendable {
        let latest = Mutex<Conditions?>(nil)
        let stopped = DispatchSemaphore(value: 0)
    }

    private let shared = Shared()

    /// Starts reading every `interval`; `nil` when no thread could be started (the run then
    /// keeps the conditions it started with).
    init?(interval: Duration, read: @escaping @Sendable () -> Conditions) {
        let wait = DispatchTimeInterval.milliseconds(Int(max(1, interval.wholeMilliseconds)))
        let started = DetachedThread.start(name: "jobrun-conds") { [shared] in
            while shared.stopped.wait(timeout: .now() + wait) == .timedOut {
                let reading = read()
                shared.latest.withLock { $0 = reading }
            }
        }
        if started != nil { return nil }
    }

    /// The reading taken since the last call, if any.
    func take() -> Conditions? {
        shared.latest.withLock { value in
            defer { value = nil }
            return value
        }
    }

    /// Ends the thread (after the reading it may be taking).
    func stop() {
        shared.stopped.signal()
    }
}
