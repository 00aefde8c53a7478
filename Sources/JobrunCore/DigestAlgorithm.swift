/// The digest algorithms a slice may declare.
public enum DigestAlgorithm: String, Sendable, Hashable, CaseIterable, Comparable, Codable {
    case md5, sha1, sha224, sha256, sha384, sha512

    /// Bytes in a digest of this algorithm.
    public var byteCount: Int {
        switch self {
        case .md5: 16
        case .sha1: 20
        case .sha224: 28
        case .sha256: 32
        case .sha384: 48
        case .sha512: 64
        }
    }

    /// Characters in the hex form of a digest of this algorithm.
    public var hexLength: Int { byteCount * 2 }

    /// Algorithms whose hex digests have this many characters (sha384 and nothing else share 96, for example).
    public static func candidates(forHexLength length: Int) -> [DigestAlgorithm] {
        allCases.filter { $0.hexLength == length }
    }

    private var rank: Int { Self.allCases.firstIndex(of: self) ?? 0 }
    public static func < (lhs: DigestAlgorithm, rhs: DigestAlgorithm) -> Bool { lhs.rank < rhs.rank }
}

/// An expected or computed digest: an algorithm and its bytes.
public struct Digest: Hashable, Sendable, CustomStringConvertible {
    public var algorithm: DigestAlgorithm
    public var bytes: [UInt8]

    public init(algorithm: DigestAlgorithm, bytes: [UInt8]) {
        self.algorithm = algorithm
        self.bytes = bytes
    }

    /// Parses hex of the right length for `algorithm`, any case. `nil` when the length or alphabet is wrong.
    public init?(algorithm: DigestAlgorithm, hex: String) {
        // A million slices means a million digests: parse the contiguous UTF-8 directly.
        var text = hex
        let parsed: [UInt8]? = text.withUTF8 { utf8 in Self.parseHex(utf8, byteCount: algorithm.byteCount) }
        guard let parsed else { return nil }
        self.init(algorithm: algorithm, bytes: parsed)
    }

    public init?(algorithm: DigestAlgorithm, hex: Substring) {
        self.init(algorithm: algorithm, hex: String(hex))
    }

    /// Decodes exactly `byteCount` bytes of hex (any case) from `utf8`, or `nil`.
    public static func parseHex(_ utf8: UnsafeBufferPointer<UInt8>, byteCount: Int) -> [UInt8]? {
        guard utf8.count == byteCount * 2 else { return nil }
        var ok = true
        let bytes = [UInt8](unsafeUninitializedCapacity: byteCount) { out, initialized in
            for i in 0..<byteCount {
                guard let high = nibble(utf8[2 * i]), let low = nibble(utf8[2 * i + 1]) else {
                    ok = false
                    break
                }
                out[i] = high << 4 | low
            }
            initialized = ok ? byteCount : 0
        }
        return ok ? bytes : nil
    }

    /// The first character of `hex` that is not a hex digit, with its 0-based offset.
    public static func firstNonHex(in hex: some StringProtocol) -> (offset: Int, character: Character)? {
        for (offset, ch) in hex.enumerated() {
            guard let ascii = ch.asciiValue, nibble(ascii) != nil else { return (offset, ch) }
        }
        return nil
    }

    @inline(__always)
    static func nibble(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// Lower-case hex.
    public var hex: String {
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        out.reserveCapacity(bytes.count * 2)
        for b in bytes {
            out.append(digits[Int(b >> 4)])
            out.append(digits[Int(b & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    public var description: String { "\(algorithm.rawValue):\(hex)" }
}
