import JobrunCore
import JobrunOutcome

/// The run's deadline as a gate: a slice does not start when it would not finish before the
/// cutoff (the deadline less its margin) at the rate its origin has shown, with room to spare;
/// at the cutoff the driver cancels what is still in flight. A slice of unknown size, or at
/// an origin not yet measured, starts while there is time left.
struct DeadlineGate: DispatchGate {
    let cutoff: ContinuousClock.Instant

    /// The estimate is stretched by this factor and this many seconds: a transfer's rate varies,
    /// and a slice cut at the cutoff has cost its bytes for nothing.
    static let safetyFactor = 1.25
    static let safetySeconds = 1.0

    func decide(_ c: Candidate, now: ContinuousClock.Instant) -> GateDecision {
        let left = Double((cutoff - now).wholeMilliseconds) / 1000
        guard left > 0 else { return .deferred("not started: the deadline has come", .deadline) }
        guard let bytes = c.expectedBytes, let rate = c.throughput?.bytesPerSecond, rate > 0 else { return .admit }
        let needed = Double(bytes.value) / rate * Self.safetyFactor + Self.safetySeconds
        guard needed > left else { return .admit }
        return .deferred(
            "not started: it needs about \(Int(needed.rounded(.up))) s at \(ByteCount(Int64(rate)))/s (\(c.origin)), and \(Int(left)) s are left before the deadline",
            .deadline)
    }
}
