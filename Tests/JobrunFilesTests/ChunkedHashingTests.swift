import JobrunCore
import JobrunFiles
import JobrunTestSupport
import Testing

/// Property: however a message is cut into update() calls, the digest is the one-shot digest.
struct ChunkedHashingTests {
    @Test(arguments: DigestAlgorithm.allCases)
    func chunkBoundariesDoNotMatter(_ algorithm: DigestAlgorithm) throws {
        var random = SeededGenerator(seed: 0x6A6F_6272_756E + UInt64(algorithm.byteCount))
        let digester = try Digester(algorithm: algorithm)
        for trial in 0..<80 {
            // Bias towards the interesting sizes: empty, around block sizes, then anything up to 200 KiB.
            let size =
                switch trial {
                case 0: 0
                case 1..<20: Int.random(in: 1...300, using: &random)
                default: Int.random(in: 0...(200 << 10), using: &random)
                }
            let message = random.bytes(size)
            let expected = try Digest.compute(algorithm, of: message)
            var offset = 0
            message.withUnsafeBytes { bytes in
                while offset < size {
                    let length = Int.random(in: 0...min(size - offset, Bool.random(using: &random) ? 130 : 70_000), using: &random)
                    digester.update(UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + length)]))
                    offset += length
                }
            }
            #expect(digester.finalize() == expected, "trial \(trial), \(size) bytes")
        }
    }

    @Test func multiDigesterMatchesEachAlgorithm() throws {
        var random = SeededGenerator(seed: 42)
        let message = random.bytes(3 << 20 + 12_345)  // spans several 1 MiB slices
        let multi = try MultiDigester(algorithms: [.sha512, .md5, .sha256, .md5])
        #expect(multi.algorithms == [.md5, .sha256, .sha512])
        var offset = 0
        while offset < message.count {
            let length = min(message.count - offset, Int.random(in: 1...(1_500_000), using: &random))
            multi.update(Array(message[offset..<(offset + length)]))
            offset += length
        }
        let expected = try [DigestAlgorithm.md5, .sha256, .sha512].map { try Digest.compute($0, of: message) }
        #expect(multi.finalize() == expected)
        // Finalizing starts over.
        multi.update(message)
        #expect(multi.finalize() == expected)
    }

    @Test func copyForksTheState() throws {
        let prefix = Array("The quick brown fox ".utf8)
        let original = try Digester(algorithm: .sha256)
        original.update(prefix)
        let fork = try original.copy()
        original.update(Array("jumps".utf8))
        fork.update(Array("sleeps".utf8))
        #expect(original.finalize() == (try Digest.compute(.sha256, of: prefix + Array("jumps".utf8))))
        #expect(fork.finalize() == (try Digest.compute(.sha256, of: prefix + Array("sleeps".utf8))))
    }

    @Test func resetForgetsInput() throws {
        let digester = try Digester(algorithm: .sha1)
        digester.update(Array("garbage".utf8))
        digester.reset()
        digester.update(Array("abc".utf8))
        #expect(digester.finalize().hex == "a9993e364706816aba3e25717850c26c9cd0d89d")
    }
}
