/// A token bucket of bytes: what a run may still receive now, refilled at a fixed rate. Pure
/// (every decision takes the time as an argument); ``SharedRateBudget`` shares one between
/// engines.
///
/// | rule | |
/// |---|---|
/// | refill | `bytesPerSecond` × the time since the last decision, up to `capacity` (the burst) |
/// | start | full: a run may receive `capacity` bytes at once |
/// | take | a piece is taken whole whenever the balance is above zero, even a piece larger than the balance: the balance goes below zero (borrowed) |
/// | refuse | at zero or below: nothing is taken until the refill has brought the balance above zero again (``instantWithBytes(at:)``) |
///
/// Borrowing is there because libcurl hands a write callback a piece of up to its receive buffer
/// and, when the callback pauses, delivers the same piece again later, whole: a piece can never
/// be taken in parts. The balance is then below zero by at most one piece, so over any interval
/// what was taken exceeds the rate's share by at most `capacity` and one piece.
public struct RateBudget: Sendable {
    public let bytesPerSecond: Int64
    public let capacity: Int64
    /// Bytes that may be taken; below zero while a piece is borrowed.
    public private(set) var balance: Double
    private var updated: ContinuousClock.Instant

    /// A full budget.
    public init(bytesPerSecond: Int64, capacity: Int64, now: ContinuousClock.Instant) {
        self.bytesPerSecond = max(1, bytesPerSecond)
        self.capacity = max(1, capacity)
        balance = Double(self.capacity)
        updated = now
    }

    /// The burst for a rate: a tenth of a second of it, so that the rate holds over short runs,
    /// and at least libcurl's default receive buffer (16 KiB), the usual piece.
    public static func capacity(forRate bytesPerSecond: Int64) -> Int64 {
        max(bytesPerSecond / 10, 16 << 10)
    }

    /// Takes `count` bytes if the balance is above zero (see the rules); `false` takes nothing.
    public mutating func take(_ count: Int, at now: ContinuousClock.Instant) -> Bool {
        refill(at: now)
        guard balance > 0 else { return false }
        balance -= Double(count)
        return true
    }

    /// Whether the balance is above zero: a take now would succeed.
    public mutating func hasBytes(at now: ContinuousClock.Instant) -> Bool {
        refill(at: now)
        return balance > 0
    }

    /// When the balance will be at least one byte if nothing is taken meanwhile: `now` when it
    /// already is, never earlier.
    public mutating func instantWithBytes(at now: ContinuousClock.Instant) -> ContinuousClock.Instant {
        refill(at: now)
        guard balance < 1 else { return now }
        let nanoseconds = ((1 - balance) * 1e9 / Double(bytesPerSecond)).rounded(.up)
        return now + .nanoseconds(Int64(min(nanoseconds, 1e18)))
    }

    private mutating func refill(at now: ContinuousClock.Instant) {
        guard now > updated else { return }
        let (seconds, attoseconds) = (now - updated).components
        let elapsed = Double(seconds) + Double(attoseconds) * 1e-18
        balance = min(Double(capacity), balance + elapsed * Double(bytesPerSecond))
        updated = now
    }
}
