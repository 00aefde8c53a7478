import JobrunCore

/// Deterministic random numbers (SplitMix64), so that a failing generated case reproduces from
/// its seed.
public struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        return SplitMix64.mix(state)
    }

    /// `count` bytes.
    public mutating func bytes(_ count: Int) -> [UInt8] {
        var out = [UInt8]()
        out.reserveCapacity(count + 8)
        while out.count < count {
            withUnsafeBytes(of: next().littleEndian) { out.append(contentsOf: $0) }
        }
        out.removeLast(out.count - count)
        return out
    }
}
