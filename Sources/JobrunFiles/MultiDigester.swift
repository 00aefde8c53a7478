public import JobrunCore

/// Several digests of the same bytes in one pass over memory.
///
/// Input is handed to each algorithm in slices of `sliceSize` bytes, one algorithm after the
/// other, so a slice is still in the CPU cache when the second and third algorithm read it.
public final class MultiDigester {
    /// The algorithms computed, without repeats, in `DigestAlgorithm` order.
    public let algorithms: [DigestAlgorithm]
    private let digesters: [Digester]

    /// Bytes given to one algorithm before the next one reads them: 1 MiB fits in L2.
    public static let sliceSize = 1 << 20

    /// Digesters for `algorithms`; repeats are computed once.
    public init(algorithms: some Sequence<DigestAlgorithm>) throws(DigestError) {
        let unique = Set(algorithms).sorted()
        var digesters: [Digester] = []
        digesters.reserveCapacity(unique.count)
        for algorithm in unique {
            digesters.append(try Digester(algorithm: algorithm))
        }
        self.algorithms = unique
        self.digesters = digesters
    }

    /// Wraps digesters that already exist (a checker worker keeps one per algorithm).
    init(digesters: [Digester]) {
        self.algorithms = digesters.map(\.algorithm)
        self.digesters = digesters
    }

    /// Appends `bytes` to the message of every algorithm.
    public func update(_ bytes: UnsafeRawBufferPointer) {
        if digesters.count == 1 {
            digesters[0].update(bytes)
            return
        }
        var offset = 0
        while offset < bytes.count {
            let end = min(offset + Self.sliceSize, bytes.count)
            let slice = UnsafeRawBufferPointer(rebasing: bytes[offset..<end])
            for digester in digesters { digester.update(slice) }
            offset = end
        }
    }

    /// Appends `bytes` to the message of every algorithm.
    public func update(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { update($0) }
    }

    /// One digest per algorithm, in `algorithms` order; every algorithm then starts over.
    public func finalize() -> [Digest] {
        digesters.map { $0.finalize() }
    }

    /// Forgets the bytes fed so far.
    public func reset() {
        for digester in digesters { digester.reset() }
    }
}
