internal import CCurl
import JobrunCore

/// What `curl_easy_setopt` refused while a handle was being set up, as one message.
struct OptionProblems {
    let api: CurlAPI
    private var problems: [String] = []

    init(api: CurlAPI) { self.api = api }

    mutating func check(_ code: CURLcode, _ what: String) {
        if code != CURLE_OK { problems.append("\(what): \(api.message(code))") }
    }

    var message: String? { problems.isEmpty ? nil : problems.joined(separator: "; ") }
}

/// One transfer on the engine thread: its easy handle's options, callbacks and collected response.
/// Owned by the event loop's table; callbacks reach it through an unretained pointer.
final class Transfer {
    let id: UInt64
    let easy: UnsafeMutableRawPointer
    let api: CurlAPI
    let request: TransferRequest
    let sink: any TransferSink
    let completion: @Sendable (TransferResult) -> Void
    /// The run's rate budget, when there is one and this transfer is paced by it.
    let pacer: Pacer?
    /// The budget refused a piece: libcurl holds it until the pacer resumes the transfer.
    var isPausedByBudget = false

    private var headerList: UnsafeMutablePointer<curl_slist>?
    private let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
    private let started = ContinuousClock.now

    // Response state
    private var headParser = ResponseHeadParser()
    private var head: ResponseHead?
    private var disposition: BodyDisposition = .accept
    private var bodyBytes: Int64 = 0
    private let arrivals: ArrivalCounter?
    private var discarded: Int64 = 0
    private var sinkAborted = false
    private var idleTimedOut = false
    /// Why the connection's address was refused (``mayReach(_:)``), when it was.
    private var refusedAddress: String?
    private var lastProgress = ContinuousClock.now
    private var lastReceived: Int64 = -1

    init(
        id: UInt64, easy: UnsafeMutableRawPointer, api: CurlAPI, request: TransferRequest, sink: any TransferSink, pacer: Pacer?,
        arrivals: ArrivalCounter? = nil, completion: @escaping @Sendable (TransferResult) -> Void
    ) {
        self.id = id
        self.arrivals = arrivals
        self.easy = easy
        self.api = api
        self.request = request
        self.sink = sink
        self.completion = completion
        // libcurl refuses a pause from a file:// write callback (it fails the transfer); a local
        // file is not a download anyway.
        if let pacer, request.url.prefix(5).lowercased() != "file:" {
            self.pacer = pacer
        } else {
            self.pacer = nil
        }
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
    }

    /// The one way back from a callback's userdata to its transfer.
    static func from(userdata: UnsafeMutableRawPointer?) -> Transfer? {
        guard let userdata else { return nil }
        return Unmanaged<Transfer>.fromOpaque(userdata).takeUnretainedValue()
    }

    /// The options every transfer of a handle shares, set once when the handle is made (see
    /// ``HandleProfile``); a message when one is refused.
    static func prepare(_ easy: UnsafeMutableRawPointer, for profile: HandleProfile, api: CurlAPI) -> String? {
        var problems = OptionProblems(api: api)
        let protocols = profile.allowsFileScheme ? "http,https,file" : "http,https"
        problems.check(jobrun_easy_setopt_str(api.easySetopt, easy, CURLOPT_PROTOCOLS_STR, protocols), "protocols")
        problems.check(jobrun_easy_setopt_str(api.easySetopt, easy, CURLOPT_REDIR_PROTOCOLS_STR, "http,https"), "redirect protocols")
        problems.check(jobrun_easy_setopt_long(api.easySetopt, easy, CURLOPT_FOLLOWLOCATION, 0), "follow")
        problems.check(jobrun_easy_setopt_long(api.easySetopt, easy, CURLOPT_NOSIGNAL, 1), "nosignal")
        problems.check(jobrun_easy_setopt_long(api.easySetopt, easy, CURLOPT_SSL_VERIFYPEER, 1), "verify peer")
        problems.check(jobrun_easy_setopt_long(api.easySetopt, easy, CURLOPT_SSL_VERIFYHOST, 2), "verify host")
        problems.check(jobrun_easy_setopt_long(api.easySetopt, easy, CURLOPT_SSLVERSION, Int(CURL_SSLVERSION_TLSv1_2)), "TLS version")
        if let ca = profile.caFile { problems.check(jobrun_easy_setopt_str(api.easySetopt, easy, CURLOPT_CAINFO, ca), "CA file") }
        if let size = profile.receiveBufferSize { problems.check(jobrun_easy_setopt_long(api.easySetopt, easy, CURLOPT_BUFFERSIZE, size), "buffer size") }
        // libcurl 7.88 decodes a gzip or deflate transfer coding (`Transfer-Encoding: gzip,
        // chunked`) through its content decoders, which are on by default even when nothing was
        // asked for; off, the body is handed over as sent (chunked framing removed), and the
        // sink refuses such a response by its head.
        problems.check(jobrun_easy_setopt_long(api.easySetopt, easy, CURLOPT_HTTP_CONTENT_DECODING, 0), "content decoding")
        problems.check(jobrun_easy_setopt_long(api.easySetopt, easy, CURLOPT_NETRC, Int(CURL_NETRC_IGNORED.rawValue)), "netrc")
        // Some CDNs refuse requests without one; a manifest's own User-Agent header replaces it.
        problems.check(jobrun_easy_setopt_str(api.easySetopt, easy, CURLOPT_USERAGENT, "jobrun/\(JobrunVersion.current)"), "user agent")
        problems.check(
            jobrun_easy_setopt_write(
                api.easySetopt, easy, CURLOPT_HEADERFUNCTION,
                { ptr, size, count, userdata in
                    guard let t = Transfer.from(userdata: userdata), let ptr else { return 0 }
                    return t.header(UnsafeRawBufferPointer(start: ptr, count: size * count)) ? size * count : 0
                }), "header function")
        problems.check(
            jobrun_easy_setopt_write(
                api.easySetopt, easy, CURLOPT_WRITEFUNCTION,
                { ptr, size, count, userdata in
                    guard let t = Transfer.from(userdata: userdata), let ptr else { return 0 }
                    return t.body(UnsafeRawBufferPointer(start: ptr, count: size * count))
                }), "write function")
        problems.check(
            jobrun_easy_setopt_xferinfo(
                api.easySetopt, easy, CURLOPT_XFERINFOFUNCTION,
                { userdata, _, received, _, _ in
                    guard let t = Transfer.from(userdata: userdata) else { return 1 }
                    return t.progress(received: Int64(received)) ? 0 : 1
                }), "progress function")
        problems.check(jobrun_easy_setopt_long(api.easySetopt, easy, CURLOPT_NOPROGRESS, 0), "progress")
        // Once connected, before the request is sent: the address a request may not reach.
        problems.check(
            jobrun_easy_setopt_prereq(
                api.easySetopt, easy, CURLOPT_PREREQFUNCTION,
                { userdata, primaryIP, _, _, _ in
                    guard let t = Transfer.from(userdata: userdata) else { return 1 }
                    return t.mayReach(primaryIP.map { String(cString: $0) } ?? "") ? 0 : 1
                }), "prereq function")
        return problems.message
    }

    /// Whether the request may go to the address its connection reached (``TransferRequest/addressRule``).
    func mayReach(_ ip: String) -> Bool {
        guard let rule = request.addressRule, let why = rule.refusal(of: ip) else { return true }
        refusedAddress = why
        return false
    }

    /// Sets this transfer's own options on a handle ``prepare(_:for:)`` made for its profile.
    /// Every option set here is set for every transfer (or cleared), so nothing of the
    /// handle's previous transfer carries over. A message when one is refused.
    func configure() -> String? {
        let me = Unmanaged.passUnretained(self).toOpaque()
        var problems = OptionProblems(api: api)
        problems.check(jobrun_easy_setopt_str(api.easySetopt, easy, CURLOPT_URL, request.url), "URL")
        problems.check(
            jobrun_easy_setopt_long(api.easySetopt, easy, CURLOPT_CONNECTTIMEOUT_MS, Int(clamping: request.connectTimeout.wholeMilliseconds)), "connect timeout"
        )
        // 0 means no limit.
        problems.check(
            jobrun_easy_setopt_long(api.easySetopt, easy, CURLOPT_TIMEOUT_MS, request.totalTimeout.map { max(1, Int(clamping: $0.wholeMilliseconds)) } ?? 0),
            "timeout")
        // Over TLS, wait for a connection being made to the same origin if it may turn out to
        // multiplex (ALPN settles that as soon as it is up): an HTTP/2 origin then gets one
        // connection. Never over plain HTTP, which cannot multiplex here (no h2c): libcurl 7.88
        // marks an origin as "no multiplexing" only after a persistent HTTP/1.1 response, so when
        // the first response says `Connection: close` every transfer started beside it waited
        // until that one had *finished* — one slow or stalled body held up its whole host.
        problems.check(jobrun_easy_setopt_long(api.easySetopt, easy, CURLOPT_PIPEWAIT, request.usesTLS ? 1 : 0), "pipewait")
        if let start = request.rangeStart, start > 0 {
            problems.check(jobrun_easy_setopt_str(api.easySetopt, easy, CURLOPT_RANGE, "\(start)-"), "range")
        } else {
            problems.check(jobrun_easy_setopt_str(api.easySetopt, easy, CURLOPT_RANGE, nil), "range")
        }
        var list: UnsafeMutablePointer<curl_slist>?
        // libcurl sends "Accept: */*" by default; checksums are over identity bytes, so never ask
        // for compression (and an empty Accept-Encoding would ask for everything libcurl decodes).
        for (name, value) in request.headers { list = api.slistAppend(list, "\(name): \(value)") }
        if let ifRange = request.ifRange, request.rangeStart != nil { list = api.slistAppend(list, "If-Range: \(ifRange)") }
        headerList = list
        problems.check(jobrun_easy_setopt_slist(api.easySetopt, easy, CURLOPT_HTTPHEADER, list), "headers")
        problems.check(jobrun_easy_setopt_ptr(api.easySetopt, easy, CURLOPT_ERRORBUFFER, UnsafeMutableRawPointer(errorBuffer)), "error buffer")
        problems.check(jobrun_easy_setopt_ptr(api.easySetopt, easy, CURLOPT_HEADERDATA, me), "header data")
        problems.check(jobrun_easy_setopt_ptr(api.easySetopt, easy, CURLOPT_WRITEDATA, me), "write data")
        problems.check(jobrun_easy_setopt_ptr(api.easySetopt, easy, CURLOPT_XFERINFODATA, me), "progress data")
        // A request whose address is checked goes straight to its host: through a proxy, the
        // address connected to would be the proxy's.
        problems.check(jobrun_easy_setopt_str(api.easySetopt, easy, CURLOPT_NOPROXY, request.addressRule == nil ? nil : "*"), "no proxy")
        problems.check(jobrun_easy_setopt_ptr(api.easySetopt, easy, CURLOPT_PREREQDATA, me), "prereq data")
        return problems.message
    }

    /// Frees what the transfer allocated; the easy handle goes back to the pool.
    func release() {
        if let headerList { api.slistFreeAll(headerList) }
        headerList = nil
        errorBuffer.deallocate()
    }

    // MARK: Callbacks (engine thread)

    private func header(_ line: UnsafeRawBufferPointer) -> Bool {
        guard let complete = headParser.feed(line) else { return true }
        return deliverHead(complete)
    }

    private func deliverHead(_ h: ResponseHead) -> Bool {
        head = h
        disposition = sink.receive(head: h)
        if disposition == .reject {
            sinkAborted = true
            return false
        }
        return true
    }

    /// The write callback's answer: every byte taken (`bytes.count`), 0 to abort, or
    /// `CURL_WRITEFUNC_PAUSE` when the rate budget holds the piece back.
    private func body(_ bytes: UnsafeRawBufferPointer) -> Int {
        // file:// has no status line: the body is the file.
        if head == nil, !deliverHead(ResponseHead(status: 200, headers: [], version: "")) { return 0 }
        if let pacer, !pacer.admit(bytes.count, of: self) { return Int(CURL_WRITEFUNC_PAUSE) }
        lastProgress = ContinuousClock.now
        switch disposition {
        case .accept:
            guard sink.receive(body: bytes) else {
                sinkAborted = true
                return 0
            }
            bodyBytes += Int64(bytes.count)
            arrivals?.add(bytes.count)
            return bytes.count
        case .discard(let limit):
            discarded += Int64(bytes.count)
            if discarded > limit {
                sinkAborted = true
                return 0
            }
            return bytes.count
        case .reject:
            sinkAborted = true
            return 0
        }
    }

    /// The pacer resumed this transfer: the time it spent paused was not idle.
    func resumedByBudget() {
        isPausedByBudget = false
        lastProgress = ContinuousClock.now
    }

    /// libcurl calls this at least once a second; it enforces the idle timeout precisely
    /// (libcurl's low-speed check averages over several seconds). A transfer the rate budget
    /// paused is waiting for jobrun, not for the server: that time never counts as idle.
    private func progress(received: Int64) -> Bool {
        if isPausedByBudget { return true }
        let now = ContinuousClock.now
        if received != lastReceived {
            lastReceived = received
            lastProgress = now
            return true
        }
        if now - lastProgress > request.idleTimeout {
            idleTimedOut = true
            return false
        }
        return true
    }

    // MARK: Result

    func result(code: CURLcode, cancelled: Bool) -> TransferResult {
        var version: Int = 0
        var httpVersion: String?
        if jobrun_easy_getinfo_long(api.easyGetinfo, easy, CURLINFO_HTTP_VERSION, &version) == CURLE_OK {
            switch version {
            case Int(CURL_HTTP_VERSION_1_0): httpVersion = "1.0"
            case Int(CURL_HTTP_VERSION_1_1): httpVersion = "1.1"
            case Int(CURL_HTTP_VERSION_2_0): httpVersion = "2"
            case Int(CURL_HTTP_VERSION_3): httpVersion = "3"
            default: httpVersion = nil
            }
        }
        // The error buffer says what happened in this transfer; curl_easy_strerror only restates the code.
        var detail: String { errorBuffer.pointee == 0 ? "" : String(cString: errorBuffer) }
        var failure: TransferResult.Failure?
        if cancelled {
            failure = .cancelled
        } else if let refusedAddress {
            failure = .addressRefused(refusedAddress)
        } else if idleTimedOut {
            failure = .timeout("no data received for \(request.idleTimeout.wholeMilliseconds / 1000) s")
        } else if sinkAborted && (code == CURLE_WRITE_ERROR || code == CURLE_ABORTED_BY_CALLBACK) {
            failure = .abortedBySink
        } else if code != CURLE_OK {
            // libcurl sets the connect time on a reused connection too; zero means none was made.
            var connectTime: curl_off_t = 0
            let hasConnected = jobrun_easy_getinfo_off(api.easyGetinfo, easy, CURLINFO_CONNECT_TIME_T, &connectTime) != CURLE_OK || connectTime > 0
            var osErrno = 0
            if code == CURLE_COULDNT_CONNECT { _ = jobrun_easy_getinfo_long(api.easyGetinfo, easy, CURLINFO_OS_ERRNO, &osErrno) }
            failure = CurlResult.failure(
                code: Int32(code.rawValue), detail: detail, headersComplete: head != nil, hasConnected: hasConnected,
                osErrno: Int32(truncatingIfNeeded: osErrno))
        }
        var result = TransferResult(
            head: head, failure: failure, bodyBytes: bodyBytes,
            httpVersion: httpVersion, duration: ContinuousClock.now - started)
        if head != nil {
            // From the request sent (the connection made) to the answer's first byte: one round
            // trip and the server's own time, whatever the connection's setup cost.
            var sent: curl_off_t = 0
            var answered: curl_off_t = 0
            if jobrun_easy_getinfo_off(api.easyGetinfo, easy, CURLINFO_PRETRANSFER_TIME_T, &sent) == CURLE_OK,
                jobrun_easy_getinfo_off(api.easyGetinfo, easy, CURLINFO_STARTTRANSFER_TIME_T, &answered) == CURLE_OK, answered >= sent
            {
                result.latency = .microseconds(Int64(answered - sent))
            }
        }
        var connects = 0
        if jobrun_easy_getinfo_long(api.easyGetinfo, easy, CURLINFO_NUM_CONNECTS, &connects) == CURLE_OK { result.newConnections = connects }
        return result
    }
}
