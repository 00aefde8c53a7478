import JobrunCore

/// SHA-256 (FIPS 180-4) in plain Swift, so test helpers can compute expected digests without
/// linking a C library (JobrunTestSupport must not depend on COpenSSL). Slower than OpenSSL,
/// especially in the unoptimized builds tests use (about 20 MB/s): meant for fixtures, not products.
///
///     PortableSHA256.hex(of: Array("abc".utf8))  // "ba7816bf…"
public struct PortableSHA256: Sendable {
    private var state: [UInt32] = Self.initialState
    private var pending: [UInt8] = []
    private var length: UInt64 = 0

    public init() {}

    /// The 32-byte digest of `bytes`.
    public static func digest(of bytes: some Collection<UInt8>) -> [UInt8] {
        var hasher = PortableSHA256()
        hasher.update(bytes)
        return hasher.finalize()
    }

    /// The lowercase hex digest of `bytes`.
    public static func hex(of bytes: some Collection<UInt8>) -> String {
        hex(digest: digest(of: bytes))
    }

    /// Appends `bytes` to the message.
    public mutating func update(_ bytes: some Collection<UInt8>) {
        length &+= UInt64(bytes.count)
        let isDone = bytes.withContiguousStorageIfAvailable { absorb($0) } != nil
        if !isDone { Array(bytes).withUnsafeBufferPointer { absorb($0) } }
    }

    /// The digest of everything appended so far (the hasher is consumed).
    public consuming func finalize() -> [UInt8] {
        var tail = pending
        Self.pad(&tail, totalLength: length)
        let blocks = tail
        blocks.withUnsafeBufferPointer { absorbWhole($0) }
        var digest = [UInt8](repeating: 0, count: 32)
        state.withUnsafeBufferPointer { words in
            for (index, word) in words.enumerated() { Self.storeBigEndian(word, into: &digest, at: 4 * index) }
        }
        return digest
    }

    /// Lowercase hex of a digest ``finalize()`` returned.
    public static func hex(digest: [UInt8]) -> String {
        Digest(algorithm: .sha256, bytes: digest).hex
    }

    /// The digest of a message of at most 55 bytes (one padded block) written to `output[0..<32]`,
    /// without allocating: ``Generated`` hashes one such message per 32 bytes it makes.
    static func digestOfShortMessage(_ message: UnsafeBufferPointer<UInt8>, into output: UnsafeMutablePointer<UInt8>) {
        precondition(message.count <= 55, "one block holds at most 55 message bytes")
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 64) { block in
            guard let bytes = block.baseAddress else { return }
            bytes.initialize(repeating: 0, count: 64)
            for index in 0..<message.count { bytes[index] = message[index] }
            bytes[message.count] = 0x80
            let bits = UInt64(message.count) * 8
            for index in 0..<8 { bytes[56 + index] = UInt8(truncatingIfNeeded: bits >> UInt64(56 - 8 * index)) }
            withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 8) { words in
                guard let state = words.baseAddress else { return }
                for index in 0..<8 { state[index] = initialState[index] }
                compress(state: state, block: UnsafePointer(bytes))
                for index in 0..<8 {
                    let word = state[index]
                    output[4 * index] = UInt8(truncatingIfNeeded: word >> 24)
                    output[4 * index + 1] = UInt8(truncatingIfNeeded: word >> 16)
                    output[4 * index + 2] = UInt8(truncatingIfNeeded: word >> 8)
                    output[4 * index + 3] = UInt8(truncatingIfNeeded: word)
                }
            }
        }
    }

    // MARK: Internals

    private mutating func absorb(_ input: UnsafeBufferPointer<UInt8>) {
        var rest = input[...]
        if !pending.isEmpty {
            let take = min(64 - pending.count, rest.count)
            pending.append(contentsOf: rest.prefix(take))
            rest = rest.dropFirst(take)
            guard pending.count == 64 else { return }
            let block = pending  // a local: absorbing mutates self while the bytes are borrowed
            block.withUnsafeBufferPointer { absorbWhole($0) }
            pending.removeAll(keepingCapacity: true)
        }
        let whole = rest.count - rest.count % 64
        absorbWhole(UnsafeBufferPointer(rebasing: rest.prefix(whole)))
        pending.append(contentsOf: rest.dropFirst(whole))
    }

    /// Compresses `blocks`, whose count is a multiple of 64.
    private mutating func absorbWhole(_ blocks: UnsafeBufferPointer<UInt8>) {
        guard let base = blocks.baseAddress else { return }
        state.withUnsafeMutableBufferPointer { words in
            guard let state = words.baseAddress else { return }
            for offset in stride(from: 0, to: blocks.count, by: 64) { Self.compress(state: state, block: base + offset) }
        }
    }

    private static func pad(_ tail: inout [UInt8], totalLength: UInt64) {
        let bits = totalLength &* 8
        tail.append(0x80)
        while tail.count % 64 != 56 { tail.append(0) }
        for shift in stride(from: 56, through: 0, by: -8) { tail.append(UInt8(truncatingIfNeeded: bits >> UInt64(shift))) }
    }

    private static func storeBigEndian(_ word: UInt32, into bytes: inout [UInt8], at index: Int) {
        bytes[index] = UInt8(truncatingIfNeeded: word >> 24)
        bytes[index + 1] = UInt8(truncatingIfNeeded: word >> 16)
        bytes[index + 2] = UInt8(truncatingIfNeeded: word >> 8)
        bytes[index + 3] = UInt8(truncatingIfNeeded: word)
    }

    /// One 64-byte block into the 8-word `state`. Raw pointers rather than arrays: tests run
    /// unoptimized builds, where checked array access costs several times as much.
    private static func compress(state: UnsafeMutablePointer<UInt32>, block: UnsafePointer<UInt8>) {
        var (a, b, c, d, e, f, g, h) = (state[0], state[1], state[2], state[3], state[4], state[5], state[6], state[7])
        withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 64) { schedule in
            k.withUnsafeBufferPointer { constants in
                guard let w = schedule.baseAddress, let k = constants.baseAddress else { return }
                for i in 0..<16 {
                    w[i] =
                        UInt32(block[4 * i]) << 24 | UInt32(block[4 * i + 1]) << 16 | UInt32(block[4 * i + 2]) << 8
                        | UInt32(block[4 * i + 3])
                }
                for i in 16..<64 {
                    let s0 = rotate(w[i - 15], 7) ^ rotate(w[i - 15], 18) ^ (w[i - 15] >> 3)
                    let s1 = rotate(w[i - 2], 17) ^ rotate(w[i - 2], 19) ^ (w[i - 2] >> 10)
                    w[i] = w[i - 16] &+ s0 &+ w[i - 7] &+ s1
                }
                for i in 0..<64 {
                    let s1 = rotate(e, 6) ^ rotate(e, 11) ^ rotate(e, 25)
                    let choice = (e & f) ^ (~e & g)
                    let t1 = h &+ s1 &+ choice &+ k[i] &+ w[i]
                    let s0 = rotate(a, 2) ^ rotate(a, 13) ^ rotate(a, 22)
                    let majority = (a & b) ^ (a & c) ^ (b & c)
                    h = g
                    g = f
                    f = e
                    e = d &+ t1
                    d = c
                    c = b
                    b = a
                    a = t1 &+ s0 &+ majority
                }
            }
        }
        state[0] &+= a
        state[1] &+= b
        state[2] &+= c
        state[3] &+= d
        state[4] &+= e
        state[5] &+= f
        state[6] &+= g
        state[7] &+= h
    }

    // Transparent: inlined even in unoptimized builds, where a call per rotation triples the cost.
    @_transparent
    private static func rotate(_ value: UInt32, _ count: UInt32) -> UInt32 { value >> count | value << (32 - count) }

    private static let initialState: [UInt32] = [
        0x6a09_e667, 0xbb67_ae85, 0x3c6e_f372, 0xa54f_f53a, 0x510e_527f, 0x9b05_688c, 0x1f83_d9ab, 0x5be0_cd19,
    ]

    private static let k: [UInt32] = [
        0x428a_2f98, 0x7137_4491, 0xb5c0_fbcf, 0xe9b5_dba5, 0x3956_c25b, 0x59f1_11f1, 0x923f_82a4, 0xab1c_5ed5,
        0xd807_aa98, 0x1283_5b01, 0x2431_85be, 0x550c_7dc3, 0x72be_5d74, 0x80de_b1fe, 0x9bdc_06a7, 0xc19b_f174,
        0xe49b_69c1, 0xefbe_4786, 0x0fc1_9dc6, 0x240c_a1cc, 0x2de9_2c6f, 0x4a74_84aa, 0x5cb0_a9dc, 0x76f9_88da,
        0x983e_5152, 0xa831_c66d, 0xb003_27c8, 0xbf59_7fc7, 0xc6e0_0bf3, 0xd5a7_9147, 0x06ca_6351, 0x1429_2967,
        0x27b7_0a85, 0x2e1b_2138, 0x4d2c_6dfc, 0x5338_0d13, 0x650a_7354, 0x766a_0abb, 0x81c2_c92e, 0x9272_2c85,
        0xa2bf_e8a1, 0xa81a_664b, 0xc24b_8b70, 0xc76c_51a3, 0xd192_e819, 0xd699_0624, 0xf40e_3585, 0x106a_a070,
        0x19a4_c116, 0x1e37_6c08, 0x2748_774c, 0x34b0_bcb5, 0x391c_0cb3, 0x4ed8_aa4a, 0x5b9c_ca4f, 0x682e_6ff3,
        0x748f_82ee, 0x78a5_636f, 0x84c8_7814, 0x8cc7_0208, 0x90be_fffa, 0xa450_6ceb, 0xbef9_a3f7, 0xc671_78f2,
    ]
}
