internal import CCurl
import JobrunCore

/// An engine's state: the multi handle, live transfers and idle easy handles. Confined to the
/// one thread that runs the engine — its own thread, or for a driven engine the owner's thread,
/// inside `CurlEngine.turn`; `@unchecked Sendable` only so that thread's closure can own it.
final class EventLoop: @unchecked Sendable {
    let multi: MultiHandle
    private var api: CurlAPI { multi.api }
    private var live: [UInt64: Transfer] = [:]
    private var byHandle: [UnsafeMutableRawPointer: UInt64] = [:]
    /// Easy handles kept for reuse, by the options they were made with; libcurl keeps
    /// connections in the multi handle's cache.
    private var idleHandles: [HandleProfile: [UnsafeMutableRawPointer]] = [:]
    /// The run's rate budget, when it has one.
    private let pacer: Pacer?
    /// Where the transfers count their body bytes as they arrive, when someone reads them.
    private let arrivals: ArrivalCounter?

    init(multi: MultiHandle, budget: SharedRateBudget?, arrivals: ArrivalCounter? = nil) {
        self.multi = multi
        pacer = budget.map(Pacer.init(budget:))
        self.arrivals = arrivals
    }

    private var isShuttingDown = false

    /// Runs until a `.shutdown` command arrives: perform → read finished transfers → poll.
    /// `mayPoll` says whether the inbox is empty (and marks the thread as polling, so the next
    /// sender wakes it); `didPoll` clears that mark.
    /// `afterCallbacks` runs once per turn in which callbacks or completions ran, before the
    /// thread may sleep.
    func run(takeCommands: () -> [EngineCommand], mayPoll: () -> Bool = { true }, didPoll: () -> Void = {}, afterCallbacks: () -> Void = {}) {
        while true {
            guard step(takeCommands()) else {
                afterCallbacks()
                break
            }
            // Sinks may have run in `curl_multi_perform`, completions above or for commands.
            afterCallbacks()
            // Transfers already finished may have queued new commands; do not sleep on them.
            guard mayPoll() else { continue }
            _ = api.multiPoll(multi.pointer, nil, 0, pacer?.pollTimeout(1000) ?? 1000, nil)
            didPoll()
        }
        cleanup()
    }

    /// One turn on the owner's thread (a driven engine): commands, transfers' progress, and a
    /// poll of at most `timeoutMilliseconds` when `mayPoll` allows it, then progress again.
    /// Returns `false` once shut down (and cleaned up).
    func turn(takeCommands: () -> [EngineCommand], timeoutMilliseconds: Int32, mayPoll: () -> Bool, didPoll: () -> Void) -> Bool {
        var alive = step(takeCommands())
        if alive && mayPoll() {
            _ = api.multiPoll(multi.pointer, nil, 0, pacer?.pollTimeout(timeoutMilliseconds) ?? timeoutMilliseconds, nil)
            didPoll()
            alive = step(takeCommands())
        }
        if !alive { cleanup() }
        return alive
    }

    /// Runs `commands`, then `curl_multi_perform` and the completions of finished transfers.
    /// `false` when shut down and no transfer is left.
    private func step(_ commands: [EngineCommand]) -> Bool {
        for command in commands {
            switch command {
            case .start(let id, let request, let sink, let completion):
                if isShuttingDown {
                    completion(.failed(.cancelled))
                } else if let pacer {
                    start(id.value, pacer.paced(request), sink, completion)
                } else {
                    start(id.value, request, sink, completion)
                }
            case .cancel(let id):
                if let t = live[id.value] { finish(t, code: CURLE_ABORTED_BY_CALLBACK, cancelled: true) }
            case .shutdown:
                isShuttingDown = true
                for t in live.values { finish(t, code: CURLE_ABORTED_BY_CALLBACK, cancelled: true) }
            }
        }
        if isShuttingDown && live.isEmpty { return false }
        if let pacer {
            for (t, code) in pacer.resumeDue(api: api) { finish(t, code: code, cancelled: false, isReusable: false) }
        }
        var running: Int32 = 0
        _ = api.multiPerform(multi.pointer, &running)
        var left: Int32 = 0
        while let message = api.multiInfoRead(multi.pointer, &left) {
            guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle,
                let id = byHandle[easy], let t = live[id]
            else { continue }
            finish(t, code: message.pointee.data.result, cancelled: false)
        }
        return true
    }

    private func cleanup() {
        for h in idleHandles.values.joined() { api.easyCleanup(h) }
        idleHandles = [:]
        _ = api.multiCleanup(multi.pointer)
    }

    private func start(_ id: UInt64, _ request: TransferRequest, _ sink: any TransferSink, _ completion: @escaping @Sendable (TransferResult) -> Void) {
        let profile = HandleProfile(request)
        let easy: UnsafeMutableRawPointer
        if let reused = idleHandles[profile]?.popLast() {
            easy = reused
        } else if let fresh = api.easyInit() {
            if let problem = Transfer.prepare(fresh, for: profile, api: api) {
                api.easyCleanup(fresh)
                completion(.failed(.other(code: -1, message: problem)))
                return
            }
            easy = fresh
        } else {
            completion(.failed(.other(code: -1, message: "curl_easy_init failed")))
            return
        }
        let t = Transfer(id: id, easy: easy, api: api, request: request, sink: sink, pacer: pacer, arrivals: arrivals, completion: completion)
        if let problem = t.configure() {
            // Options half set: this handle is not reused.
            api.easyCleanup(easy)
            t.release()
            completion(.failed(.other(code: -1, message: problem)))
            return
        }
        live[id] = t
        byHandle[easy] = id
        _ = api.multiAddHandle(multi.pointer, easy)
    }

    /// Ends a transfer. A handle whose transfer ended paused (cancelled, or its total timeout
    /// passed while it waited for the budget), or whose resume failed, still holds libcurl's pause
    /// state and kept piece: it is not reused.
    private func finish(_ t: Transfer, code: CURLcode, cancelled: Bool, isReusable: Bool = true) {
        _ = api.multiRemoveHandle(multi.pointer, t.easy)
        live[t.id] = nil
        byHandle[t.easy] = nil
        let result = t.result(code: code, cancelled: cancelled)
        t.release()
        if isReusable && !t.isPausedByBudget {
            idleHandles[HandleProfile(t.request), default: []].append(t.easy)
        } else {
            api.easyCleanup(t.easy)
        }
        pacer?.remove(t)
        t.completion(result)
    }
}

/// What an easy handle is made with, once: transfers reuse only a handle of their own profile,
/// so these options are never changed on a handle (libcurl 7.88 also refuses to resize the
/// receive buffer of a handle that has allocated one).
struct HandleProfile: Hashable {
    var caFile: String?
    var allowsFileScheme: Bool
    var receiveBufferSize: Int?

    init(_ request: TransferRequest) {
        caFile = request.caFile
        allowsFileScheme = request.allowsFileScheme
        receiveBufferSize = request.receiveBufferSize
    }
}
