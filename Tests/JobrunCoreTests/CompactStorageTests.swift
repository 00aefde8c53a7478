import Testing
@testable import JobrunCore

/// Values kept once per slice store their fields compactly; what they give back is what they
/// were given.
@Suite struct CompactStorageTests {
    /// Every algorithm's bytes, inline (up to 32) or not, round-trip; so do lengths no
    /// algorithm has, and equality and hashing go by algorithm and every byte.
    @Test func digestsKeepEveryByte() throws {
        for algorithm in DigestAlgorithm.allCases {
            let bytes = (0..<algorithm.byteCount).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
            let d = Digest(algorithm: algorithm, bytes: bytes)
            #expect(d.algorithm == algorithm)
            #expect(d.bytes == bytes)
            #expect(try #require(Digest(algorithm: algorithm, hex: d.hex)) == d)
            var last = bytes
            last[last.count - 1] ^= 1
            #expect(Digest(algorithm: algorithm, bytes: last) != d)
            var changed = d
            changed.bytes[0] ^= 0x80
            #expect(changed != d && changed.bytes[0] == bytes[0] ^ 0x80 && changed.algorithm == algorithm)
            #expect(Set([d, Digest(algorithm: algorithm, bytes: bytes), changed]).count == 2)
        }
        // The same bytes under two algorithms of that length are two digests.
        let thirtyTwo = [UInt8](repeating: 7, count: 32)
        #expect(Digest(algorithm: .sha256, bytes: thirtyTwo) != Digest(algorithm: .sha224, bytes: thirtyTwo))
        for odd in [[], [1, 2, 3], [UInt8](repeating: 9, count: 33), [UInt8](repeating: 9, count: 70)] as [[UInt8]] {
            let d = Digest(algorithm: .sha256, bytes: odd)
            #expect(d.bytes == odd && d.algorithm == .sha256)
            #expect(d != Digest(algorithm: .sha256, bytes: odd + [0]))
        }
        #expect(MemoryLayout<Digest>.size <= 40)
    }

    @Test func locationsKeepLineAndColumn() {
        var l = JobrunCore.SourceLocation(file: "m.yaml", line: 1_000_000, column: 70_000)
        #expect(l.line == 1_000_000 && l.column == 70_000 && l.description == "m.yaml:1000000:70000")
        l.line = 3
        #expect(l < JobrunCore.SourceLocation(file: "m.yaml", line: 3, column: 70_001))
        #expect(JobrunCore.SourceLocation(file: "m", line: -5, column: Int.max).line == 0)
        #expect(MemoryLayout<JobrunCore.SourceLocation>.size == 24)
    }
}
