import Dispatch
import JobrunCore
import Synchronization

/// Events that happen on threads of their own (a hook's start and end), waiting for the run's
/// thread to hand them to the observers in order (``RunEvents/deliverPosted()``). Posting never
/// blocks on an observer.
public final class RunEventMailbox: Sendable {
    private let posted = Mutex<[RunEvent]>([])
    private let arrived = DispatchSemaphore(value: 0)

    public init() {}

    /// Queues `event` for the run's thread, from any thread.
    public func post(_ event: RunEvent) {
        posted.withLock { $0.append(event) }
        arrived.signal()
    }

    /// Wakes a waiter without an event: what it waits for may have changed.
    public func wake() {
        arrived.signal()
    }

    /// The events posted so far, oldest first; the mailbox is empty afterwards.
    func take() -> [RunEvent] {
        posted.withLock { events in
            defer { events = [] }
            return events
        }
    }

    /// Returns once something was posted since the last wait (at once if it was), or after
    /// `timeout`.
    public func waitForPost(timeout: Duration) {
        _ = arrived.wait(timeout: .now() + .milliseconds(Int(max(0, min(timeout.wholeMilliseconds, 86_400_000)))))
    }
}
