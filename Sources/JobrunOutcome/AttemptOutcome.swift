public import JobrunCore

/// Why a slice failed, by kind: JUnit `<error type>`, JSON `error.kind`, and whether to retry.
public enum SliceErrorKind: String, Sendable, Hashable {
    case http = "HTTP"
    case timeout = "Timeout"
    case tls = "TLS"
    case connect = "Connect"
    case resolve = "DNS"
    case network = "Network"
    case truncated = "Truncated"
    case checksumMismatch = "ChecksumMismatch"
    case sizeMismatch = "SizeMismatch"
    case tooLarge = "TooLarge"
    case redirect = "Redirect"
    case protocolRefused = "Protocol"
    /// A URL a catalog led to reached an address that is not public, which `allow:` does not name.
    case addressRefused = "AddressRefused"
    case rangeMismatch = "RangeMismatch"
    /// A response contradicting itself or an earlier one for the same version (a 200 carrying
    /// `Content-Range`, another total for the same validator, a body shorter than declared).
    case inconsistentResponse = "InconsistentResponse"
    case diskFull = "DiskFull"
    case io = "IOError"
    case unsafePath = "UnsafePath"
    /// A coding jobrun did not ask for: a `Content-Encoding`, or a transfer coding other than
    /// chunked (the stored bytes would not be the ones a digest or size was declared for).
    case contentEncoding = "ContentEncoding"
    case transferEncoding = "TransferEncoding"
    case interrupted = "Interrupted"
    /// Not requested: its origin failed `retries.host_failures` attempts in a row and every probe.
    case originFailing = "OriginFailing"
    case other = "Error"
}

/// One failed attempt: its kind, what to show, and the retry verdict.
public struct AttemptFailure: Error, Sendable, Hashable {
    public var kind: SliceErrorKind
    /// HTTP status when the failure is a status.
    public var status: Int?
    public var message: String
    public var isTransient: Bool
    /// A server-requested wait (Retry-After), already clamped.
    public var retryAfter: Duration?
    /// A 429 or 503: the whole host should cool down, not only this slice.
    public var coolsDownHost: Bool
    /// For a checksum mismatch: the body's digest for every declared algorithm.
    public var actualDigests: [Digest] = []

    public init(kind: SliceErrorKind, status: Int? = nil, message: String, isTransient: Bool, retryAfter: Duration? = nil, coolsDownHost: Bool = false) {
        self.kind = kind
        self.status = status
        self.message = message
        self.isTransient = isTransient
        self.retryAfter = retryAfter
        self.coolsDownHost = coolsDownHost
    }

    /// `HTTP503`, `Timeout`, …: the JUnit error type.
    public var typeName: String {
        if kind == .http, let status { return "HTTP\(status)" }
        return kind.rawValue
    }

    /// HTTP statuses worth another attempt: 408, 429, 500, 502, 503, 504. Every other 4xx is final.
    public static func isTransient(status: Int) -> Bool {
        [408, 429, 500, 502, 503, 504].contains(status)
    }
}
