import Dispatch
import Synchronization
import JobrunCore
import JobrunSystem

/// Bytes for a descriptor, written by a thread of its own so that the thread that produces them
/// (the run's driver) never waits for a slow reader: a pipe whose reader lags, a terminal,
/// a file on a slow disk.
///
/// What is handed over waits in a buffer until the thread takes all of it at once. Past
/// ``capacity`` bytes waiting, ``write(_:)`` blocks until the thread has taken them: a reader
/// that never reads stalls the producer once that much is waiting, as a pipe would, instead of
/// the buffer growing without end. The first failed `write(2)` (a full disk, a reader gone:
/// `EPIPE` with SIGPIPE ignored) is told once to `onFailure`; from then on bytes are dropped
/// and nothing blocks.
public final class BackgroundWriter: Sendable {
    /// 8 MiB: some 25,000 events of a few hundred bytes.
    public static let defaultCapacity = 8 << 20

    public let capacity: Int
    private let descriptor: Int32
    private let closesDescriptor: Bool
    private let shared = Shared()

    private struct State {
        var pending: [UInt8] = []
        var isFinishing = false
        var isWaitingForRoom = false
        var failure: Int32?
    }

    /// State shared with the thread.
    private final class Shared: Sendable {
        let state = Mutex(State())
        let hasWork = DispatchSemaphore(value: 0)
        let hasRoom = DispatchSemaphore(value: 0)
        let finished = DispatchSemaphore(value: 0)
    }

    /// Starts the thread.
    /// - Parameters:
    ///   - closesDescriptor: close `descriptor` once everything is written (a file jobrun
    ///     opened; not stdout).
    ///   - onFailure: called once, on the writer's thread, with the `errno` of the first failed
    ///     write.
    /// - Throws: the `pthread_create` error when the thread cannot start.
    public init(
        descriptor: Int32, closesDescriptor: Bool, capacity: Int = defaultCapacity, name: String = "jobrun-events",
        onFailure: @escaping @Sendable (Int32) -> Void
    ) throws(StartError) {
        self.descriptor = descriptor
        self.closesDescriptor = closesDescriptor
        self.capacity = capacity
        let shared = self.shared
        let failure = DetachedThread.start(name: name) {
            while true {
                shared.hasWork.wait()
                let (batch, isLast, freesProducer) = shared.state.withLock { state in
                    let taken = state.pending
                    state.pending = []
                    let frees = state.isWaitingForRoom
                    state.isWaitingForRoom = false
                    return (taken, state.isFinishing, frees)
                }
                if freesProducer { shared.hasRoom.signal() }
                if !batch.isEmpty, let code = batch.withUnsafeBytes({ DescriptorIO.writeAll(descriptor, $0) }) {
                    let isFirst = shared.state.withLock { state in
                        defer { state.failure = state.failure ?? code }
                        return state.failure == nil
                    }
                    if isFirst { onFailure(code) }
                }
                if isLast { break }
            }
            shared.finished.signal()
        }
        if let failure { throw StartError(code: failure) }
    }

    /// Hands `bytes` to the thread; blocks only while more than ``capacity`` bytes wait.
    public func write(_ bytes: [UInt8]) {
        let (wakes, waits) = shared.state.withLock { state -> (Bool, Bool) in
            guard state.failure == nil, !state.isFinishing else { return (false, false) }
            let wasEmpty = state.pending.isEmpty
            state.pending.append(contentsOf: bytes)
            let waits = state.pending.count > capacity
            if waits { state.isWaitingForRoom = true }
            return (wasEmpty, waits)
        }
        // The thread takes everything pending at once: one wake-up per empty → non-empty.
        if wakes { shared.hasWork.signal() }
        if waits { shared.hasRoom.wait() }
    }

    /// Writes what is pending, stops the thread and waits for it (and closes the descriptor when
    /// it owns it). Any thread may call it, any number of times: each call returns once
    /// everything is written. Later writes do nothing.
    public func finish() {
        let isFirst = shared.state.withLock { state in
            defer { state.isFinishing = true }
            return !state.isFinishing
        }
        if isFirst { shared.hasWork.signal() }
        // Passed on, so that every caller gets through.
        shared.finished.wait()
        shared.finished.signal()
        if isFirst && closesDescriptor { close(descriptor) }
    }

    /// The `errno` of the first failed write, if any.
    public var failure: Int32? { shared.state.withLock { $0.failure } }

    /// The thread could not start: `code` is the `pthread_create` error.
    public struct StartError: Error, Sendable, Hashable, CustomStringConvertible {
        public var code: Int32
        public var description: String { "cannot start a thread: \(systemErrorText(code))" }
    }
}
