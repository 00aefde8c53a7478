/// What one origin carried over a run, for the reports: its requests, the connections they
/// opened, how many were in flight (time-weighted mean and peak), and the path of its limit of
/// requests in flight. Told the time by the scheduler; it reads no clock, and asks for the time
/// only at an origin's first start and when it falls idle, so a busy origin costs no clock reads.
struct OriginUsage: Equatable {
    typealias Instant = ContinuousClock.Instant

    /// A change of the origin's limit: from `at` on, up to `limit` requests in flight.
    struct LimitChange: Equatable {
        var at: Instant
        var limit: Int
    }

    /// Points kept of the limit's path: past this, every other one is dropped (the first and the
    /// latest stay), so a long run's path keeps its shape in bounded memory.
    static let mostLimitChanges = 256

    private(set) var requests = 0
    /// Body bytes its transfers received.
    private(set) var bytes: Int64 = 0
    /// Attempts that failed for what it answered (or did not), wrong answers included.
    private(set) var failures = 0
    /// Whole bodies of the wrong size or digest (``OriginQuarantine``).
    private(set) var wrongAnswers = 0
    /// Connections its transfers opened (a reused one counts once, with the transfer that made it).
    private(set) var connections = 0
    private(set) var inFlight = 0
    private(set) var peakInFlight = 0
    private(set) var limitPath: [LimitChange] = []
    /// The latest point's limit (0 before the first).
    private(set) var limit = 0
    /// The ended transfers' durations together: the requests in flight integrated over time.
    private var busy: Duration = .zero
    private var firstStart: Instant?
    /// When it last had nothing in flight after a start.
    private var lastIdle: Instant?

    mutating func started(now: @autoclosure () -> Instant) {
        if requests == 0 { firstStart = now() }
        requests += 1
        inFlight += 1
        if inFlight > peakInFlight { peakInFlight = inFlight }
    }

    /// A transfer ended after `duration` that had opened `connections` new connections and
    /// received `bytes` of body.
    mutating func ended(now: @autoclosure () -> Instant, duration: Duration, connections: Int, bytes: Int64 = 0) {
        inFlight -= 1
        self.bytes += bytes
        busy += duration
        self.connections += connections
        if inFlight == 0 { lastIdle = now() }
    }

    /// An attempt here failed; `wrongAnswer`: with a body of the wrong size or digest.
    mutating func failed(wrongAnswer: Bool) {
        failures += 1
        if wrongAnswer { wrongAnswers += 1 }
    }

    /// The limit of requests in flight is `limit` at `now` (a point only when it changed).
    mutating func limit(is limit: Int, now: Instant) {
        guard limit != self.limit else { return }
        self.limit = limit
        if limitPath.count >= Self.mostLimitChanges, let latest = limitPath.last {
            var kept = limitPath.enumerated().compactMap { $0.offset % 2 == 0 ? $0.element : nil }
            if kept.last != latest { kept.append(latest) }
            // A point whose limit its predecessor already had is no change.
            limitPath = []
            for point in kept where point.limit != limitPath.last?.limit { limitPath.append(point) }
        }
        if limitPath.last?.limit != limit { limitPath.append(LimitChange(at: now, limit: limit)) }
    }

    /// The mean of requests in flight from the first start to the last time nothing was in flight
    /// (Little's law: the transfers' time together over that span); `nil` while some are.
    var meanInFlight: Double? {
        guard inFlight == 0, let firstStart, let lastIdle else { return nil }
        let span = Self.seconds(lastIdle - firstStart)
        return span > 0 ? Self.seconds(busy) / span : Double(peakInFlight)
    }

    static func seconds(_ d: Duration) -> Double {
        let (s, atto) = d.components
        return Double(s) + Double(atto) / 1e18
    }
}
