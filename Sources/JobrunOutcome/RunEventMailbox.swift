import Dispatch
import JobrunCore
import Synchronization

/// Events that happen on threads of their own (a hook's start and end), waiting for the run's
/// thread to hand them to the observers in order (``RunEvents/deliverPosted()``). Posting never
/// blocks on an observer.
public final class RunEventMailbox: Sendable {
    private let posted = Mutex<[RunEvent]>([])
    /// Whether `posted` holds events, set and cleared under its lock: every event the run emits
    /// looks here first, and a run without hooks never takes the lock for it.
    private let hasPosts = Atomic<Bool>(false)
    private let arrived = DispatchSemaphore(value: 0)

    public init() {}

    /// Queues `event` for the run's thread, from any thread.
    public func post(_ event: RunEvent) {
        posted.withLock { events in
            events.append(event)
            hasPosts.store(true, ordering: .releasing)
        }
        arrived.signal()
    }

    /// Wakes a waiter without an event: what it waits for may have changed.
    public func wake() {
        arrived.signal()
    }

    /// The events posted so far, oldest first; the mailbox is empty afterwards.
    func take() -> [RunEvent] {
        guard hasPosts.load(ordering: .acquiring) else { return [] }
        return posted.withLock { events in
            hasPosts.store(false, ordering: .releasing)
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
