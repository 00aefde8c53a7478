import JobrunCore
import JobrunFiles
import Testing

/// Published known answers: FIPS 180-2 appendix examples and the NIST SHA example files
/// ("abc", the 448-bit message, one million 'a'), and the RFC 1321 appendix A.5 test suite
/// for MD5. None of them is computed by the code under test.
struct DigestVectorTests {
    static let abc448 = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"

    struct Vector: Sendable, CustomTestStringConvertible {
        var algorithm: DigestAlgorithm
        var message: String
        var hex: String
        var testDescription: String { "\(algorithm.rawValue)(\(message.prefix(12))\(message.count > 12 ? "…" : ""))" }
    }

    static let vectors: [Vector] = [
        Vector(algorithm: .md5, message: "", hex: "d41d8cd98f00b204e9800998ecf8427e"),
        Vector(algorithm: .md5, message: "a", hex: "0cc175b9c0f1b6a831c399e269772661"),
        Vector(algorithm: .md5, message: "abc", hex: "900150983cd24fb0d6963f7d28e17f72"),
        Vector(algorithm: .md5, message: "message digest", hex: "f96b697d7cb7938d525a2f31aaf161d0"),
        Vector(algorithm: .md5, message: "abcdefghijklmnopqrstuvwxyz", hex: "c3fcd3d76192e4007dfb496cca67e13b"),
        Vector(
            algorithm: .md5, message: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789",
            hex: "d174ab98d277d9f5a5611c2c9f419d9f"),
        Vector(algorithm: .md5, message: String(repeating: "1234567890", count: 8), hex: "57edf4a22be3c955ac49da2e2107b67a"),
        Vector(algorithm: .md5, message: abc448, hex: "8215ef0796a20bcaaae116d3876c664a"),

        Vector(algorithm: .sha1, message: "", hex: "da39a3ee5e6b4b0d3255bfef95601890afd80709"),
        Vector(algorithm: .sha1, message: "abc", hex: "a9993e364706816aba3e25717850c26c9cd0d89d"),
        Vector(algorithm: .sha1, message: abc448, hex: "84983e441c3bd26ebaae4aa1f95129e5e54670f1"),

        Vector(algorithm: .sha224, message: "", hex: "d14a028c2a3a2bc9476102bb288234c415a2b01f828ea62ac5b3e42f"),
        Vector(algorithm: .sha224, message: "abc", hex: "23097d223405d8228642a477bda255b32aadbce4bda0b3f7e36c9da7"),
        Vector(algorithm: .sha224, message: abc448, hex: "75388b16512776cc5dba5da1fd890150b0c6455cb4f58b1952522525"),

        Vector(algorithm: .sha256, message: "", hex: "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        Vector(algorithm: .sha256, message: "abc", hex: "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        Vector(algorithm: .sha256, message: abc448, hex: "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),

        Vector(
            algorithm: .sha384, message: "",
            hex: "38b060a751ac96384cd9327eb1b1e36a21fdb71114be07434c0cc7bf63f6e1da274edebfe76f65fbd51ad2f14898b95b"),
        Vector(
            algorithm: .sha384, message: "abc",
            hex: "cb00753f45a35e8bb5a03d699ac65007272c32ab0eded1631a8b605a43ff5bed8086072ba1e7cc2358baeca134c825a7"),
        Vector(
            algorithm: .sha384, message: abc448,
            hex: "3391fdddfc8dc7393707a65b1b4709397cf8b1d162af05abfe8f450de5f36bc6b0455a8520bc4e6f5fe95b1fe3c8452b"),

        Vector(
            algorithm: .sha512, message: "",
            hex: "cf83e1357eefb8bdf1542850d66d8007d620e4050b5715dc83f4a921d36ce9ce47d0d13c5d85f2b0ff8318d2877eec2f63b931bd47417a81a538327af927da3e"),
        Vector(
            algorithm: .sha512, message: "abc",
            hex: "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f"),
        Vector(
            algorithm: .sha512, message: abc448,
            hex: "204a8fc6dda82f0a0ced7beb8e08a41657c16ef468b228a8279be331a703c33596fd15c13b1b07f9aa1d3bea57789ca031ad85c7a71dd70354ec631238ca3445"),
    ]

    /// One million repetitions of 'a' (FIPS 180-2 example, long message).
    static let millionA: [(DigestAlgorithm, String)] = [
        (.md5, "7707d6ae4e027c70eea2a935c2296f21"),
        (.sha1, "34aa973cd4c4daa4f61eeb2bdbad27316534016f"),
        (.sha224, "20794655980c91d8bbb4c1ea97618a4bf03f42581948b2ee4ee7ad67"),
        (.sha256, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"),
        (.sha384, "9d0e1809716474cb086e834e310a4a1ced149e9c00f248527972cec5704c2a5b07b8b3dc38ecc4ebae97ddd87f3d8985"),
        (.sha512, "e718483d0ce769644e2e42c7bc15b4638e1f98b13b2044285632a803afa973ebde0ff244877ea60a4cb0432ce577c31beb009c5c2c49aa2e4eadb217ad8cc09b"),
    ]

    @Test(arguments: vectors)
    func oneShot(_ vector: Vector) throws {
        let digest = try Digest.compute(vector.algorithm, of: Array(vector.message.utf8))
        #expect(digest.hex == vector.hex)
        #expect(digest.bytes.count == vector.algorithm.byteCount)
    }

    @Test(arguments: vectors)
    func streaming(_ vector: Vector) throws {
        let digester = try Digester(algorithm: vector.algorithm)
        for byte in vector.message.utf8 { digester.update([byte]) }
        #expect(digester.finalize().hex == vector.hex)
        // finalize() starts a new message.
        digester.update(Array(vector.message.utf8))
        #expect(digester.finalize().hex == vector.hex)
    }

    @Test func millionAs() throws {
        let message = [UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000)
        for (algorithm, hex) in Self.millionA {
            #expect(try Digest.compute(algorithm, of: message).hex == hex, "\(algorithm)")
        }
        let all = try MultiDigester(algorithms: DigestAlgorithm.allCases)
        all.update(message)
        #expect(all.finalize().map(\.hex) == Self.millionA.map(\.1))
    }

    @Test func openSSLVersionNamesTheLibrary() {
        #expect(Digester.openSSLVersion.hasPrefix("OpenSSL "))
    }
}
