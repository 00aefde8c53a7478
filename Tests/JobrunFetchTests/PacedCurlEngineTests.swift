import Foundation
import JobrunTestSupport
import Synchronization
import Testing
@testable import JobrunFetch

/// Engines given one ``SharedRateBudget``: the budget's write callbacks pause transfers, the
/// loops resume them, and the sum of every transfer of every engine holds the rate.
@Suite struct PacedCurlEngineTests {
    /// A sink that refuses the `refused`-th piece it is given and takes every other one.
    final class RefusingSink: TransferSink, @unchecked Sendable {
        let refused: Int
        private(set) var calls = 0
        init(refusing refused: Int) { self.refused = refused }
        func receive(head: ResponseHead) -> BodyDisposition { .accept }
        func receive(body: UnsafeRawBufferPointer) -> Bool {
            calls += 1
            return calls != refused
        }
    }

    /// A sink that counts what it takes, readable from any thread while the transfer runs.
    final class CountingSink: TransferSink, Sendable {
        let received = Mutex(0)
        func receive(head: ResponseHead) -> BodyDisposition { .accept }
        func receive(body: UnsafeRawBufferPointer) -> Bool {
            received.withLock { $0 += body.count }
            return true
        }
    }

    /// A driven engine and one with its own thread, sharing 1 MiB/s: 24 bodies of 128 KiB, half
    /// on each, take 3 MiB ÷ 1 MiB/s, not half that (a budget per engine), whatever each engine's
    /// transfers do. The burst (a tenth of a second) is within the margin. The driven engine is
    /// turned on a thread of its own, not on one of the few that run Swift tasks.
    @Test func oneBudgetHoldsTheRateOverBothEngines() async throws {
        let server = try FaultServer()
        defer { server.stop() }
        let rate: Int64 = 1 << 20
        let budget = SharedRateBudget(bytesPerSecond: rate)
        let driven = try CurlEngine.driven(sharing: budget)
        defer { driven.shutdown() }
        let threaded = try CurlEngine(sharing: budget)
        defer { threaded.shutdown() }
        let size = 128 << 10
        let count = 24
        let sinks = (0..<count).map { _ in RecordingSink() }
        let results = Mutex<[Int: TransferResult]>([:])
        let started = ContinuousClock.now
        for (i, sink) in sinks.enumerated() {
            let engine = i.isMultiple(of: 2) ? driven : threaded
            engine.start(TransferRequest(url: server.url("/gen/\(size)/paced\(i).bin")), sink: sink) { r in
                results.withLock { $0[i] = r }
            }
        }
        let elapsed = await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                let deadline = started + .seconds(30)
                while results.withLock({ $0.count }) < count, ContinuousClock.now < deadline {
                    driven.turn(timeoutMilliseconds: 100, mayPoll: { true }, didPoll: {})
                }
                continuation.resume(returning: ContinuousClock.now - started)
            }
        }
        let finished = results.withLock { $0 }
        try #require(finished.count == count, "\(finished.count) of \(count) transfers finished in \(elapsed)")
        for (i, sink) in sinks.enumerated() {
            #expect(finished[i]?.failure == nil, "transfer \(i): \(String(describing: finished[i]?.failure))")
            #expect(sink.body == Generated.bytes(size: size, name: "paced\(i).bin"), "transfer \(i)")
        }
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
        let measured = Double(size * count) / seconds
        #expect(abs(measured / Double(rate) - 1) <= 0.1, "\(Int(measured)) B/s for a limit of \(rate) B/s (\(elapsed))")
    }

    /// Under a limit a receive buffer is no larger than the burst (a piece borrows at most one
    /// burst), and never below libcurl's default; an unset one stays libcurl's default.
    @Test func aPacedTransfersReceiveBufferIsCutToTheBurst() {
        var request = TransferRequest(url: "http://127.0.0.1:1/a")
        request.receiveBufferSize = 512 << 10
        let buffer = { (rate: Int64, request: TransferRequest) in Pacer(budget: SharedRateBudget(bytesPerSecond: rate)).paced(request).receiveBufferSize }
        #expect(buffer(1 << 20, request) == (1 << 20) / 10)
        #expect(buffer(8 << 10, request) == 16 << 10)
        #expect(buffer(100 << 20, request) == 512 << 10)
        #expect(buffer(8 << 10, TransferRequest(url: "http://127.0.0.1:1/a")) == nil)
    }

    /// The piece libcurl delivers again when a paused transfer is resumed goes through the same
    /// sink: when the sink refuses it, the transfer ends as aborted by the sink, as it would
    /// have had the piece come first time.
    @Test func aPieceRefusedOnResumeAbortsTheTransfer() async throws {
        let server = try FaultServer()
        defer { server.stop() }
        let engine = try CurlEngine(sharing: SharedRateBudget(bytesPerSecond: 64 << 10))
        defer { engine.shutdown() }
        let sink = RefusingSink(refusing: 3)
        let result = await withCheckedContinuation { continuation in
            engine.start(TransferRequest(url: server.url("/gen/262144/refused.bin")), sink: sink) { continuation.resume(returning: $0) }
        }
        #expect(result.failure == .abortedBySink, "\(String(describing: result.failure)), \(result.bodyBytes) bytes")
        #expect(sink.calls == 3)
    }

    /// libcurl cannot pause a file:// transfer (it fails it): local files are not paced.
    @Test func aLocalFileIsNotPaced() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let bytes = Generated.bytes(size: 200_000, name: "local.bin")
        let path = try directory.write(file: "local.bin", bytes: bytes)
        let engine = try CurlEngine(sharing: SharedRateBudget(bytesPerSecond: 1))
        defer { engine.shutdown() }
        let sink = RecordingSink()
        let result = await fetch(engine, TransferRequest(url: "file://\(path)", allowsFileScheme: true), sink: sink)
        #expect(result.failure == nil, "\(String(describing: result.failure))")
        #expect(sink.body == bytes)
    }

    /// A transfer cancelled while the budget holds it paused ends as cancelled, and the engine
    /// goes on with the next one. The body would take an hour at the rate: it is still running
    /// when it is cancelled, however long a loaded machine holds this test up.
    @Test func aPausedTransferCanBeCancelled() async throws {
        let server = try FaultServer()
        defer { server.stop() }
        let engine = try CurlEngine(sharing: SharedRateBudget(bytesPerSecond: 16 << 10))
        defer { engine.shutdown() }
        let slow = CountingSink()
        let first = Mutex<TransferResult?>(nil)
        let id = engine.start(TransferRequest(url: server.url("/gen/\(64 << 20)/cancelled.bin")), sink: slow) { r in
            first.withLock { $0 = r }
        }
        // Past the burst and one borrowed piece: from here on it is paused most of the time.
        try #require(await Poll.until(timeout: .seconds(10)) { slow.received.withLock { $0 } >= 32 << 10 })
        engine.cancel(id)
        #expect(await Poll.until(timeout: .seconds(10)) { first.withLock { $0 } != nil })
        #expect(first.withLock { $0?.failure } == .cancelled)
        let next = RecordingSink()
        let result = await fetch(engine, TransferRequest(url: server.url("/gen/1000/next.bin")), sink: next)
        #expect(result.failure == nil && next.body == Generated.bytes(size: 1000, name: "next.bin"))
    }
}
