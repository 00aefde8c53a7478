import Synchronization

/// Stops a run's hooks from any thread (a signal handler's): those running are terminated,
/// those waiting do not start; both stay due for the next apply.
public final class HookStopper: Sendable {
    private let runner: HookRunner
    private let received = Mutex<Int32?>(nil)

    init(runner: HookRunner) {
        self.runner = runner
    }

    /// Stops the hooks for `signal` (the first signal is kept).
    public func stop(signal: Int32) {
        received.withLock { if $0 == nil { $0 = signal } }
        runner.stop()
    }

    /// The signal that stopped the hooks, if one did.
    public var signal: Int32? { received.withLock { $0 } }
}
