/// What one origin (`scheme://host[:port]`) carried over a run: its requests, the connections
/// they opened, the requests in flight there, and the path of its limit of requests in flight
/// (`apply --json`'s `origins`, the `origin_usage` event).
public struct OriginUsageReport: Sendable, Hashable {
    /// From `at` (since the run started) on, up to `limit` requests in flight.
    public struct LimitPoint: Sendable, Hashable {
        public var at: Duration
        public var limit: Int

        public init(at: Duration, limit: Int) {
            self.at = at
            self.limit = limit
        }
    }

    public var origin: String
    public var requests: Int
    /// Connections its transfers opened.
    public var connections: Int
    /// Requests in flight, time-weighted over the time from its first request to its last answer.
    public var meanInFlight: Double
    public var peakInFlight: Int
    /// Transfers one of its connections may carry at once: more than 1 once it answered over
    /// HTTP/2, 1 over HTTP/1.1.
    public var streams: Int
    /// Its limit adapted (`concurrency.adaptive`).
    public var adaptive: Bool
    public var limitPath: [LimitPoint]
    /// Body bytes its transfers received.
    public var bytes: Int64 = 0
    /// Attempts that failed for what it answered (or did not), wrong answers included.
    public var failures = 0
    /// Whole bodies of the wrong size or digest it answered.
    public var wrongAnswers = 0
    /// Quarantined for its wrong answers: slices with another URL passed it over.
    public var quarantined = false

    public init(
        origin: String, requests: Int, connections: Int, meanInFlight: Double, peakInFlight: Int, streams: Int, adaptive: Bool, limitPath: [LimitPoint]
    ) {
        self.origin = origin
        self.requests = requests
        self.connections = connections
        self.meanInFlight = meanInFlight
        self.peakInFlight = peakInFlight
        self.streams = streams
        self.adaptive = adaptive
        self.limitPath = limitPath
    }
}

/// An origin's requests in flight at one moment, and its limit (the live display's).
public struct OriginInFlight: Sendable, Hashable {
    public var origin: String
    public var running: Int
    /// Its limit of requests in flight, when one was set by a start there.
    public var limit: Int?

    public init(origin: String, running: Int, limit: Int?) {
        self.origin = origin
        self.running = running
        self.limit = limit
    }
}
