import Foundation
import JobrunCore
import JobrunTestSupport
import Synchronization
import Testing
@testable import JobrunFetch
import JobrunSystem

/// An engine without a thread of its own: its owner turns it, and completions run inside the turn,
/// on the owner's thread.
@Suite struct DrivenCurlEngineTests {
    /// Turns `engine` until `done` holds or 20 s pass; the thread that turns is the caller's.
    func turn(_ engine: CurlEngine, until done: () -> Bool) -> Bool {
        let deadline = ContinuousClock.now + .seconds(20)
        while !done() {
            if ContinuousClock.now > deadline { return false }
            engine.turn(timeoutMilliseconds: 100, mayPoll: { true }, didPoll: {})
        }
        return true
    }

    @Test func completionsRunInsideTheOwnersTurn() throws {
        let server = try FaultServer()
        defer { server.stop() }
        let engine = try CurlEngine.driven()
        defer { engine.shutdown() }
        let sink = RecordingSink()
        let result = Mutex<(TransferResult, pthread_t)?>(nil)
        engine.start(TransferRequest(url: server.url("/gen/70001/driven.bin")), sink: sink) { r in
            result.withLock { $0 = (r, pthread_self()) }
        }
        let owner = pthread_self()
        #expect(turn(engine) { result.withLock { $0 != nil } }, "the transfer never completed")
        let (transfer, thread) = try #require(result.withLock { $0 })
        #expect(pthread_equal(thread, owner) != 0, "the completion ran on another thread")
        #expect(transfer.failure == nil && transfer.head?.status == 200)
        #expect(sink.body == Generated.bytes(size: 70_001, name: "driven.bin"))
    }

    /// Many transfers at once share the engine's connections and all complete.
    @Test func concurrentTransfersAllComplete() throws {
        let server = try FaultServer()
        defer { server.stop() }
        let engine = try CurlEngine.driven()
        defer { engine.shutdown() }
        let sinks = (0..<24).map { _ in RecordingSink() }
        let ok = Mutex(0)
        for (i, sink) in sinks.enumerated() {
            engine.start(TransferRequest(url: server.url("/gen/\(1000 + i)/c\(i).bin")), sink: sink) { r in
                if r.failure == nil, r.head?.status == 200 { ok.withLock { $0 += 1 } }
            }
        }
        #expect(turn(engine) { ok.withLock { $0 } == sinks.count }, "\(ok.withLock { $0 }) of \(sinks.count) completed")
        for (i, sink) in sinks.enumerated() {
            #expect(sink.body == Generated.bytes(size: 1000 + i, name: "c\(i).bin"), "transfer \(i)")
        }
    }

    /// A wakeup from another thread ends a long wait at once (or, sent before it, keeps the next
    /// one from starting); an owner that says it must not sleep is not put to sleep.
    @Test func wakeEndsAWaitAndMayPollIsHonoured() throws {
        let engine = try CurlEngine.driven()
        defer { engine.shutdown() }
        let failure = DetachedThread.start(name: "test-wake") { engine.wake() }
        #expect(failure == nil)
        var polled = false
        var started = ContinuousClock.now
        engine.turn(timeoutMilliseconds: 30_000, mayPoll: { true }, didPoll: { polled = true })
        #expect(polled)
        #expect(ContinuousClock.now - started < .seconds(15), "the wakeup did not end the wait")
        polled = false
        started = ContinuousClock.now
        engine.turn(timeoutMilliseconds: 30_000, mayPoll: { false }, didPoll: { polled = true })
        #expect(!polled)
        #expect(ContinuousClock.now - started < .seconds(15), "the engine slept though its owner said not to")
    }

    @Test func shutdownCancelsWhatRunsAndWhatComesLater() throws {
        let server = try FaultServer()
        defer { server.stop() }
        let engine = try CurlEngine.driven()
        let results = Mutex<[TransferResult]>([])
        let sinks = (0..<3).map { _ in RecordingSink() }
        for (i, sink) in sinks.enumerated() {
            // Stalled until the client goes, with no idle timeout: only the shutdown may end them.
            let url = server.url(FaultServer.path("/gen/10000/s\(i).bin", faults: "stall_at=10", "stall_s=3600"))
            engine.start(TransferRequest(url: url, idleTimeout: .seconds(3600)), sink: sink) { r in
                results.withLock { $0.append(r) }
            }
        }
        // Turned until every body has its first bytes (the server then stalls): the transfers are live.
        #expect(turn(engine) { sinks.allSatisfy { $0.body.count == 10 } }, "\(sinks.map(\.body.count))")
        #expect(results.withLock { $0.isEmpty })
        engine.shutdown()
        #expect(results.withLock { $0.count } == 3)
        #expect(results.withLock { $0 }.allSatisfy { $0.failure == .cancelled })
        let late = Mutex<TransferResult?>(nil)
        engine.start(TransferRequest(url: server.url("/gen/10/late.bin")), sink: RecordingSink()) { r in late.withLock { $0 = r } }
        #expect(late.withLock { $0 }?.failure == .cancelled)
        // Turning a shut-down engine does nothing (its multi handle is gone).
        engine.turn(timeoutMilliseconds: 30_000, mayPoll: { true }, didPoll: { Issue.record("a shut-down engine polled") })
    }
}
