internal import CCurl
import Dispatch
import JobrunCore
import Synchronization
import JobrunSystem

/// Identifies a transfer handed to a ``CurlEngine``.
public struct TransferID: Hashable, Sendable {
    let value: UInt64
}

/// A libcurl multi handle and the loop that moves its transfers: every transfer of one engine
/// shares its connection cache, TLS sessions and HTTP/2 connections. Any thread hands it requests;
/// it reports each outcome through the request's completion, on the loop's thread. The loop runs
/// on a thread of the engine's own (``init(afterCallbacks:)``), or on its owner's thread, a turn
/// at a time (``driven()`` and ``turn(timeoutMilliseconds:mayPoll:didPoll:)``): an owner that
/// would otherwise sleep until completions arrive sleeps in the engine's poll instead, and a
/// completion reaches it without a wakeup of another thread.
///
/// The engine does not queue: callers start a transfer only when their own per-host and total
/// limits allow (libcurl's own queue would count queued time against `CURLOPT_TIMEOUT`).
/// Redirects are not followed here (`CURLOPT_FOLLOWLOCATION` is off): the caller sees the 3xx and
/// decides, so it can drop secret headers when the origin changes.
public final class CurlEngine: Sendable {
    /// State shared with the loop's thread.
    private final class Shared: Sendable {
        /// Commands for the loop. Its thread marks itself waiting when it finds none and is about
        /// to enter `curl_multi_poll`: only then must the next command wake it (otherwise it
        /// drains them before it polls again, and a wakeup — a write to libcurl's wakeup socket,
        /// and a poll that returns for nothing — would be wasted).
        let inbox = Mailbox<EngineCommand>()
        let nextID = Atomic<UInt64>(1)
        /// Signalled once, when the engine thread has left its loop.
        let finished = DispatchSemaphore(value: 0)
    }

    private let shared = Shared()
    /// The multi handle, used by other threads only for `curl_multi_wakeup` (which is thread-safe).
    private let multi: MultiHandle
    /// A driven engine's loop until it has shut down; `nil` for an engine with its own thread.
    /// Only the owner's thread turns it (the lock is never contended).
    private let drivenLoop: Mutex<EventLoop?>

    private init(multi: MultiHandle, drivenLoop: EventLoop?) {
        self.multi = multi
        self.drivenLoop = Mutex(drivenLoop)
    }

    /// An engine without a thread: its owner calls ``turn(timeoutMilliseconds:mayPoll:didPoll:)``,
    /// always from one thread, and completions run there, inside that call. Any thread may start
    /// and cancel transfers and call ``wake()``; ``shutdown()`` belongs to the owner's thread.
    /// - Parameters:
    ///   - budget: a rate limit its transfers share with every engine given the same one.
    ///   - arrivals: where its transfers count their body bytes as they arrive.
    ///   - streams: transfers a multiplexed (HTTP/2) connection carries at once at most; the
    ///     server's own limit applies too.
    public static func driven(
        sharing budget: SharedRateBudget? = nil, counting arrivals: ArrivalCounter? = nil, streams: Int = 100, connectionsPerHost: Int = 0
    ) throws(EngineError) -> CurlEngine {
        let multi = try MultiHandle.make(streams: streams, connectionsPerHost: connectionsPerHost)
        return CurlEngine(multi: multi, drivenLoop: EventLoop(multi: multi, budget: budget, arrivals: arrivals))
    }

    /// One turn of a driven engine: the queued commands, the transfers' progress, then — when
    /// `mayPoll` allows (it sees no reason to return, and marks its owner as sleeping) — a wait
    /// of at most `timeoutMilliseconds` for the sockets or a ``wake()``, `didPoll`, and progress
    /// again. Returns at once for an engine with its own thread or one that has shut down.
    public func turn(timeoutMilliseconds: Int32, mayPoll: () -> Bool, didPoll: () -> Void) {
        let shared = self.shared
        drivenLoop.withLock { loop in
            guard let l = loop else { return }
            let alive = l.turn(
                takeCommands: shared.inbox.take, timeoutMilliseconds: timeoutMilliseconds,
                mayPoll: {
                    guard shared.inbox.mayWait() else { return false }
                    if mayPoll() { return true }
                    shared.inbox.didWait()
                    return false
                },
                didPoll: {
                    shared.inbox.didWait()
                    didPoll()
                })
            if !alive {
                loop = nil
                shared.finished.signal()
            }
        }
    }

    /// Ends a driven engine's wait in ``turn``, or makes its next one return at once (any thread).
    public func wake() { multi.wakeup() }

    /// - Parameters:
    ///   - budget: a rate limit its transfers share with every engine given the same one.
    ///   - arrivals: where its transfers count their body bytes as they arrive.
    ///   - afterCallbacks: runs on the engine thread after each turn of its loop that ran sinks
    ///     or completions, before it sleeps. A caller that collects what completions report can
    ///     wake its own consumer once per turn here instead of once per transfer.
    ///   - streams: transfers a multiplexed (HTTP/2) connection carries at once at most.
    public convenience init(
        sharing budget: SharedRateBudget? = nil, counting arrivals: ArrivalCounter? = nil, streams: Int = 100, connectionsPerHost: Int = 0,
        afterCallbacks: @escaping @Sendable () -> Void = {}
    ) throws(EngineError) {
        self.init(multi: try MultiHandle.make(streams: streams, connectionsPerHost: connectionsPerHost), drivenLoop: nil)
        let loop = EventLoop(multi: multi, budget: budget, arrivals: arrivals)
        let shared = self.shared
        let failure = DetachedThread.start(name: "jobrun-curl") {
            loop.run(takeCommands: shared.inbox.take, mayPoll: shared.inbox.mayWait, didPoll: shared.inbox.didWait, afterCallbacks: afterCallbacks)
            shared.finished.signal()
        }
        if let failure {
            shared.inbox.close()
            shared.finished.signal()
            throw EngineError("cannot start the engine thread: \(systemErrorText(failure))")
        }
    }

    /// Starts a transfer now. `completion` runs once, on the engine's thread (for a driven engine:
    /// the owner's thread, inside ``turn(timeoutMilliseconds:mayPoll:didPoll:)``).
    @discardableResult
    public func start(_ request: TransferRequest, sink: any TransferSink, completion: @escaping @Sendable (TransferResult) -> Void) -> TransferID {
        let id = TransferID(value: shared.nextID.wrappingAdd(1, ordering: .relaxed).oldValue)
        switch shared.inbox.post(.start(id, request, sink, completion)) {
        case .refused:
            completion(.failed(.cancelled))
            return TransferID(value: 0)
        case .wake:
            multi.wakeup()
        case .queued:
            break
        }
        return id
    }

    /// Aborts a transfer; its completion reports `.cancelled` unless it already finished.
    public func cancel(_ id: TransferID) {
        if shared.inbox.post(.cancel(id)) == .wake { multi.wakeup() }
    }

    /// Aborts every transfer and stops the loop; returns once its thread has finished (a driven
    /// engine's owner runs the last turn itself).
    public func shutdown() {
        if shared.inbox.close(after: .shutdown) { multi.wakeup() }
        // A driven engine: this is its owner's thread, which cancels what runs and cleans up now.
        while drivenLoop.withLock({ $0 != nil }) { turn(timeoutMilliseconds: 0, mayPoll: { false }, didPoll: {}) }
        // Passed on, so that every caller returns only once the thread has finished.
        shared.finished.wait()
        shared.finished.signal()
    }

    deinit { shutdown() }
}

enum EngineCommand: Sendable {
    case start(TransferID, TransferRequest, any TransferSink, @Sendable (TransferResult) -> Void)
    case cancel(TransferID)
    case shutdown
}

public struct EngineError: Error, Sendable, CustomStringConvertible {
    public var description: String
    public init(_ d: String) { description = d }
}

extension CurlEngine {
    /// Loads libcurl (``CurlAPI``) and runs `curl_global_init` (which also initializes OpenSSL
    /// and reads its configuration) if nothing has yet. Every engine does this itself; calling
    /// it early, from another thread, only moves the work: a caller arriving while it runs
    /// waits for it to finish.
    public static func initializeLibrary() { _ = CurlGlobal.initialized }
}

/// libcurl loaded, and `curl_global_init` run exactly once, before any other call (but the
/// version check of ``CurlAPI/load(from:minimumVersion:)``).
enum CurlGlobal {
    static let initialized: Result<CurlAPI, EngineError> = CurlAPI.shared.flatMap { api in
        let code = api.globalInit(Int(CURL_GLOBAL_ALL))
        guard code == CURLE_OK else { return .failure(EngineError("curl_global_init failed: \(api.message(code))")) }
        return .success(api)
    }
}

/// The multi handle pointer; `curl_multi_wakeup` may be called from any thread, everything else
/// happens on the engine thread.
final class MultiHandle: @unchecked Sendable {
    let pointer: UnsafeMutableRawPointer
    let api: CurlAPI
    init(_ p: UnsafeMutableRawPointer, api: CurlAPI) {
        pointer = p
        self.api = api
    }

    static func make(streams: Int = 100, connectionsPerHost: Int = 0) throws(EngineError) -> MultiHandle {
        let api = try CurlGlobal.initialized.get()
        guard let m = api.multiInit() else { throw EngineError("curl_multi_init failed") }
        // libcurl's own defaults are 100 streams per connection and no limit of connections.
        for (option, value, name) in [
            (CURLMOPT_MAX_CONCURRENT_STREAMS, streams, "CURLMOPT_MAX_CONCURRENT_STREAMS"),
            (CURLMOPT_MAX_HOST_CONNECTIONS, connectionsPerHost, "CURLMOPT_MAX_HOST_CONNECTIONS"),
        ] {
            let code = jobrun_multi_setopt_long(api.multiSetopt, m, option, value)
            guard code == CURLM_OK else {
                _ = api.multiCleanup(m)
                throw EngineError("curl_multi_setopt(\(name), \(value)) failed: code \(code.rawValue)")
            }
        }
        return MultiHandle(m, api: api)
    }
    func wakeup() { _ = api.multiWakeup(pointer) }
}
