public import JobrunCore
public import JobrunManifest
import JobrunFetch
import Synchronization

/// One GET of a catalog or its signature, whole into memory, before anything is planned: with
/// the validators of the copy kept from the last run (a 304 keeps it), redirects followed as a
/// slice's are (``RedirectPolicy``), transient failures tried again, and a cap on its size.
public struct CatalogDownload: Sendable {
    public var url: String
    public var headers: [HeaderField]
    /// `If-None-Match` and `If-Modified-Since`, from the kept copy.
    public var validators: OriginValidators?
    /// Bytes a body may have at most.
    public var limit: Int
    public var timeouts: Timeouts
    public var retries: RetryPolicy
    public var caFile: String?
    public var allowsFileScheme = false
    /// Origins the manifest names (the resource's, the catalog's own): anywhere else a redirect
    /// leads, only public addresses, and those `allowedAddresses` holds, may be reached.
    public var trustedOrigins: Set<String> = []
    public var allowedAddresses: [AddressRange] = []
    /// The run's cutoff (`--deadline` less its margin): no attempt starts after it, none runs
    /// past it, and no backoff waits beyond it.
    public var deadline: ContinuousClock.Instant?

    public init(url: String, headers: [HeaderField], limit: Int, timeouts: Timeouts, retries: RetryPolicy, caFile: String?) {
        self.url = url
        self.headers = headers
        self.limit = limit
        self.timeouts = timeouts
        self.retries = retries
        self.caFile = caFile
    }

    /// What the origin answered.
    public struct Response: Sendable {
        /// The body of a 200; empty for a 304.
        public var body: [UInt8]
        public var notModified: Bool
        /// The validators it came with, for the next run's conditional request.
        public var validators: OriginValidators?
    }

    /// The response, or why there is none, after the resource's attempts (`retries.attempts`),
    /// waiting its backoff between them.
    public func fetch(
        now: () -> ContinuousClock.Instant = { .now }, sleep: (Duration) -> Void = { usleep(UInt32(clamping: max(1, $0.wholeMilliseconds) * 1000)) }
    ) -> Result<Response, CatalogFetchError> {
        var attempt = 1
        var last: CatalogFetchError?
        while true {
            if let deadline, now() >= deadline { return .failure(pastDeadline(after: last)) }
            let outcome = once(now: now)
            switch outcome {
            case .success: return outcome
            case .failure(let error) where error.isTransient && attempt < max(1, retries.attempts):
                let delay = retries.backoff.delay(afterAttempt: attempt, random: Double.random(in: 0..<1))
                if let deadline, now() + delay >= deadline { return .failure(pastDeadline(after: error)) }
                sleep(delay)
                attempt += 1
                last = error
            case .failure(let error) where error.isTransient && deadline.map({ now() >= $0 }) == true:
                return .failure(pastDeadline(after: error))
            case .failure: return outcome
            }
        }
    }

    /// The run's deadline came before the catalog was had; `last` is the attempt's failure.
    private func pastDeadline(after last: CatalogFetchError?) -> CatalogFetchError {
        CatalogFetchError("the run's deadline came before '\(url)' was fetched\(last.map { " (\($0.message))" } ?? "")", isTransient: false)
    }

    /// One attempt, its redirects followed, each hop cut at the deadline when the run has one.
    private func once(now: () -> ContinuousClock.Instant) -> Result<Response, CatalogFetchError> {
        var current = url
        var headers = headers
        var hops = 0
        while true {
            let sink = CatalogSink(limit: limit)
            let result: TransferResult
            var request = request(current, headers: headers)
            if let deadline {
                let left = now().duration(to: deadline)
                guard left > .zero else { return .failure(pastDeadline(after: nil)) }
                request.totalTimeout = min(request.totalTimeout ?? left, left)
            }
            switch run(request, sink: sink) {
            case .success(let r): result = r
            case .failure(let error): return .failure(error)
            }
            if sink.isOverLimit {
                return .failure(CatalogFetchError("'\(current)' is larger than \(ByteCount(Int64(limit))), the limit for a catalog", isTransient: false))
            }
            if let failure = result.failure {
                return .failure(CatalogFetchError("cannot fetch '\(current)': \(Self.describe(failure))", isTransient: failure.isTransient))
            }
            guard let head = result.head else { return .failure(CatalogFetchError("cannot fetch '\(current)': no response", isTransient: true)) }
            let status = head.status
            if (300...399).contains(status), status != 304, let location = head.value("location") {
                switch RedirectPolicy.decide(location: location, current: current, original: url, hops: hops, headers: self.headers) {
                case .follow(let next, let kept):
                    (current, headers, hops) = (next, kept, hops + 1)
                    continue
                case .refuse(let why):
                    return .failure(CatalogFetchError("cannot fetch '\(current)': \(why)", isTransient: false))
                }
            }
            let validators = OriginValidators(etag: head.value("etag"), lastModified: head.value("last-modified"), origin: nil)
            switch status {
            case 304 where self.validators != nil:
                return .success(Response(body: [], notModified: true, validators: self.validators))
            case 200, 0:
                // 0: a file:// URL, which has no status line.
                return .success(Response(body: sink.body, notModified: false, validators: validators.isEmpty ? nil : validators))
            default:
                let transient = status == 408 || status == 429 || (500...599).contains(status)
                var error = CatalogFetchError("cannot fetch '\(current)': HTTP \(status)", isTransient: transient)
                error.isAbsent = status == 404 || status == 410
                return .failure(error)
            }
        }
    }

    private func request(_ url: String, headers: [HeaderField]) -> TransferRequest {
        var sent = headers.map { (name: $0.name, value: $0.value) }
        // Every hop: the validators are those of the copy, wherever the catalog's URL led.
        if let validators {
            if let etag = validators.etag { sent.append((name: "If-None-Match", value: etag)) }
            if let date = validators.lastModified { sent.append((name: "If-Modified-Since", value: date)) }
        }
        var request = TransferRequest(
            url: url, headers: sent, connectTimeout: timeouts.connect, idleTimeout: timeouts.request, totalTimeout: timeouts.resource, caFile: caFile,
            allowsFileScheme: allowsFileScheme)
        if let origin = try? ParsedURL.parse(url).get().origin, !trustedOrigins.contains(origin) {
            request.addressRule = AddressRule(allowed: allowedAddresses)
        }
        return request
    }

    /// The transfer, on an engine of its own that this thread drives until it ends.
    private func run(_ request: TransferRequest, sink: CatalogSink) -> Result<TransferResult, CatalogFetchError> {
        let engine: CurlEngine
        do {
            engine = try CurlEngine.driven()
        } catch {
            return .failure(CatalogFetchError("cannot start libcurl: \(error.description)", isTransient: false))
        }
        defer { engine.shutdown() }
        let done = Mutex<TransferResult?>(nil)
        engine.start(request, sink: sink) { result in done.withLock { $0 = result } }
        while done.withLock({ $0 == nil }) {
            engine.turn(timeoutMilliseconds: 1000, mayPoll: { done.withLock { $0 == nil } }, didPoll: {})
        }
        return .success(done.withLock { $0 } ?? TransferResult.failed(.cancelled))
    }

    static func describe(_ failure: TransferResult.Failure) -> String {
        switch failure {
        case .resolve(let m), .connect(let m), .timeout(let m), .connectTimeout(let m), .tls(let m), .network(let m), .truncated(let m),
            .protocolRefused(let m), .addressRefused(let m):
            m
        case .abortedBySink: "the transfer was aborted"
        case .cancelled: "cancelled"
        case .other(_, let m): m
        }
    }
}

/// Collects a catalog's body, up to its limit. Used on the engine's thread only, which is the
/// thread that drives the engine.
private final class CatalogSink: TransferSink, @unchecked Sendable {
    let limit: Int
    var body: [UInt8] = []
    var isOverLimit = false

    init(limit: Int) { self.limit = limit }

    func receive(head: ResponseHead) -> BodyDisposition {
        guard head.status == 200 || head.status == 0 else { return .discard(limit: 65_536) }
        if let length = head.value("content-length").flatMap({ Int($0.trimmingASCII()) }), length > limit {
            isOverLimit = true
            return .reject
        }
        return .accept
    }

    func receive(body part: UnsafeRawBufferPointer) -> Bool {
        guard body.count + part.count <= limit else {
            isOverLimit = true
            return false
        }
        body.append(contentsOf: part)
        return true
    }
}
