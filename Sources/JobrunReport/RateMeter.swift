import JobrunCore

/// A transfer rate smoothed over the last few seconds, so that the rate and the ETA a person
/// watches do not jump with every sample (transfers report their bytes in steps, and end one at
/// a time). An exponentially weighted moving average whose weight depends on the time between
/// samples, so samples at an irregular pace weigh what their time span is worth.
struct RateMeter: Sendable {
    /// After this long, a change of pace is about two thirds reflected.
    static let timeConstant: Double = 3

    private var last: (elapsed: Duration, bytes: Int64)?
    /// Bytes per second.
    private(set) var rate: Double = 0

    init() {}

    /// Takes the bytes counted `elapsed` after the start (from zero at zero); returns the rate.
    /// A sample that does not move forward in time is ignored.
    @discardableResult
    mutating func add(bytes: Int64, at elapsed: Duration) -> Double {
        let previous = last ?? (.zero, 0)
        let seconds = Double((elapsed - previous.elapsed).wholeMilliseconds) / 1000
        guard seconds > 0 else { return rate }
        let instant = max(0, Double(bytes - previous.bytes)) / seconds
        if last == nil {
            rate = instant
        } else {
            rate += (1 - exp(-seconds / Self.timeConstant)) * (instant - rate)
        }
        last = (elapsed, bytes)
        return rate
    }
}
