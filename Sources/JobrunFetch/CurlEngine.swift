internal import CCurl
import Dispatch
import JobrunCore
import Synchronization

/// Identifies a transfer handed to a ``CurlEngine``.
public struct TransferID: Hashable, Sendable {
    let value: UInt64
}

/// One thread owning a libcurl multi handle: every transfer of a run shares its connection cache,
/// TLS sessions and HTTP/2 connections. Other threads hand it requests and it reports each outcome
/// through the request's completion, on its own thread.
///
/// The engine does not queue: callers start a transfer only when their own per-host and total
/// limits allow (libcurl's own queue would count queued time against `CURLOPT_TIMEOUT`).
/// Redirects are not followed here (`CURLOPT_FOLLOWLOCATION` is off): the caller sees the 3xx and
/// decides, so it can drop secret headers when the origin changes.
public final class CurlEngine: Sendable {
    private struct Inbox {
        var commands: [EngineCommand] = []
        var nextID: UInt64 = 1
        var isShutDown = false
        /// The engine thread found no command and is in (or about to enter) `curl_multi_poll`:
        /// the next command must wake it. Otherwise it drains the inbox before it polls again,
        /// so a wakeup (a write to libcurl's wakeup socket, and a poll that returns for nothing)
        /// would be wasted.
        var isPolling = false
    }

    /// State shared with the engine thread.
    private final class Shared: Sendable {
        let inbox = Mutex(Inbox())
        /// Signalled once, when the engine thread has left its loop.
        let finished = DispatchSemaphore(value: 0)
    }

    private let shared = Shared()
    /// The multi handle, used by other threads only for `curl_multi_wakeup` (which is thread-safe).
    private let multi: MultiHandle

    /// - Parameter afterCallbacks: runs on the engine thread after each turn of its loop that
    ///   ran sinks or completions, before it sleeps. A caller that collects what completions
    ///   report can wake its own consumer once per turn here instead of once per transfer.
    public init(afterCallbacks: @escaping @Sendable () -> Void = {}) throws(EngineError) {
        CurlGlobal.initialize()
        guard let m = curl_multi_init() else { throw EngineError("curl_multi_init failed") }
        multi = MultiHandle(m)
        let loop = EventLoop(multi: multi)
        let shared = self.shared
        let failure = DetachedThread.start(name: "jobrun-curl") {
            loop.run(
                takeCommands: {
                    shared.inbox.withLock { box in
                        let c = box.commands
                        box.commands = []
                        return c
                    }
                },
                mayPoll: {
                    // Checked and set in one critical section with the senders' append.
                    shared.inbox.withLock { box in
                        box.isPolling = box.commands.isEmpty
                        return box.isPolling
                    }
                },
                didPoll: { shared.inbox.withLock { $0.isPolling = false } },
                afterCallbacks: afterCallbacks)
            shared.finished.signal()
        }
        if let failure {
            shared.inbox.withLock { $0.isShutDown = true }
            shared.finished.signal()
            throw EngineError("cannot start the engine thread: \(String(cString: strerror(failure)))")
        }
    }

    /// Starts a transfer now. `completion` runs once, on the engine's thread.
    @discardableResult
    public func start(_ request: TransferRequest, sink: any TransferSink, completion: @escaping @Sendable (TransferResult) -> Void) -> TransferID {
        let sent: (id: TransferID, wake: Bool)? = shared.inbox.withLock { box in
            guard !box.isShutDown else { return nil }
            let id = TransferID(value: box.nextID)
            box.nextID += 1
            box.commands.append(.start(id, request, sink, completion))
            return (id, Self.takeWakeup(&box))
        }
        guard let sent else {
            completion(.failed(.cancelled))
            return TransferID(value: 0)
        }
        if sent.wake { multi.wakeup() }
        return sent.id
    }

    /// Aborts a transfer; its completion reports `.cancelled` unless it already finished.
    public func cancel(_ id: TransferID) {
        let wake = shared.inbox.withLock { box in
            box.commands.append(.cancel(id))
            return Self.takeWakeup(&box)
        }
        if wake { multi.wakeup() }
    }

    /// Whether the sender of a command just appended must wake the engine thread: only when it
    /// is polling, and then only the first sender (the others' commands ride on that wakeup).
    private static func takeWakeup(_ box: inout Inbox) -> Bool {
        guard box.isPolling else { return false }
        box.isPolling = false
        return true
    }

    /// Aborts every transfer and stops the thread; waits for it to finish.
    public func shutdown() {
        let first = shared.inbox.withLock { box -> Bool in
            defer { box.isShutDown = true }
            if !box.isShutDown { box.commands.append(.shutdown) }
            return !box.isShutDown
        }
        if first { multi.wakeup() }
        // Passed on, so that every caller returns only once the thread has finished.
        shared.finished.wait()
        shared.finished.signal()
    }

    deinit { shutdown() }
}

enum EngineCommand {
    case start(TransferID, TransferRequest, any TransferSink, @Sendable (TransferResult) -> Void)
    case cancel(TransferID)
    case shutdown
}

public struct EngineError: Error, Sendable, CustomStringConvertible {
    public var description: String
    public init(_ d: String) { description = d }
}

/// `curl_global_init` exactly once, before any other libcurl call.
enum CurlGlobal {
    private static let once: Bool = {
        curl_global_init(Int(CURL_GLOBAL_ALL)) == CURLE_OK
    }()

    static func initialize() { _ = once }
}

/// The multi handle pointer; `curl_multi_wakeup` may be called from any thread, everything else
/// happens on the engine thread.
final class MultiHandle: @unchecked Sendable {
    let pointer: UnsafeMutableRawPointer
    init(_ p: UnsafeMutableRawPointer) { pointer = p }
    func wakeup() { curl_multi_wakeup(pointer) }
}
