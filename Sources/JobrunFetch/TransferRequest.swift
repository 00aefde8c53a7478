public import JobrunCore

/// One HTTP request for the engine: where, which headers, from which byte, and how long to wait.
public struct TransferRequest: Sendable {
    public var url: String
    /// Sent as given; the caller has already removed anything that must not reach this origin.
    public var headers: [(name: String, value: String)]
    /// `Range: bytes=N-` when resuming.
    public var rangeStart: Int64?
    /// `If-Range` validator (a strong ETag or an HTTP-date) sent with `rangeStart`.
    public var ifRange: String?
    public var connectTimeout: Duration
    /// An attempt ends when no byte arrives for this long.
    public var idleTimeout: Duration
    /// Hard limit on the whole attempt (what is left of the slice's `resource` timeout).
    public var totalTimeout: Duration?
    /// Extra trust anchors (PEM), for private CAs. Verification itself is never turned off.
    public var caFile: String?
    /// Admit `file://` (only when a manifest asked for it and `--allow-file-urls` was given).
    public var allowsFileScheme: Bool
    /// libcurl's receive buffer (`CURLOPT_BUFFERSIZE`, at most 10 MiB); `nil` keeps its 16 KiB
    /// default. Large bodies want more: fewer reads and loop turns per byte. libcurl 7.88 refuses
    /// to resize the buffer of a handle that has already allocated one, so easy handles are
    /// reused only by transfers with the same buffer size (and CA file, and schemes).
    public var receiveBufferSize: Int?
    /// The addresses the connection may reach, when limited (a URL a catalog led to): checked
    /// on the address connected to, before the request is sent.
    public var addressRule: AddressRule?

    /// The URL is `https:` (schemes are case-insensitive: a manifest may say `HTTPS://`). The
    /// driver spreads such transfers over its engines; the engine lets them wait for a
    /// multiplexed connection (`CURLOPT_PIPEWAIT`).
    public var usesTLS: Bool {
        var url = url
        return url.withUTF8 { $0.count >= 6 && ResponseHead.equalsIgnoringCase(UnsafeBufferPointer(rebasing: $0[..<6]), ascii: "https:") }
    }

    public init(
        url: String, headers: [(name: String, value: String)] = [], rangeStart: Int64? = nil, ifRange: String? = nil,
        connectTimeout: Duration = .seconds(10), idleTimeout: Duration = .seconds(60), totalTimeout: Duration? = nil,
        caFile: String? = nil, allowsFileScheme: Bool = false
    ) {
        self.url = url
        self.headers = headers
        self.rangeStart = rangeStart
        self.ifRange = ifRange
        self.connectTimeout = connectTimeout
        self.idleTimeout = idleTimeout
        self.totalTimeout = totalTimeout
        self.caFile = caFile
        self.allowsFileScheme = allowsFileScheme
    }
}

/// The status line and headers of a response.
public struct ResponseHead: Sendable, Hashable {
    public var status: Int
    /// In the order received; names as the server wrote them.
    public var headers: [HeaderLine]

    public struct HeaderLine: Sendable, Hashable {
        public var name: String
        public var value: String

        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    /// The status line's protocol version (`1.0`, `1.1`, `2`, `3`); empty without a status
    /// line (file://).
    public var version: String

    public init(status: Int, headers: [HeaderLine], version: String = "1.1") {
        self.status = status
        self.headers = headers
        self.version = version
    }

    /// Whether the protocol marks where the body ends: a `Content-Length` or chunked coding in
    /// HTTP/1, always in HTTP/2 and 3 (the stream's end) and for a local file. Otherwise only the
    /// connection's close ends the body, and a connection cut short looks the same.
    public var hasDelimitedBody: Bool {
        guard version.hasPrefix("1") else { return true }
        if value("content-length") != nil { return true }
        return value("transfer-encoding").map { $0.lowercased().contains("chunked") } ?? false
    }

    /// The first value of a header, by name: field names are ASCII tokens compared without
    /// regard to ASCII case (RFC 9110 §5.1); a name with other bytes matches only itself.
    public func value(_ name: String) -> String? {
        headers.first { Self.equalsIgnoringCase($0.name, ascii: name) }?.value
    }

    /// Byte-wise equality folding ASCII letters only (this runs for every header of every
    /// response, several times: the length decides most comparisons without a loop).
    static func equalsIgnoringCase(_ a: String, ascii: String) -> Bool {
        guard a.utf8.count == ascii.utf8.count else { return false }
        var a = a
        // Over the contiguous bytes, not the UTF-8 view's iterator: this runs for every header.
        return a.withUTF8 { equalsIgnoringCase($0, ascii: ascii) }
    }

    /// ``equalsIgnoringCase(_:ascii:)`` for bytes.
    static func equalsIgnoringCase(_ a: UnsafeBufferPointer<UInt8>, ascii: String) -> Bool {
        func lower(_ c: UInt8) -> UInt8 { c >= UInt8(ascii: "A") && c <= UInt8(ascii: "Z") ? c | 0x20 : c }
        var b = ascii
        return b.withUTF8 { y in
            guard a.count == y.count else { return false }
            for i in a.indices where lower(a[i]) != lower(y[i]) { return false }
            return true
        }
    }
}

/// What to do with a response body, decided when its headers are complete.
public enum BodyDisposition: Sendable, Hashable {
    /// Hand every byte to the sink.
    case accept
    /// Read and drop up to this many bytes (keeps the connection reusable), abort past it.
    case discard(limit: Int64)
    /// Abort the transfer now.
    case reject
}

/// Receives a transfer's response. Called on the engine's thread only, one call at a time.
public protocol TransferSink: AnyObject, Sendable {
    /// The final response's head (interim 1xx responses are not shown).
    func receive(head: ResponseHead) -> BodyDisposition
    /// A piece of an accepted body. Return false to abort the transfer (a cap was reached, a write failed).
    func receive(body: UnsafeRawBufferPointer) -> Bool
}

/// How a transfer ended.
public struct TransferResult: Sendable {
    public enum Failure: Sendable, Hashable {
        /// The name did not resolve.
        case resolve(String)
        /// No connection could be made.
        case connect(String)
        /// The idle or total timeout passed on a connection that was made.
        case timeout(String)
        /// No connection was made within the connect timeout (or the total one).
        case connectTimeout(String)
        /// TLS failed: handshake, or the peer's certificate did not verify.
        case tls(String)
        /// The connection broke while receiving (reset, closed early).
        case network(String)
        /// The body ended before its declared length.
        case truncated(String)
        /// The scheme is not allowed (only http and https, and file when asked for).
        case protocolRefused(String)
        /// The connection reached an address the request may not (``TransferRequest/addressRule``).
        case addressRefused(String)
        /// The sink refused the head or aborted the body.
        case abortedBySink
        /// Cancelled by the caller.
        case cancelled
        /// Anything else libcurl reported.
        case other(code: Int32, message: String)

        /// Worth another attempt: the same request may well succeed later.
        public var isTransient: Bool {
            switch self {
            case .resolve, .connect, .timeout, .connectTimeout, .network, .truncated: true
            case .tls, .protocolRefused, .addressRefused, .abortedBySink, .cancelled, .other: false
            }
        }
    }

    /// The final response's head, when one arrived.
    public var head: ResponseHead?
    public var failure: Failure?
    /// Body bytes received and accepted.
    public var bodyBytes: Int64
    /// The final response's `Retry-After` as sent (libcurl reads garbage as "now"); looked up
    /// only by the refusals that honour it.
    public var retryAfter: String? { head?.value("retry-after") }
    /// `1.1`, `2`, … as negotiated.
    public var httpVersion: String?
    public var duration: Duration
    /// From the request sent to the answer's first byte (the connection's setup not counted),
    /// when an answer came.
    public var latency: Duration?
    /// Connections libcurl opened for the transfer (0 when it reused one).
    public var newConnections = 0

    /// A transfer that ended before any response: cancelled, or refused before it started.
    public static func failed(_ failure: Failure) -> TransferResult {
        TransferResult(head: nil, failure: failure, bodyBytes: 0, httpVersion: nil, duration: .zero)
    }
}
