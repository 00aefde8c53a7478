import Dispatch
import JobrunCore
import JobrunTestSupport
import Synchronization
import Testing
@testable import JobrunReport

/// The events' writer thread: every byte in order; a reader that has not read yet does not hold
/// up the producer below the bound, and does above it; a failed write is told once and the
/// producer never blocks after it.
@Suite struct BackgroundWriterTests {
    final class Failures: Sendable {
        let codes = Mutex<[Int32]>([])
    }

    /// A pipe's two ends.
    static func pipe() throws -> (read: Int32, write: Int32) {
        var fds: [Int32] = [0, 0]
        try #require(Glibc.pipe(&fds) == 0)
        return (fds[0], fds[1])
    }

    /// Everything from `fd` until end-of-file.
    static func readAll(_ fd: Int32) -> [UInt8] {
        var out: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0, errno == EINTR { continue }
            guard n > 0 else { return out }
            out += buffer[0..<n]
        }
    }

    static func chunk(_ i: Int, size: Int = 1_000) -> [UInt8] {
        Array(repeating: UInt8(truncatingIfNeeded: i), count: size - 1) + [0x0A]
    }

    /// Reads `fd` to its end on a queue of its own; the bytes once it got there.
    final class Reader: Sendable {
        let received = Mutex<[UInt8]?>(nil)
        init(_ fd: Int32) {
            DispatchQueue(label: "reader").async { [self] in
                let bytes = BackgroundWriterTests.readAll(fd)
                received.withLock { $0 = bytes }
            }
        }
        var bytes: [UInt8]? { received.withLock { $0 } }
    }

    @Test func everyByteArrivesInOrderAndFinishClosesTheDescriptor() async throws {
        let (r, w) = try Self.pipe()
        defer { close(r) }
        let writer = try BackgroundWriter(descriptor: w, closesDescriptor: true, capacity: 1 << 20) { _ in }
        // 512 KB against a pipe nobody reads yet: below the bound, no write waits for the reader.
        var expected: [UInt8] = []
        for i in 0..<512 {
            writer.write(Self.chunk(i))
            expected += Self.chunk(i)
        }
        let reader = Reader(r)
        writer.finish()
        writer.finish()
        writer.write(Self.chunk(9))
        // End-of-file comes only once the writer has closed its end.
        #expect(await Poll.until(timeout: .seconds(20)) { reader.bytes != nil })
        #expect(reader.bytes == expected)
        #expect(writer.failure == nil)
    }

    /// A reader that does not read stalls the producer once the bound is passed; reading lets
    /// it go on, and nothing is lost.
    @Test func theProducerWaitsOnlyPastTheBound() async throws {
        let (r, w) = try Self.pipe()
        defer { close(r) }
        let capacity = 16_000
        let writer = try BackgroundWriter(descriptor: w, closesDescriptor: true, capacity: capacity) { _ in }
        // Far more than the pipe (64 KiB on Linux) and twice the bound hold together: without the
        // bound the producer would be done at once.
        let total = 1_000
        let written = Atomic<Int>(0)
        DispatchQueue(label: "producer").async {
            for i in 0..<total {
                writer.write(Self.chunk(i))
                written.add(1, ordering: .sequentiallyConsistent)
            }
        }
        let count = { written.load(ordering: .sequentiallyConsistent) }
        #expect(await Poll.until(timeout: .seconds(20)) { count() * 1_000 > 2 * capacity })
        #expect(count() < total, "the producer never waited for the reader")
        let reader = Reader(r)
        #expect(await Poll.until(timeout: .seconds(20)) { count() == total })
        writer.finish()
        #expect(await Poll.until(timeout: .seconds(20)) { reader.bytes != nil })
        #expect(reader.bytes == (0..<total).flatMap { Self.chunk($0) })
    }

    /// A full disk: said once, and from then on nothing waits (far past the bound here).
    @Test func aFailedWriteIsToldOnceAndNothingBlocksAfterIt() async throws {
        let fd = open("/dev/full", O_WRONLY)
        try #require(fd >= 0)
        let failures = Failures()
        let writer = try BackgroundWriter(descriptor: fd, closesDescriptor: true, capacity: 4_000) { code in
            failures.codes.withLock { $0.append(code) }
        }
        writer.write(Self.chunk(0))
        #expect(await Poll.until(timeout: .seconds(20)) { writer.failure != nil })
        for i in 0..<1_000 { writer.write(Self.chunk(i)) }
        writer.finish()
        #expect(failures.codes.withLock { $0 } == [ENOSPC])
        #expect(writer.failure == ENOSPC)
    }
}
