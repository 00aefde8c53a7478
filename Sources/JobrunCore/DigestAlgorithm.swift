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
    /// The first 32 bytes, inline (all of an MD5, SHA-1, SHA-224 or SHA-256), zero past the end:
    /// a manifest keeps a digest per slice, and an array of its own would be an allocation more
    /// for each.
    private var word0: UInt64 = 0, word1: UInt64 = 0, word2: UInt64 = 0, word3: UInt64 = 0
    /// The algorithm, and what does not fit inline; one word.
    private var kind: Kind

    private enum Kind: Hashable, Sendable {
        case md5, sha1, sha224, sha256
        /// The bytes past the first 32.
        case sha384(tail: [UInt8]), sha512(tail: [UInt8])
        /// Bytes of another length than the algorithm's, all of them (never from a digest
        /// computed or parsed here).
        case irregular(Irregular)
    }

    private final class Irregular: Hashable, Sendable {
        let algorithm: DigestAlgorithm
        let bytes: [UInt8]
        init(_ algorithm: DigestAlgorithm, _ bytes: [UInt8]) {
            self.algorithm = algorithm
            self.bytes = bytes
        }
        static func == (a: Irregular, b: Irregular) -> Bool { a.algorithm == b.algorithm && a.bytes == b.bytes }
        func hash(into hasher: inout Hasher) {
            hasher.combine(algorithm)
            hasher.combine(bytes)
        }
    }

    private static let inlineCount = 32

    public init(algorithm: DigestAlgorithm, bytes: [UInt8]) {
        guard bytes.count == algorithm.byteCount else {
            kind = .irregular(Irregular(algorithm, bytes))
            return
        }
        let tail = bytes.count > Self.inlineCount ? Array(bytes[Self.inlineCount...]) : []
        switch algorithm {
        case .md5: kind = .md5
        case .sha1: kind = .sha1
        case .sha224: kind = .sha224
        case .sha256: kind = .sha256
        case .sha384: kind = .sha384(tail: tail)
        case .sha512: kind = .sha512(tail: tail)
        }
        var head: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
        withUnsafeMutableBytes(of: &head) { $0.copyBytes(from: bytes.prefix(Self.inlineCount)) }
        (word0, word1, word2, word3) = head
    }

    public var algorithm: DigestAlgorithm {
        switch kind {
        case .md5: .md5
        case .sha1: .sha1
        case .sha224: .sha224
        case .sha256: .sha256
        case .sha384: .sha384
        case .sha512: .sha512
        case .irregular(let other): other.algorithm
        }
    }

    /// The digest's bytes (a new array each time).
    public var bytes: [UInt8] {
        get { bytesArray() }
        set { self = Digest(algorithm: algorithm, bytes: newValue) }
    }

    private func bytesArray() -> [UInt8] {
        var tail: [UInt8] = []
        switch kind {
        case .irregular(let other): return other.bytes
        case .sha384(let t), .sha512(let t): tail = t
        case .md5, .sha1, .sha224, .sha256: break
        }
        var out = [UInt8]()
        out.reserveCapacity(algorithm.byteCount)
        withUnsafeBytes(of: (word0, word1, word2, word3)) { head in
            out.append(contentsOf: head.prefix(min(algorithm.byteCount, Self.inlineCount)))
        }
        out.append(contentsOf: tail)
        return out
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
