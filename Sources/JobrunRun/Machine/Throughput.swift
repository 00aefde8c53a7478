import JobrunCore

/// Transfer rates seen at one origin: the estimate a gate uses for how long a slice will take.
struct Throughput: Equatable {
    /// Bytes per second of one transfer, smoothed over the transfers large enough to say.
    private(set) var bytesPerSecond: Double?
    private(set) var samples = 0

    /// Transfers smaller than this say more about latency than rate.
    static let minimumSample = ByteCount(64 << 10)

    mutating func add(bytes: ByteCount, duration: Duration) {
        guard bytes >= Self.minimumSample else { return }
        let seconds = Double(duration.wholeMilliseconds) / 1000
        guard seconds > 0 else { return }
        let rate = Double(bytes.value) / seconds
        // Smoothed, with the recent transfers counting most (and the first ones alone at first).
        let weight = max(0.2, 1 / Double(samples + 1))
        bytesPerSecond = bytesPerSecond.map { $0 + weight * (rate - $0) } ?? rate
        samples += 1
    }
}
