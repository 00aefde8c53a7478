import JobrunCore

extension Backoff {
    /// The wait before attempt `attempt + 1`, after `attempt` failed attempts (1-based), with full
    /// jitter: uniform between `initial` and `min(max, initial × multiplier^(attempt−1))`.
    /// `random` is a number in `[0, 1)` from the caller (injected, so tests are deterministic).
    ///
    /// | attempt | ceiling (initial 1s, ×2, max 2m) | wait drawn from |
    /// |---------|----------------------------------|-----------------|
    /// | 1       | 1s                               | [1s, 1s]        |
    /// | 2       | 2s                               | [1s, 2s]        |
    /// | 3       | 4s                               | [1s, 4s]        |
    /// | 8       | 128s → 2m                        | [1s, 2m]        |
    /// | 30      | 2m                               | [1s, 2m]        |
    public func delay(afterAttempt attempt: Int, random: Double) -> Duration {
        let initialMS = Double(initial.wholeMilliseconds)
        let maxMS = Double(maximum.wholeMilliseconds)
        var ceiling = initialMS
        var n = 1
        while n < attempt && ceiling < maxMS {
            ceiling *= multiplier
            n += 1
        }
        ceiling = min(ceiling, maxMS)
        let r = min(max(random, 0), 1)
        let ms = initialMS + (ceiling - initialMS) * r
        return .milliseconds(Int64(ms.rounded()))
    }

    /// A server's `Retry-After` wait (``RetryAfter``), clamped to `[0, max]`: a huge value must
    /// not park a cron job for days.
    public func clampRetryAfter(_ delay: Duration) -> Duration {
        min(max(delay, .zero), maximum)
    }
}
