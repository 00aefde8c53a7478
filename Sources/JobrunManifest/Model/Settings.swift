public import JobrunCore
public import JobrunSystem

/// How many transfers may run at once. A slot is one transfer over HTTP/1.1, or one HTTP/2
/// connection carrying up to `streams` transfers: `perHost` bounds an origin's slots, `total`
/// all origins' together.
public struct ConcurrencyLimits: Hashable, Sendable {
    public var total: Int = 16
    public var perHost: Int = 4
    /// Transfers one multiplexed connection carries at once (the server's own limit applies too).
    public var streams: Int = 32
    /// The requests in flight at each origin adapt to it, up to `perHost` slots (``total`` still
    /// holds for the run).
    public var adaptive = false
    public init() {}

    public init(total: Int, perHost: Int, streams: Int = 32, adaptive: Bool = false) {
        self.total = total
        self.perHost = perHost
        self.streams = streams
        self.adaptive = adaptive
    }

    /// Transfers under way at once in a run at most, whatever the slots allow: each may hold a
    /// partial file's descriptor and a receive buffer.
    public static let mostInFlight = 1024
    /// Where an adaptive limit starts: a few, as TCP's initial window, and found from there.
    public static let adaptiveStart = 4

    /// Slots one origin may have: `perHost`, within `total`.
    public var slotsPerHost: Int { min(perHost, total) }

    /// Requests in flight these limits allow at one origin whose slots carry `streams` transfers.
    public func requestsInFlight(streams: Int) -> Int {
        min(slotsPerHost * streams, Self.mostInFlight)
    }
}

/// Exponential backoff between attempts.
public struct Backoff: Hashable, Sendable {
    public var initial: Duration = .seconds(1)
    public var maximum: Duration = .seconds(120)
    public var multiplier: Double = 2
    public init() {}
}

/// How often a slice is tried, and how long to wait between tries.
public struct RetryPolicy: Hashable, Sendable {
    /// Attempts in all (first try included).
    public var attempts: Int = 5
    public var backoff = Backoff()
    /// Failed attempts in a row at one origin (across slices) that stop it getting new work
    /// but probes; 0 never stops it.
    public var hostFailures: Int = 32
    public init() {}
}

/// Time limits for a slice.
public struct Timeouts: Hashable, Sendable {
    /// Establishing a connection.
    public var connect: Duration = .seconds(10)
    /// No bytes received for this long ends an attempt.
    public var request: Duration = .seconds(60)
    /// The whole life of a slice, its retries included.
    public var resource: Duration = .seconds(3600)
    public init() {}
}

/// When a resource may use the network (`network:` in a manifest). The deferral gate decides
/// with it; decoding only validates it.
public struct NetworkPolicy: Hashable, Sendable {
    /// May run on a metered (cellular) connection; `cellular: false` defers it while the network is metered.
    public var allowsCellular: Bool = true
    /// Runs only when the network is unmetered, the machine is on AC power and not busy.
    public var isDiscretionary: Bool = false
    /// Transfers only while this window is open; `nil` at any time of day.
    public var window: DailyWindow?
    /// The zone `window` is read in; `nil` is the machine's local zone when the run starts.
    public var timeZone: TimeZoneRules?
    /// Transfers nothing before this instant.
    public var notBefore: Date?
    /// After a resource has been deferred this long, a metered network, battery power and a busy
    /// machine no longer defer it (`window` and `notBefore` still do); `nil` never.
    public var maxDeferral: Duration?
    public init() {}

    /// Whether metered networks, power or load can defer the resource: the deferrals
    /// ``maxDeferral`` limits.
    public var defersForConditions: Bool { isDiscretionary || !allowsCellular }
}

/// Settings that `defaults` gives every resource of a file and a resource may override.
public struct ResourceSettings: Hashable, Sendable {
    public var concurrency = ConcurrencyLimits()
    public var retries = RetryPolicy()
    public var timeouts = Timeouts()
    public var network = NetworkPolicy()
    /// Headers sorted by lower-cased name; names unique case-insensitively.
    public var headers: [HeaderField] = []
    /// Largest body accepted for a slice without a declared size.
    public var maxSize = ByteCount(4 << 30)
    /// Extra trust anchors (PEM) for TLS, e.g. a private CA; verification itself is always on.
    public var caFile: String?
    /// Ready slices of higher-priority resources start first; equal priorities take turns.
    public var priority = 0
    /// Programs run when the resource ends.
    public var hooks = HookSettings()
    /// Whether slices without a digest are asked of their origin again (a slice may override it).
    public var refresh = RefreshPolicy.never
    /// Files in its folder that no slice names any more, and that jobrun fetched, are removed
    /// (to the trash) once a run has completed every selected resource (`apply --prune` for all).
    public var prune = false
    /// Whether readers see its files change one by one, or its whole folder switch at once.
    public var publish = PublishPolicy()
    public init() {}
}
