/// SplitMix64's finalizer: spreads every bit of its input over the output (FNV-1a's low bits
/// alone are poorly spread for a small modulus; a counter's are not random at all).
public enum SplitMix64 {
    public static func mix(_ x: UInt64) -> UInt64 {
        var z = x
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
