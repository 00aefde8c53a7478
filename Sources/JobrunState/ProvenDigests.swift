public import JobrunCore

/// The digests a file was proven against, as the store keeps them: packed in one byte array
/// (per digest, its algorithm's code, then its bytes), so that reading 100,000 records neither
/// parses text nor allocates per digest.
public struct ProvenDigests: Sendable, Hashable {
    /// The stored form (the `digests` column).
    public let packed: [UInt8]

    /// Each algorithm's code in the stored form: part of the schema, never renumbered.
    static func code(of algorithm: DigestAlgorithm) -> UInt8 {
        switch algorithm {
        case .md5: 1
        case .sha1: 2
        case .sha224: 3
        case .sha256: 4
        case .sha384: 5
        case .sha512: 6
        }
    }

    static func algorithm(code: UInt8) -> DigestAlgorithm? {
        switch code {
        case 1: .md5
        case 2: .sha1
        case 3: .sha224
        case 4: .sha256
        case 5: .sha384
        case 6: .sha512
        default: nil
        }
    }

    public init(_ digests: [Digest]) {
        var packed: [UInt8] = []
        packed.reserveCapacity(digests.reduce(0) { $0 + 1 + $1.bytes.count })
        for digest in digests {
            packed.append(Self.code(of: digest.algorithm))
            packed.append(contentsOf: digest.bytes)
        }
        self.packed = packed
    }

    /// The stored form as read; the part from an unknown code or a cut digest on is left out
    /// (it proves nothing here).
    public init(packed: [UInt8]) {
        let end = Self.walk(packed) { _, _ in true }
        self.packed = end == packed.count ? packed : Array(packed[..<end])
    }

    public var isEmpty: Bool { packed.isEmpty }

    /// Whether `digest` (its algorithm and value) is among them.
    public func contains(_ digest: Digest) -> Bool {
        var found = false
        _ = Self.walk(packed) { algorithm, value in
            found = algorithm == digest.algorithm && value.elementsEqual(digest.bytes)
            return !found
        }
        return found
    }

    /// Every digest, in stored order.
    public var all: [Digest] {
        var digests: [Digest] = []
        _ = Self.walk(packed) { algorithm, value in
            digests.append(Digest(algorithm: algorithm, bytes: Array(value)))
            return true
        }
        return digests
    }

    /// Hands each whole digest of `packed` to `body` (which returns whether to go on), up to an
    /// unknown code or a cut digest; returns where it stopped.
    private static func walk(_ packed: [UInt8], _ body: (DigestAlgorithm, ArraySlice<UInt8>) -> Bool) -> Int {
        var k = 0
        while k < packed.count, let algorithm = algorithm(code: packed[k]), k + 1 + algorithm.byteCount <= packed.count {
            guard body(algorithm, packed[(k + 1)..<(k + 1 + algorithm.byteCount)]) else { break }
            k += 1 + algorithm.byteCount
        }
        return k
    }
}
