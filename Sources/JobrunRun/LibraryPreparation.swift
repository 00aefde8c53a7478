import Dispatch

/// Libraries being initialized by ``ApplyRun/startPreparingLibraries()``.
public final class LibraryPreparation: Sendable {
    /// Signalled once, when the preparing thread has finished (or never started).
    let finished = DispatchSemaphore(value: 0)

    init() {}

    /// Returns once the preparing thread has finished. Each waiter passes the signal on, so any
    /// number of calls return.
    public func wait() {
        finished.wait()
        finished.signal()
    }
}
