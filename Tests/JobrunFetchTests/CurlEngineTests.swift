import Foundation
import JobrunTestSupport
import Synchronization
import Testing
@testable import JobrunFetch

/// A sink that keeps what it is given, for assertions.
final class RecordingSink: TransferSink, @unchecked Sendable {
    let disposition: (ResponseHead) -> BodyDisposition
    private(set) var body: [UInt8] = []
    let limit: Int

    init(limit: Int = .max, disposition: @escaping (ResponseHead) -> BodyDisposition = { _ in .accept }) {
        self.limit = limit
        self.disposition = disposition
    }

    func receive(head: ResponseHead) -> BodyDisposition {
        disposition(head)
    }

    func receive(body bytes: UnsafeRawBufferPointer) -> Bool {
        if body.count + bytes.count > limit { return false }
        body.append(contentsOf: bytes)
        return true
    }
}

/// Runs one transfer and waits for its completion (the engine calls back on its own thread).
func fetch(_ engine: CurlEngine, _ request: TransferRequest, sink: RecordingSink) async -> TransferResult {
    await withCheckedContinuation { continuation in
        engine.start(request, sink: sink) { continuation.resume(returning: $0) }
    }
}

@Suite struct CurlEngineTests {
    @Test func fetchesABodyAndItsHead() async throws {
        let server = try FaultServer()
        defer { server.stop() }
        let engine = try CurlEngine()
        defer { engine.shutdown() }
        let sink = RecordingSink()
        let result = await fetch(engine, TransferRequest(url: server.url("/gen/70001/engine.bin")), sink: sink)
        #expect(result.failure == nil)
        #expect(result.head?.status == 200)
        #expect(result.head?.value("content-length") == "70001")
        #expect(result.bodyBytes == 70_001)
        #expect(result.httpVersion == "1.1")
        #expect(sink.body == Generated.bytes(size: 70_001, name: "engine.bin"))
    }

    @Test func sendsRangeAndIfRangeAndNeverAcceptEncoding() async throws {
        let server = try FaultServer()
        defer { server.stop() }
        let engine = try CurlEngine()
        defer { engine.shutdown() }
        let sink = RecordingSink()
        let request = TransferRequest(url: server.url("/gen/1000/r.bin"), headers: [("X-Trace", "t1")], rangeStart: 600, ifRange: "\"nope\"")
        let result = await fetch(engine, request, sink: sink)
        // A mismatched validator: the server answers with the whole representation.
        #expect(result.head?.status == 200)
        let log = try await server.waitForRequests { $0.count == 1 }
        #expect(log.first?.header(named: "Range") == "bytes=600-")
        #expect(log.first?.header(named: "If-Range") == "\"nope\"")
        #expect(log.first?.header(named: "X-Trace") == "t1")
        #expect(log.first?.header(named: "Accept-Encoding") == nil)
    }

    /// Easy handles are reused without `curl_easy_reset`: what one transfer set (a range, an
    /// If-Range, its headers, a total timeout) must not reach the next on the same handle.
    @Test func aReusedHandleCarriesNothingOver() async throws {
        let server = try FaultServer()
        defer { server.stop() }
        let engine = try CurlEngine()
        defer { engine.shutdown() }
        let first = TransferRequest(
            url: server.url("/gen/1000/one.bin"), headers: [("X-Trace", "t1")], rangeStart: 600, ifRange: "\"v\"",
            totalTimeout: .seconds(30))
        _ = await fetch(engine, first, sink: RecordingSink())
        let sink = RecordingSink()
        let second = await fetch(engine, TransferRequest(url: server.url("/gen/3000/two.bin")), sink: sink)
        #expect(second.failure == nil && second.head?.status == 200)
        #expect(Data(sink.body) == Data(Generated.bytes(size: 3000, name: "two.bin")))
        let log = try await server.waitForRequests { $0.count == 2 }
        let plain = try #require(log.last)
        #expect(plain.path == "/gen/3000/two.bin")
        #expect(plain.header(named: "Range") == nil && plain.header(named: "If-Range") == nil && plain.header(named: "X-Trace") == nil, "\(plain)")
    }

    /// Handles made with their own receive buffer (large bodies) are reused only by transfers
    /// that ask for the same size (libcurl 7.88 refuses to resize a buffer it has allocated),
    /// interleaved with transfers on default handles.
    @Test func largeBufferHandlesAreReusedByTheirOwnKind() async throws {
        let server = try FaultServer()
        defer { server.stop() }
        let engine = try CurlEngine()
        defer { engine.shutdown() }
        for (i, size) in [1_500_000, 700, 1_500_000, 1_500_000, 900].enumerated() {
            var request = TransferRequest(url: server.url("/gen/\(size)/b\(i).bin"))
            if size > 1000 { request.receiveBufferSize = 512 << 10 }
            let sink = RecordingSink()
            let result = await fetch(engine, request, sink: sink)
            #expect(result.failure == nil, "transfer \(i): \(String(describing: result.failure))")
            #expect(Data(sink.body) == Data(Generated.bytes(size: size, name: "b\(i).bin")), "transfer \(i)")
        }
    }

    /// The hook a caller uses to wake its consumer runs once a completion has run (the engine
    /// calls it after every turn of its loop, so after the turn that completed the transfer).
    @Test func afterCallbacksRunsAfterCompletions() async throws {
        let server = try FaultServer()
        defer { server.stop() }
        let turns = Mutex(0)
        let completedBeforeHook = Mutex(false)
        let completed = Mutex(false)
        let engine = try CurlEngine(afterCallbacks: {
            turns.withLock { $0 += 1 }
            if completed.withLock({ $0 }) { completedBeforeHook.withLock { $0 = true } }
        })
        defer { engine.shutdown() }
        engine.start(TransferRequest(url: server.url("/gen/10/hook.bin")), sink: RecordingSink()) { _ in completed.withLock { $0 = true } }
        let seen = await Poll.until(timeout: .seconds(20), interval: .milliseconds(5)) { completedBeforeHook.withLock { $0 } }
        #expect(seen, "the hook never ran after the completion (\(turns.withLock { $0 }) turns)")
    }

    @Test func errorStatusesAreHeadsNotFailures() async throws {
        let server = try FaultServer()
        defer { server.stop() }
        let engine = try CurlEngine()
        defer { engine.shutdown() }
        let sink = RecordingSink { _ in .discard(limit: 1 << 16) }
        let result = await fetch(engine, TransferRequest(url: server.url("/status/503?retry_after=7")), sink: sink)
        #expect(result.failure == nil)
        #expect(result.head?.status == 503)
        #expect(result.retryAfter == "7")
        #expect(sink.body.isEmpty)
    }

    @Test func aSinkCanAbort() async throws {
        let server = try FaultServer()
        defer { server.stop() }
        let engine = try CurlEngine()
        defer { engine.shutdown() }
        let sink = RecordingSink(limit: 1000)
        let result = await fetch(engine, TransferRequest(url: server.url("/gen/100000/big.bin")), sink: sink)
        #expect(result.failure == .abortedBySink)
        #expect(sink.body.count <= 1000)
    }

    @Test func transportFailuresAreClassified() async throws {
        let engine = try CurlEngine()
        defer { engine.shutdown() }
        let refused = await fetch(engine, TransferRequest(url: "http://127.0.0.1:1/x"), sink: RecordingSink())
        #expect({ if case .connect = refused.failure { true } else { false } }(), "\(String(describing: refused.failure))")
        let ftp = await fetch(engine, TransferRequest(url: "ftp://127.0.0.1/x"), sink: RecordingSink())
        #expect({ if case .protocolRefused = ftp.failure { true } else { false } }(), "\(String(describing: ftp.failure))")
        #expect(TransferResult.Failure.truncated("").isTransient)
        #expect(!TransferResult.Failure.tls("").isTransient)
    }

    @Test func idleTimeoutEndsAStalledBody() async throws {
        let server = try FaultServer()
        defer { server.stop() }
        let engine = try CurlEngine()
        defer { engine.shutdown() }
        let request = TransferRequest(url: server.url("/fault/stall_at=100/gen/10000/stall.bin"), idleTimeout: .milliseconds(1200))
        let result = await fetch(engine, request, sink: RecordingSink())
        #expect({ if case .timeout = result.failure { true } else { false } }(), "\(String(describing: result.failure))")
    }

    /// A transfer that waits in libcurl's queue (its origin's one connection is busy) has not
    /// been idle: its idle timeout counts from when it leaves the queue.
    @Test func timeInLibcurlsQueueIsNotIdle() async throws {
        let server = try FaultServer()
        defer { server.stop() }
        let engine = try CurlEngine(connectionsPerHost: 1)
        defer { engine.shutdown() }
        // 2,000 bytes at 1,000 bytes/s: about two seconds on the one connection, never idle.
        var slow = TransferRequest(url: server.url("/fault/drip=1000/gen/2000/slow.bin"))
        slow.idleTimeout = .milliseconds(600)
        var queued = TransferRequest(url: server.url("/gen/100/queued.bin"))
        queued.idleTimeout = .milliseconds(600)
        let first = Mutex<TransferResult?>(nil)
        engine.start(slow, sink: RecordingSink()) { r in first.withLock { $0 = r } }
        let second = await fetch(engine, queued, sink: RecordingSink())
        #expect(second.failure == nil, "\(String(describing: second.failure))")
        #expect(await Poll.until(timeout: .seconds(20)) { first.withLock { $0 != nil } })
        #expect(first.withLock { $0?.failure } == nil)
        let log = try await server.waitForRequests { $0.count == 2 }
        #expect(Set(log.map(\.connectionID)).count == 1, "one connection: the second waited for the first")
    }

    /// A body that stalls must not hold up the other transfers to its origin: they take
    /// connections of their own at once. With `CURLOPT_PIPEWAIT` over plain HTTP, libcurl 7.88
    /// kept them waiting until the stalled one had finished, because its response says
    /// `Connection: close` (only a persistent HTTP/1.1 response tells libcurl the origin cannot
    /// multiplex). Over TLS too, where ALPN settles that.
    @Test(arguments: FaultServer.isTLSAvailable ? [false, true] : [false])
    func aStalledBodyHoldsUpNoOtherTransferOfItsOrigin(tls: Bool) async throws {
        let server = try FaultServer(tls: tls)
        defer { server.stop() }
        let engine = try CurlEngine()
        defer { engine.shutdown() }
        func request(_ path: String) throws -> TransferRequest {
            var r = TransferRequest(url: try server.url(path, on: tls ? .tls : .primary))
            r.caFile = server.caFile
            return r
        }
        // Started together, as a run starts its first slices: the stalled one's connection is
        // not up yet when the others ask for one.
        let stalled = RecordingSink()
        engine.start(try request("/fault/stall_at=10/gen/10000/stalled.bin"), sink: stalled) { _ in }
        let done = Mutex(0)
        let sinks = (0..<2).map { _ in RecordingSink() }
        for (i, sink) in sinks.enumerated() {
            engine.start(try request("/gen/5000/after\(i).bin"), sink: sink) { r in
                if r.failure == nil { done.withLock { $0 += 1 } }
            }
        }
        // The stalled body's first bytes arrive on the engine thread too: waited for as well.
        let completed = await Poll.until(timeout: .seconds(20)) { done.withLock { $0 } == 2 && stalled.body.count == 10 }
        #expect(completed, "only \(done.withLock { $0 }) of 2 transfers completed while another body of their origin stalled")
        #expect(stalled.body.count == 10)
        #expect(sinks.enumerated().allSatisfy { i, sink in sink.body == Generated.bytes(size: 5000, name: "after\(i).bin") })
    }

    @Test func cancelAndShutdownCompleteEveryTransfer() async throws {
        let server = try FaultServer()
        defer { server.stop() }
        let engine = try CurlEngine()
        let results = Mutex<[TransferResult]>([])
        let done = Mutex(0)
        var ids: [TransferID] = []
        for i in 0..<3 {
            // Only cancellation may end these: neither an idle timeout nor the server's end of
            // the stall comes within any test's life, however long a loaded machine keeps this
            // test from running.
            let request = TransferRequest(
                url: server.url(FaultServer.path("/gen/10000/c\(i).bin", faults: "stall_at=10", "stall_s=3600")), idleTimeout: .seconds(3600))
            ids.append(
                engine.start(request, sink: RecordingSink()) { r in
                    results.withLock { $0.append(r) }
                    done.withLock { $0 += 1 }
                })
        }
        engine.cancel(ids[0])
        let first = await Poll.until(timeout: .seconds(20), interval: .milliseconds(10)) { done.withLock { $0 } >= 1 }
        #expect(first)
        engine.shutdown()
        #expect(done.withLock { $0 } == 3)
        #expect(results.withLock { $0 }.allSatisfy { $0.failure == .cancelled })
        // After shutdown, a new transfer completes at once as cancelled.
        let late = Mutex<TransferResult?>(nil)
        engine.start(TransferRequest(url: server.url("/gen/10/late.bin")), sink: RecordingSink()) { r in late.withLock { $0 = r } }
        #expect(late.withLock { $0 }?.failure == .cancelled)
    }
}
