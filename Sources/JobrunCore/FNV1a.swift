/// 64-bit FNV-1a, fed bytes in order: a hash that is the same in every process and on every
/// machine (Swift's `Hasher` is seeded per process), so shards and fingerprints agree.
public struct FNV1a: Sendable {
    public private(set) var value: UInt64 = 0xCBF2_9CE4_8422_2325

    public init() {}

    public mutating func add(_ byte: UInt8) {
        value = (value ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
    }

    public mutating func add(_ bytes: some Sequence<UInt8>) {
        for byte in bytes { add(byte) }
    }

    /// The string's UTF-8, read from its contiguous storage.
    public mutating func add(_ string: String) {
        var string = string
        string.withUTF8 { add($0) }
    }
}
