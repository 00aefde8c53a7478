import JobrunManifest
import JobrunOutcome

/// Which ready slice starts next: a pure state machine, fed what happens (a slice became ready,
/// a transfer started or ended, an origin cools down) and asked for the next action at an
/// instant; it does no I/O and reads no clock, so its rules are tested with made-up times.
///
/// The rules: each origin runs at most its resource's `per_host` transfers and the run at most
/// `total`; an origin cooling down after a 429/503, or held by its breaker (`mayStart`), starts
/// nothing. Among the rest, higher-priority resources go first; resources of equal priority
/// take turns (one slice each, round-robin, per origin), and so do origins, so no resource waits
/// behind a long one. Within a resource, slices start in plan order. Before a slice starts,
/// each dispatch gate (``DispatchGate``: the deadline, later the network policy) may hold it back.
struct Scheduler {
    typealias Instant = ContinuousClock.Instant

    /// What the coordinator does next.
    enum Action: Equatable {
        /// Start job `job`'s attempt at `origin`.
        case start(job: Int, origin: String)
        /// A gate holds the job back for this run: it is not started, for `reason`; `stop`, when
        /// the gate's reason ends the run early (the deadline).
        case notStarted(job: Int, reason: String, stop: StopReason?)
        /// A gate holds the job until `until`: it waits like a retry, then is ready again.
        case park(job: Int, until: Instant)
    }

    /// How a resource's slices are scheduled: its priority and its limits.
    struct Lane: Equatable {
        var priority: Int
        var limits: ConcurrencyLimits
    }

    private var origins: [String: OriginQueue] = [:]
    private var lanes: [Int: Lane] = [:]
    private(set) var running = 0
    private var runningByOrigin: [String: Int] = [:]
    private var cooldownUntil: [String: Instant] = [:]
    /// Observed transfer rates per origin, for the gates.
    private(set) var throughput: [String: Throughput] = [:]
    /// Increases with every start: an origin's last value orders origins in turn.
    private var turn: UInt64 = 0
    var gates: [any DispatchGate] = []

    /// Ready jobs waiting, all origins together.
    private(set) var waiting = 0

    // MARK: Input

    /// Resource `resource`'s priority and limits, given once before its slices are queued.
    mutating func describe(resource: Int, as lane: Lane) {
        lanes[resource] = lane
    }

    /// Job `job` (plan position `sequence`, of `resource`) is ready to start at `origin`.
    mutating func enqueue(_ job: Int, sequence: Int, resource: Int, origin: String, sequenceOf: (Int) -> Int) {
        let priority = lanes[resource]?.priority ?? 0
        origins[origin, default: OriginQueue()].insert(job, sequence: sequence, resource: resource, priority: priority, sequenceOf: sequenceOf)
        waiting += 1
    }

    /// A transfer started at `origin` (after a `.start`, a redirect hop, a restart): it holds a slot.
    mutating func started(at origin: String) {
        running += 1
        runningByOrigin[origin, default: 0] += 1
    }

    /// A transfer at `origin` ended: its slot is free.
    mutating func ended(at origin: String) {
        running -= 1
        runningByOrigin[origin, default: 1] -= 1
    }

    /// `origin` asked to be left alone (429, 503) until `until`.
    mutating func coolDown(_ origin: String, until: Instant) {
        cooldownUntil[origin] = max(cooldownUntil[origin] ?? until, until)
    }

    /// A transfer of `bytes` took `duration` at `origin`.
    mutating func observe(_ origin: String, bytes: Int64, duration: Duration) {
        throughput[origin, default: Throughput()].add(bytes: bytes, duration: duration)
    }

    /// Takes every job waiting for `origin` (its breaker gave up), in plan order per resource.
    mutating func removeAll(at origin: String) -> [Int] {
        guard var queue = origins.removeValue(forKey: origin) else { return [] }
        let jobs = queue.drain()
        waiting -= jobs.count
        return jobs
    }

    /// Takes every waiting job (the run stops).
    mutating func removeAll() -> [Int] {
        var jobs: [Int] = []
        for origin in Array(origins.keys) { jobs += removeAll(at: origin) }
        return jobs
    }

    func hasWaiting(at origin: String) -> Bool {
        !(origins[origin]?.isEmpty ?? true)
    }

    // MARK: Output

    /// The next thing to do now, or nil when nothing may start. `mayStart` answers for an
    /// origin's breaker, `expectedBytes` for a job's declared size (asked only by gates). The
    /// caller reports a `.start` it carried out with ``started(at:)``.
    mutating func next(now: Instant, mayStart: (String) -> Bool, expectedBytes: (Int) -> Int64?) -> Action? {
        var best: (origin: String, priority: Int, turn: UInt64, job: Int)?
        for (origin, queue) in origins {
            guard let head = queue.head else { continue }
            // Higher priority first; at equal priority the origin served longest ago, then the
            // one whose next job comes first in the plan (jobs are numbered in plan order).
            if let b = best, (head.priority, b.turn, b.job) <= (b.priority, queue.lastTurn, head.job) { continue }
            if let until = cooldownUntil[origin], until > now { continue }
            let limits = lanes[head.resource]?.limits ?? ConcurrencyLimits()
            if runningByOrigin[origin, default: 0] >= limits.perHost || running >= limits.total { continue }
            if !mayStart(origin) { continue }
            best = (origin, head.priority, queue.lastTurn, head.job)
        }
        guard let pick = best, let head = origins[pick.origin]?.head else { return nil }
        origins[pick.origin]?.removeHead()
        waiting -= 1
        let candidate = Candidate(job: head.job, resource: head.resource, origin: pick.origin, expectedBytes: expectedBytes(head.job), throughput: throughput[pick.origin])
        switch admission(candidate, now: now) {
        case .admit:
            turn += 1
            origins[pick.origin]?.lastTurn = turn
            return .start(job: head.job, origin: pick.origin)
        case .later(let until):
            return .park(job: head.job, until: until)
        case .deferred(let reason, let stop):
            return .notStarted(job: head.job, reason: reason, stop: stop)
        }
    }

    func admission(_ candidate: Candidate, now: Instant) -> GateDecision {
        for gate in gates {
            let decision = gate.decide(candidate, now: now)
            if decision != .admit { return decision }
        }
        return .admit
    }

    /// When a cooling origin with waiting jobs may start again (the coordinator wakes then).
    func nextCooldownEnd(after now: Instant) -> Instant? {
        var earliest: Instant?
        for (origin, until) in cooldownUntil where until > now && hasWaiting(at: origin) {
            earliest = earliest.map { min($0, until) } ?? until
        }
        return earliest
    }
}
