/// Waits for a condition by polling it, instead of sleeping a fixed time and hoping.
///
///     #expect(await Poll.until(timeout: .seconds(5)) { server.requestCount == 3 })
public enum Poll {
    /// Evaluates `condition` every `interval` until it holds or `deadline` passes; it is always
    /// evaluated at least once, and once more at the deadline.
    /// - Returns: whether the condition held; `false` on timeout or task cancellation.
    @discardableResult
    public static func until(
        deadline: ContinuousClock.Instant, interval: Duration = .milliseconds(10),
        _ condition: () async throws -> Bool
    ) async rethrows -> Bool {
        let clock = ContinuousClock()
        while true {
            if try await condition() { return true }
            let now = clock.now
            if now >= deadline || Task.isCancelled { return false }
            // Never sleep past the deadline, so the last check happens on time.
            let nap = min(interval, now.duration(to: deadline))
            do {
                try await clock.sleep(for: nap)
            } catch {
                return try await condition()
            }
        }
    }

    /// ``until(deadline:interval:_:)`` with a deadline `timeout` from now.
    @discardableResult
    public static func until(
        timeout: Duration, interval: Duration = .milliseconds(10), _ condition: () async throws -> Bool
    ) async rethrows -> Bool {
        try await until(deadline: .now + timeout, interval: interval, condition)
    }
}
