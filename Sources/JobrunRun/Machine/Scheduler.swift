import JobrunCore
import JobrunManifest
import JobrunOutcome

/// Which ready slice starts next: a pure state machine, fed what happens (a slice became ready,
/// a transfer started or ended, an origin cools down) and asked for the next action at an
/// instant; it does no I/O and reads no clock, so its rules are tested with made-up times.
///
/// The rules: each origin takes at most its resource's `per_host` slots and the run at most
/// `total`, where a slot is a transfer, or at an origin that multiplexes (HTTP/2) a connection's
/// worth of `streams` transfers; an origin cooling down after a 429/503, or held by its breaker (`mayStart`), starts
/// nothing. Among the rest, higher-priority resources go first; resources of equal priority
/// take turns (one slice each, round-robin, per origin), and so do origins, so no resource waits
/// behind a long one. Within a resource, slices start in plan order. Before a slice starts,
/// each dispatch gate (``DispatchGate``: the deadline, later the network policy) may hold it back.
struct Scheduler {
    typealias Instant = ContinuousClock.Instant

    /// What the driver does next.
    enum Action: Equatable {
        /// Start job `job`'s attempt at `origin`.
        case startAttempt(job: SliceID, origin: String)
        /// A gate holds the job back for this run: it is not started, for `reason`; `stop`, when
        /// the gate's reason ends the run early (the deadline).
        case notStarted(job: SliceID, reason: String, stop: StopReason?)
        /// A gate holds the job until `until`: it waits like a retry, then is ready again.
        case park(job: SliceID, until: Instant)
    }

    /// How a resource's slices are scheduled: its priority and its limits.
    struct Lane: Equatable {
        var priority: Int
        var limits: ConcurrencyLimits
    }

    /// Per origin: its waiting jobs and its transfers under way (the entry stays while the
    /// origin is known, so that one lookup answers both).
    private var origins: [String: OriginQueue] = [:]
    /// By resource (plan entry).
    private var lanes: [Lane] = []
    /// Origins with a `per_host` of their own (a `base_urls` entry's): their slots at once,
    /// whatever the resource queued there allows.
    private var perHostAt: [PerHostKey: Int] = [:]

    private struct PerHostKey: Hashable {
        var resource: Int
        var origin: String
    }
    /// Transfers under way at once at most, whatever the slots allow.
    static let mostInFlight = ConcurrencyLimits.mostInFlight

    /// Transfers under way, all origins together, the slots they take, and how many of them
    /// each engine runs.
    private(set) var running = 0
    private(set) var slots = 0
    private var runningOnEngine = EngineTally()
    private var cooldownUntil: [String: Instant] = [:]
    /// Observed transfer rates per origin, for the gates.
    private(set) var throughput: [String: Throughput] = [:]
    /// Increases with every start: an origin's last value orders origins in turn.
    private var turn: UInt64 = 0
    var gates: [any DispatchGate] = []

    /// Ready jobs waiting, all origins together.
    var waiting: Int { origins.values.reduce(0) { $0 + $1.count } }

    // MARK: Input

    /// Resource `resource`'s priority and limits, given once before its slices are queued.
    mutating func describe(resource: Int, as lane: Lane) {
        if lanes.count <= resource { lanes += Array(repeating: Lane(priority: 0, limits: ConcurrencyLimits()), count: resource + 1 - lanes.count) }
        lanes[resource] = lane
    }

    /// The slices of `resource` take at most `perHost` slots at once at `origin` (its entry
    /// of `base_urls` says so).
    mutating func describe(resource: Int, origin: String, perHost: Int) {
        perHostAt[PerHostKey(resource: resource, origin: origin)] = perHost
    }

    /// The slots `origin` takes at once for a slice of `resource` under `limits`: its entry's
    /// own `per_host`, or the resource's.
    private func perHost(at origin: String, resource: Int, under limits: ConcurrencyLimits) -> Int {
        perHostAt.isEmpty ? limits.perHost : perHostAt[PerHostKey(resource: resource, origin: origin)] ?? limits.perHost
    }

    /// Whether `origin` waits for nothing and would start a request of a resource with `limits`
    /// now: its slots, the run's, its limit of requests in flight and its cooldown allow it.
    func isIdle(_ origin: String, resource: Int, now: Instant) -> Bool {
        (origins[origin]?.isEmpty ?? true) && hasRoom(at: origin, resource: resource, now: now)
    }

    /// Whether `origin` would start another request of a resource with `limits` now: its slots,
    /// the run's, its limit of requests in flight and its cooldown allow it.
    func hasRoom(at origin: String, resource: Int, now: Instant) -> Bool {
        let limits = lane(resource).limits
        if running >= Self.mostInFlight { return false }
        if !cooldownUntil.isEmpty, let until = cooldownUntil[origin], until > now { return false }
        guard let queue = origins[origin] else { return slots < limits.total }
        if queue.startNeedsSlot && (queue.slots >= perHost(at: origin, resource: resource, under: limits) || slots >= limits.total) { return false }
        if let limit = queue.limiter?.limit ?? queue.backoff?.limit, queue.running >= limit { return false }
        return true
    }

    /// Transfers under way at `origin`.
    func running(at origin: String) -> Int {
        origins[origin]?.running ?? 0
    }

    /// Whether jobs of `resource` wait at `origin`.
    func hasWaiting(at origin: String, resource: Int) -> Bool {
        origins[origin]?.hasWaiting(of: resource) ?? false
    }

    /// The last job of `resource` waiting at `origin`, left in place.
    func lastWaiting(at origin: String, resource: Int) -> SliceID? {
        origins[origin]?.last(of: resource)
    }

    /// Takes the last job of `resource` waiting at `origin`.
    mutating func takeLast(at origin: String, resource: Int) -> SliceID? {
        origins[origin]?.takeLast(of: resource)
    }

    func lane(_ resource: Int) -> Lane {
        resource < lanes.count ? lanes[resource] : Lane(priority: 0, limits: ConcurrencyLimits())
    }

    /// Job `job` (plan position `sequence`, of `resource`) is ready to start at `origin`.
    mutating func enqueue(_ job: SliceID, sequence: Int, resource: Int, origin: String, sequenceOf: (SliceID) -> Int) {
        let lane = lane(resource)
        if lane.limits.adaptive { adapts = true }
        // A resource with fewer streams than the others there narrows the origin's slots.
        slots += Self.slotsChange(of: &origins[origin, default: OriginQueue()]) { queue in
            if lane.limits.adaptive { queue.adapts(under: lane.limits) }
            queue.queued(under: lane.limits)
            queue.insert(job, sequence: sequence, resource: resource, priority: lane.priority, streams: lane.limits.streams, sequenceOf: sequenceOf)
        }
    }

    /// A transfer started at `origin` on `engine` at `now` (read at the origin's first start):
    /// it holds a slot. The transfers now under way there, itself included.
    @discardableResult
    mutating func started(at origin: String, engine: Int = 0, now: @autoclosure () -> Instant) -> Int {
        running += 1
        var atOrigin = 0
        runningOnEngine.add(1, on: engine)
        slots += Self.slotsChange(of: &origins[origin, default: OriginQueue()]) { queue in
            queue.running += 1
            queue.runningOnEngine.add(1, on: engine)
            queue.usage.started(now: now())
            atOrigin = queue.running
        }
        return atOrigin
    }

    /// A transfer at `origin` on `engine` ended at `now` (read when the origin falls idle) after
    /// `duration`, having opened `connections` new connections: its slot is free.
    mutating func ended(
        at origin: String, engine: Int = 0, now: @autoclosure () -> Instant, duration: Duration = .zero, connections: Int = 0, bytes: ByteCount = .zero
    ) {
        running -= 1
        runningOnEngine.add(-1, on: engine)
        slots += Self.slotsChange(of: &origins[origin, default: OriginQueue()]) { queue in
            queue.running -= 1
            queue.runningOnEngine.add(-1, on: engine)
            queue.usage.ended(now: now(), duration: duration, connections: connections, bytes: bytes.value)
        }
    }

    /// An attempt at `origin` failed (`wrongAnswer`: its body had the wrong size or digest), for
    /// its usage's counts.
    mutating func failed(at origin: String, wrongAnswer: Bool) {
        origins[origin, default: OriginQueue()].usage.failed(wrongAnswer: wrongAnswer)
    }

    /// Of `engines` engines, the one with the fewest transfers under way at `origin`, and of
    /// those tied, the one with the fewest under way in all. Each engine keeps its own
    /// connections: a transfer that takes its turn over the engines goes where its origin has the
    /// least, so that no engine needs more than its share of the origin's slots, and together
    /// they open no more connections than the slots; among origins, the work spreads over the
    /// engines' threads.
    func engine(fewestAt origin: String, among engines: Int) -> Int {
        let atOrigin = origins[origin]?.runningOnEngine ?? EngineTally()
        return (0..<max(engines, 1)).min { (atOrigin[$0], runningOnEngine[$0]) < (atOrigin[$1], runningOnEngine[$1]) } ?? 0
    }

    private static func slotsChange(of queue: inout OriginQueue, _ change: (inout OriginQueue) -> Void) -> Int {
        let before = queue.slots
        change(&queue)
        return queue.slots - before
    }

    /// An answer from `origin` came over a multiplexed connection (HTTP/2) or not, on a
    /// connection it opened (`onNewConnection`), at `now`: its slots carry streams from the first
    /// multiplexed answer, and a transfer each again only once a new connection says HTTP/1.x (a
    /// proxy, a front end that does not multiplex); see ``OriginQueue/answered(multiplexed:onNewConnection:)``.
    mutating func answered(at origin: String, multiplexed: Bool, onNewConnection: Bool, now: @autoclosure () -> Instant) {
        var changed = false
        slots += Self.slotsChange(of: &origins[origin, default: OriginQueue()]) { queue in
            changed = queue.answered(multiplexed: multiplexed, onNewConnection: onNewConnection)
            if changed { queue.noteLimit(now: now()) }
        }
        if changed { multiplexingOrigins += multiplexed ? 1 : -1 }
    }

    /// Origins whose answers come over multiplexed connections (their slots carry the fewest
    /// `streams` of their resources, which may be 1).
    private(set) var multiplexingOrigins = 0

    /// `origin` answered the request `sent` at `now`, its first byte after `latency` when the
    /// answer carried the file, while its transfer is still counted there (for its adaptive
    /// limit, or its fixed limit's back-off).
    mutating func answered(at origin: String, latency: Duration?, sent: RequestSent, now: Instant) {
        origins[origin]?.answered(latency: latency, sent: sent, now: now)
    }

    /// `origin` refused the request `sent` as too many (429, 503) or reset its connection, at
    /// `now`, while the transfer that says so is still counted there: an adaptive limit shrinks,
    /// and a fixed one gives way to refusals (``OverloadBackoff``).
    mutating func overloaded(at origin: String, _ sent: RequestSent, _ overload: AttemptReport.Overload, now: Instant) {
        guard overload == .refused || adapts else { return }
        origins[origin]?.overloaded(sent, overload, now: now)
        if overload == .refused { adapts = true }
    }

    /// What each origin with a request carried so far, by origin.
    func usage() -> [(origin: String, usage: OriginUsage, streams: Int, adaptive: Bool)] {
        origins.compactMap { origin, queue in queue.usage.requests == 0 ? nil : (origin, queue.usage, queue.streams, queue.limiter != nil) }
            .sorted { $0.origin < $1.origin }
    }

    /// Requests in flight and the limit of each origin with some, most first (the live display's).
    func inFlight() -> [(origin: String, running: Int, limit: Int?)] {
        origins.compactMap { origin, queue in queue.running == 0 ? nil : (origin, queue.running, queue.usage.limit == 0 ? nil : queue.usage.limit) }
            .sorted { ($0.running, $1.origin) > ($1.running, $0.origin) }
    }

    /// Some origin's limit adapts, or a fixed one has given way (the answers are worth looking at).
    private(set) var adapts = false

    /// `origin`'s adaptive limit of requests in flight, if it has one.
    func adaptiveLimit(at origin: String) -> Int? { origins[origin]?.limiter?.limit }
    func limiter(at origin: String) -> ConcurrencyLimiter? { origins[origin]?.limiter }
    /// `origin`'s fixed limit's back-off, while it has one.
    func backoff(at origin: String) -> OverloadBackoff? { origins[origin]?.backoff }

    /// Transfers a slot at `origin` carries (1 until it is known to multiplex).
    func streams(at origin: String) -> Int { origins[origin]?.streams ?? 1 }

    /// `origin` asked to be left alone (429, 503) until `until`.
    mutating func coolDown(_ origin: String, until: Instant) {
        cooldownUntil[origin] = max(cooldownUntil[origin] ?? until, until)
    }

    /// A transfer of `bytes` took `duration` at `origin`.
    mutating func observe(_ origin: String, bytes: ByteCount, duration: Duration) {
        throughput[origin, default: Throughput()].add(bytes: bytes, duration: duration)
    }

    /// Takes every job waiting for `origin` (its breaker gave up), in plan order per resource.
    mutating func removeAll(at origin: String) -> [SliceID] {
        origins[origin]?.drain() ?? []
    }

    /// Takes every waiting job (the run stops).
    mutating func removeAll() -> [SliceID] {
        var jobs: [SliceID] = []
        for origin in Array(origins.keys) { jobs += removeAll(at: origin) }
        return jobs
    }

    /// Origins with jobs waiting to start or transfers under way.
    var originsWithWork: [String] {
        origins.compactMap { origin, queue in queue.isEmpty && queue.running == 0 ? nil : origin }
    }

    func hasWaiting(at origin: String) -> Bool {
        !(origins[origin]?.isEmpty ?? true)
    }

    // MARK: Output

    /// The next thing to do now, or nil when nothing may start; what it needs to know of the
    /// rest of the run, it asks `questions`. The caller reports a start it carried out with
    /// ``started(at:)``.
    mutating func next(now: Instant, asking questions: some StartQuestions) -> Action? {
        // By index, so that the pick is changed in place without hashing its origin again.
        var best: (index: Dictionary<String, OriginQueue>.Index, head: (job: SliceID, resource: Int, priority: Int), turn: UInt64)?
        var i = origins.startIndex
        while i != origins.endIndex {
            defer { origins.formIndex(after: &i) }
            guard let queue = origins.values[i].standing() else { continue }
            let head = queue.head
            // Higher priority first; at equal priority the origin served longest ago, then the
            // one whose next job comes first in the plan (jobs are numbered in plan order).
            if let b = best, (head.priority, b.turn, b.head.job) <= (b.head.priority, queue.lastTurn, head.job) { continue }
            let limits = lane(head.resource).limits
            let perHost = perHostAt.isEmpty ? limits.perHost : perHost(at: origins.keys[i], resource: head.resource, under: limits)
            if queue.startNeedsSlot && (queue.slots >= perHost || slots >= limits.total) { continue }
            if running >= Self.mostInFlight { continue }
            if let limit = queue.heldLimit, queue.running >= limit { continue }
            let origin = origins.keys[i]
            if !cooldownUntil.isEmpty, let until = cooldownUntil[origin], until > now { continue }
            if !questions.mayStart(at: origin) { continue }
            best = (i, head, queue.lastTurn)
        }
        // The pick's head as its standing read it: reading it again would copy the whole queue.
        guard let pick = best else { return nil }
        let head = pick.head
        origins.values[pick.index].removeHead()
        let origin = origins.keys[pick.index]
        guard !gates.isEmpty, !questions.continuesAttempt(head.job) else {
            return startPicked(pick.index, head, now: now)
        }
        let candidate = Candidate(
            job: head.job, resource: head.resource, origin: origin, expectedBytes: questions.expectedBytes(head.job), throughput: throughput[origin])
        switch admission(candidate, now: now) {
        case .admit:
            return startPicked(pick.index, head, now: now)
        case .later(let until):
            return .park(job: head.job, until: until)
        case .deferred(let reason, let stop):
            return .notStarted(job: head.job, reason: reason, stop: stop)
        }
    }

    /// The picked origin's head job starts: the origin takes its turn, and its limit of requests
    /// in flight (adaptive, or its slots' transfers) goes on its path.
    private mutating func startPicked(
        _ index: Dictionary<String, OriginQueue>.Index, _ head: (job: SliceID, resource: Int, priority: Int), now: Instant
    ) -> Action {
        turn += 1
        origins.values[index].takesTurn(turn, limits: lane(head.resource).limits, now: now)
        return .startAttempt(job: head.job, origin: origins.keys[index])
    }

    func admission(_ candidate: Candidate, now: Instant) -> GateDecision {
        for gate in gates {
            let decision = gate.decide(candidate, now: now)
            if decision != .admit { return decision }
        }
        return .admit
    }

    /// When a cooling origin with waiting jobs may start again (the driver wakes then).
    func nextCooldownEnd(after now: Instant) -> Instant? {
        var earliest: Instant?
        for (origin, until) in cooldownUntil where until > now && hasWaiting(at: origin) {
            earliest = earliest.map { min($0, until) } ?? until
        }
        return earliest
    }
}
