import Synchronization

/// One ``RateBudget`` for a whole run (`--limit-rate`), shared by every engine it is given to:
/// each engine's transfers take their body bytes from it on that engine's thread, so the limit
/// holds for the sum of all transfers, not for each.
public final class SharedRateBudget: Sendable {
    private let budget: Mutex<RateBudget>
    private let clock: @Sendable () -> ContinuousClock.Instant

    /// A full budget of `bytesPerSecond` with ``RateBudget/capacity(forRate:)`` as its burst.
    public init(bytesPerSecond: Int64, clock: @escaping @Sendable () -> ContinuousClock.Instant = { .now }) {
        self.clock = clock
        budget = Mutex(RateBudget(bytesPerSecond: bytesPerSecond, capacity: RateBudget.capacity(forRate: bytesPerSecond), now: clock()))
    }

    /// The burst: the most that can be taken at once without waiting.
    public var capacity: Int64 { budget.withLock { $0.capacity } }

    func take(_ count: Int) -> Bool {
        let now = clock()
        return budget.withLock { $0.take(count, at: now) }
    }

    func hasBytes() -> Bool {
        let now = clock()
        return budget.withLock { $0.hasBytes(at: now) }
    }

    /// How long until a take can succeed (zero when one can now).
    func timeUntilBytes() -> Duration {
        let now = clock()
        return budget.withLock { $0.instantWithBytes(at: now) } - now
    }
}
