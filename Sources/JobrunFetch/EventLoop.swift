internal import CCurl
import Foundation

/// The engine thread's state: the multi handle, live transfers and idle easy handles.
/// Confined to that thread; `@unchecked Sendable` only so the thread closure can own it.
final class EventLoop: @unchecked Sendable {
    let multi: MultiHandle
    private var live: [UInt64: Transfer] = [:]
    private var byHandle: [UnsafeMutableRawPointer: UInt64] = [:]
    /// Easy handles kept for reuse; libcurl keeps connections in the multi handle's cache.
    private var idleHandles: [UnsafeMutableRawPointer] = []

    init(multi: MultiHandle) { self.multi = multi }

    /// Runs until a `.shutdown` command arrives: perform → read finished transfers → poll.
    /// `mayPoll` says whether the inbox is empty (and marks the thread as polling, so the next
    /// sender wakes it); `didPoll` clears that mark.
    func run(takeCommands: () -> [EngineCommand], mayPoll: () -> Bool = { true }, didPoll: () -> Void = {}) {
        var running: Int32 = 0
        var isShuttingDown = false
        while true {
            for command in takeCommands() {
                switch command {
                case .start(let id, let request, let sink, let completion):
                    if isShuttingDown {
                        completion(TransferResult(head: nil, failure: .cancelled, bodyBytes: 0, retryAfterSeconds: nil, httpVersion: nil, duration: .zero))
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
            if isShuttingDown && live.isEmpty { break }
            curl_multi_perform(multi.pointer, &running)
            var left: Int32 = 0
            while let message = curl_multi_info_read(multi.pointer, &left) {
                guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle,
                    let id = byHandle[easy], let t = live[id]
                else { continue }
                finish(t, code: message.pointee.data.result, cancelled: false)
            }
            // Transfers already finished may have queued new commands; do not sleep on them.
            guard mayPoll() else { continue }
            curl_multi_poll(multi.pointer, nil, 0, 1000, nil)
            didPoll()
        }
        for h in idleHandles { curl_easy_cleanup(h) }
        idleHandles = []
        curl_multi_cleanup(multi.pointer)
    }

    private func start(_ id: UInt64, _ request: TransferRequest, _ sink: any TransferSink, _ completion: @escaping @Sendable (TransferResult) -> Void) {
        let easy: UnsafeMutableRawPointer
        if request.receiveBufferSize == nil, let reused = idleHandles.popLast() {
            curl_easy_reset(reused)
            easy = reused
        } else if let fresh = curl_easy_init() {
            easy = fresh
        } else {
            completion(TransferResult(head: nil, failure: .other(code: -1, message: "curl_easy_init failed"), bodyBytes: 0, retryAfterSeconds: nil, httpVersion: nil, duration: .zero))
            return
        }
        let t = Transfer(id: id, easy: easy, request: request, sink: sink, completion: completion)
        if let problem = t.configure() {
            recycle(easy, request)
            t.release()
            completion(TransferResult(head: nil, failure: .other(code: -1, message: problem), bodyBytes: 0, retryAfterSeconds: nil, httpVersion: nil, duration: .zero))
            return
        }
        live[id] = t
        byHandle[easy] = id
        curl_multi_add_handle(multi.pointer, easy)
    }

    private func finish(_ t: Transfer, code: CURLcode, cancelled: Bool) {
        curl_multi_remove_handle(multi.pointer, t.easy)
        live[t.id] = nil
        byHandle[t.easy] = nil
        let result = t.result(code: code, cancelled: cancelled)
        t.release()
        recycle(t.easy, t.request)
        t.completion(result)
    }

    /// Back to the pool; a handle with its own receive buffer size is not reusable (see
    /// `TransferRequest.receiveBufferSize`) and is cleaned up.
    private func recycle(_ easy: UnsafeMutableRawPointer, _ request: TransferRequest) {
        if request.receiveBufferSize == nil {
            idleHandles.append(easy)
        } else {
            curl_easy_cleanup(easy)
        }
    }
}
