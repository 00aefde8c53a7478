import Synchronization

/// Large values a command is done with, kept until the process exits instead of being freed one
/// object at a time: tearing down a million-slice manifest costs a tenth of `jobrun plan`, and the
/// kernel reclaims the memory at exit anyway (compilers do the same, e.g. clang's -disable-free).
enum ProcessLifetime {
    private static let kept = Mutex<[any Sendable]>([])

    static func keepUntilExit(_ value: any Sendable) {
        kept.withLock { $0.append(value) }
    }
}
