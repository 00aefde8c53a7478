import Synchronization

/// Jobrun's own stop (a signal), as the hook processes it reaches see it: each checks it while it
/// waits, and stops its process group.
final class HookStop: Sendable {
    private let stopped = Atomic<Bool>(false)

    var isStopped: Bool { stopped.load(ordering: .acquiring) }

    func stop() { stopped.store(true, ordering: .releasing) }
}
