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
    public init?(algorithm: DigestAlgorithm, hex: some StringProtocol) {
        let utf8 = hex.utf8
        guard utf8.count == algorithm.hexLength else { return nil }
        var bytes = [UInt8]()
        bytes.reserveCapacity(algorithm.byteCount)
        var high: UInt8 = 0
        var isHigh = true
        for c in utf8 {
            guard let v = Self.nibble(c) else { return nil }
            if isHigh { high = v } else { bytes.append(high << 4 | v) }
            isHigh.toggle()
        }
        self.init(algorithm: algorithm, bytes: bytes)
    }

    /// The first character of `hex` that is not a hex digit, with its 0-based offset.
    public static func firstNonHex(in hex: some StringProtocol) -> (offset: Int, character: Character)? {
        for (offset, ch) in hex.enumerated() {
            guard let ascii = ch.asciiValue, nibble(ascii) != nil else { return (offset, ch) }
        }
        return nil
    }

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
