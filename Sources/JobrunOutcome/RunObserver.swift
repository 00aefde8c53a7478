/// A consumer of a run's events: the human log, the progress display, the event stream, a report.
/// Called on the run's thread, in order; an observer must not block it (one that writes where a
/// reader may stall hands its bytes to a thread of its own).
public protocol RunObserver: AnyObject {
    func observe(_ event: RunEvent)
    /// How often this observer wants ``RunEvent/progress(_:)`` while transfers run (`nil`: never).
    var progressInterval: Duration? { get }
}

extension RunObserver {
    public var progressInterval: Duration? { nil }
}

/// A run's observers: every event goes to each of them, in the order they were added. Lives on
/// the run's thread (the command's main thread), like the observers themselves; events from
/// other threads come through its ``mailbox``.
public final class RunEvents {
    public private(set) var observers: [any RunObserver] = []
    /// Where other threads post events; they reach the observers with the next event emitted, or
    /// at the next ``deliverPosted()``.
    public let mailbox = RunEventMailbox()
    /// The shortest interval any observer wants progress at.
    public private(set) var progressInterval: Duration?
    /// `run_end` was sent: nothing follows it.
    public private(set) var hasEnded = false

    public init(_ observers: [any RunObserver] = []) {
        for o in observers { add(o) }
    }

    public func add(_ observer: any RunObserver) {
        observers.append(observer)
        if let wanted = observer.progressInterval {
            progressInterval = progressInterval.map { min($0, wanted) } ?? wanted
        }
    }

    public func emit(_ event: RunEvent) {
        // What happened on other threads before this goes first.
        deliverPosted()
        send(event)
    }

    /// Hands the events posted to ``mailbox`` so far to the observers (on the run's thread).
    public func deliverPosted() {
        for event in mailbox.take() { send(event) }
    }

    private func send(_ event: RunEvent) {
        guard !hasEnded else { return }
        if case .runEnded = event { hasEnded = true }
        for o in observers { o.observe(event) }
    }
}
