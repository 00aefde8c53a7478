import JobrunCore
import JobrunFetch
import JobrunOutcome
import JobrunFiles

/// All the run's machine reads of an ended attempt: made once, on the driver's thread, from
/// the engine's result and what the sink took of the response. Immutable, so a decision about
/// the attempt depends on nothing the sink may still change.
struct AttemptReport {
    /// How the response was taken (a body, a redirect, a refusal); `nil` when none was judged.
    let verdict: ResponseVerdict?
    /// How the transfer failed, when it did.
    let transport: TransferResult.Failure?
    /// A response head arrived.
    let hasHead: Bool
    /// The body's end in the file: its start offset and the bytes taken.
    let written: ByteCount
    /// The length the response declared for the whole file.
    let declaredEnd: ByteCount?
    /// The partial file's size the attempt continued from (0 from the start).
    let resumeOffset: ByteCount
    /// A write, read-back or sync of the slice's own file failed.
    let writeFailure: WriteFailure?
    /// The response's `Retry-After`, as sent.
    let retryAfter: String?
    /// What the accepted response said of the file, and what earlier ones had said.
    let representation: Representation?
    let learned: Representation?
    /// The answer came over a multiplexed connection (HTTP/2 or 3), or not (HTTP/1.x); `nil`
    /// when no answer came.
    let multiplexed: Bool?
    /// From the request sent to the answer's first byte, when an answer came.
    let latency: Duration?
    /// Connections the transfer opened (0 when it reused one).
    let connections: Int

    init(sink: BodySink, result: TransferResult) {
        verdict = sink.verdict
        transport = result.failure
        hasHead = result.head != nil
        written = sink.written
        declaredEnd = sink.declaredEnd
        resumeOffset = sink.resumeOffset
        writeFailure = sink.writeFailure
        // Looked up only where a refusal may honour it.
        if case .refused? = sink.verdict { retryAfter = result.retryAfter } else { retryAfter = nil }
        representation = sink.representation
        learned = sink.learned
        multiplexed = result.httpVersion.map { $0 == "2" || $0 == "3" }
        latency = result.latency
        connections = result.newConnections
    }

    init(
        verdict: ResponseVerdict?, transport: TransferResult.Failure? = nil, hasHead: Bool = true, written: ByteCount = 0, declaredEnd: ByteCount? = nil,
        resumeOffset: ByteCount = 0, writeFailure: WriteFailure? = nil, retryAfter: String? = nil, representation: Representation? = nil,
        learned: Representation? = nil, multiplexed: Bool? = nil, latency: Duration? = nil,
        connections: Int = 0
    ) {
        self.verdict = verdict
        self.transport = transport
        self.hasHead = hasHead
        self.written = written
        self.declaredEnd = declaredEnd
        self.resumeOffset = resumeOffset
        self.writeFailure = writeFailure
        self.retryAfter = retryAfter
        self.representation = representation
        self.learned = learned
        self.multiplexed = multiplexed
        self.latency = latency
        self.connections = connections
    }

    /// How the origin said it has more than it can take, if it did.
    enum Overload: Equatable {
        /// It refused the request (429, 503).
        case refused
        /// The connection broke or was reset (an origin's refusal, or a network going away).
        case reset
    }

    var overload: Overload? {
        if case .refused(let failure)? = verdict, failure.coolsDownHost { return .refused }
        if case .network? = transport { return .reset }
        return nil
    }

    /// How the attempt ended, as far as reaching its origin goes: no connection at all, a
    /// connection that broke or stalled, a whole response (whatever its status), or nothing
    /// known of the network.
    var reach: OfflinePause.Reach {
        // A local failure after the response's head says the origin answered; before it, nothing.
        if writeFailure != nil { return hasHead ? .answered : .unknown }
        guard let transport else { return verdict == nil ? .unknown : .answered }
        switch transport {
        case .resolve, .connect, .connectTimeout:
            return .unreachable(AttemptReview.failure(from: transport))
        case .timeout, .network, .truncated:
            return .lost
        case .tls:
            // A TLS handshake, even a failed one, went over a connection that was made.
            return .answered
        case .cancelled, .protocolRefused, .addressRefused, .other:
            return .unknown
        case .abortedBySink:
            return verdict == nil ? .unknown : .answered
        }
    }

    /// What the attempt says of its origin's health.
    enum OriginReading: Equatable {
        /// An answer, or a failure that is not the origin's.
        case healthy
        /// A failure that counts against the origin.
        case failed(AttemptFailure)
        /// Ended on this side before the origin's answer was known: nothing of its health.
        case unknown
    }

    var originReading: OriginReading {
        var failure: AttemptFailure?
        if case .refused(let refused) = verdict {
            failure = refused
        } else if let transport, transport != .abortedBySink, transport != .cancelled {
            failure = AttemptReview.failure(from: transport)
        } else if verdict == nil {
            return .unknown
        }
        guard let failure, failure.countsAgainstOrigin else { return .healthy }
        return .failed(failure)
    }

    /// The common case, an answer taken with no failure.
    var isCleanBody: Bool {
        guard transport == nil, case .body? = verdict else { return false }
        return true
    }
}
