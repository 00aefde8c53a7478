import JobrunManifest

/// The ready jobs of one origin, by resource: each resource's jobs in plan order (a
/// ``ReadyQueue``), resources grouped by priority (highest first) and taking turns
/// within a priority. Taking the head is O(1); so is queuing a job behind its resource's others.
struct OriginQueue {
    /// A resource's turn: its waiting jobs.
    private var byResource: [Int: ReadyQueue<SliceID>] = [:]
    /// Priorities with waiting resources, highest first, each with its resources in turn order.
    private var classes: [(priority: Int, turns: ReadyQueue<Int>)] = []
    /// The scheduler's turn counter when this origin last started a job.
    var lastTurn: UInt64 = 0
    /// Its transfers under way, and how many of them each engine runs (engines keep their own
    /// connections; see ``Scheduler/engine(fewestAt:among:)``).
    var running = 0
    var runningOnEngine = EngineTally()
    /// Transfers one slot carries: 1 over HTTP/1.1 (and until an answer says otherwise); once
    /// it multiplexes, the fewest `streams` of the resources queued here, so that a slot never
    /// carries more than any of them allows.
    private(set) var streams = 1
    /// Its answers come over multiplexed connections (HTTP/2).
    private(set) var multiplexes = false
    /// The fewest `streams` of the resources queued here so far.
    private var fewestStreams = Int.max
    /// The adaptive limit of its requests in flight, when the first of its resources that adapts
    /// is queued here (other resources there share it), and that resource's limits.
    private(set) var limiter: ConcurrencyLimiter?
    private var limiterLimits = ConcurrencyLimits()
    /// Without a limiter, how its fixed limit gives way while the origin refuses requests as too
    /// many; `nil` while it takes them all.
    private(set) var backoff: OverloadBackoff?
    /// The limits of the resource that last took a turn here: with the slots' streams, what its
    /// limit of requests in flight is.
    private var limits: ConcurrencyLimits?
    /// Of the resources queued here so far, the limits that let the most be in flight: what a
    /// fixed limit's back-off returns to, whichever resource took the last turn.
    private var widestLimits: ConcurrencyLimits?
    /// What it carried so far, for the reports.
    var usage = OriginUsage()

    /// The slots its transfers under way take: one per transfer, or per multiplexed connection's worth.
    var slots: Int { (running + streams - 1) / streams }
    /// The next transfer here needs a slot of its own (the slots it has are full).
    var startNeedsSlot: Bool { running % streams == 0 }

    var isEmpty: Bool { classes.isEmpty }

    /// What the scheduler's pick reads of an origin.
    struct Standing {
        var head: (job: SliceID, resource: Int, priority: Int)
        var lastTurn: UInt64
        var startNeedsSlot: Bool
        var slots: Int
        var running: Int
        /// Its adaptive limit, or its fixed limit's back-off.
        var heldLimit: Int?
    }

    /// What the pick reads, or `nil` when nothing waits here. Mutating only so that it is called
    /// in place in the scheduler's dictionary: its getter would copy the whole queue.
    mutating func standing() -> Standing? {
        guard let head else { return nil }
        return Standing(
            head: head, lastTurn: lastTurn, startNeedsSlot: startNeedsSlot, slots: slots, running: running, heldLimit: limiter?.limit ?? backoff?.limit)
    }

    /// Its head job starts at the scheduler's turn `turn`, under its resource's `limits`, at
    /// `now`: its limit of requests in flight then goes on its path when it changed.
    mutating func takesTurn(_ turn: UInt64, limits: ConcurrencyLimits, now: ContinuousClock.Instant) {
        lastTurn = turn
        self.limits = limits
        noteLimit(now: now)
    }

    /// Its limit of requests in flight (adaptive or backed off, within its slots' transfers)
    /// goes on its path at `now`, when it changed: the one rule for every place that changes it.
    mutating func noteLimit(now: ContinuousClock.Instant) {
        let most = slotsLimit
        let limit = min(limiter?.limit ?? backoff?.limit ?? most, most)
        if usage.limit != limit { usage.limit(is: limit, now: now) }
    }

    /// The requests its slots carry under the limits of the resource that last took a turn here.
    private var slotsLimit: Int { (limits ?? limiterLimits).requestsInFlight(streams: streams) }
    /// The most its slots carry for any resource queued here.
    private var widestLimit: Int { (widestLimits ?? limits ?? limiterLimits).requestsInFlight(streams: streams) }

    /// A resource with `limits` has a job queued here.
    mutating func queued(under limits: ConcurrencyLimits) {
        if let widest = widestLimits, widest.slotsPerHost >= limits.slotsPerHost { return }
        widestLimits = limits
    }

    /// Its requests in flight adapt, under `limits`, from now on (the first adaptive resource
    /// queued here sets them).
    mutating func adapts(under limits: ConcurrencyLimits) {
        guard limiter == nil else { return }
        backoff = nil
        limiterLimits = limits
        limiter = ConcurrencyLimiter(ceiling: limits.requestsInFlight(streams: streams))
    }

    /// The request `sent` was answered at `now` (anything but an overload), its first byte
    /// after `latency` when the answer carried the file: an adaptive limit learns from the
    /// latency, a fixed limit's back-off lets more go.
    mutating func answered(latency: Duration?, sent: RequestSent, now: ContinuousClock.Instant) {
        if var limiter {
            guard let latency else { return }
            limiter.answered(latency: latency, sentAt: sent.at, inFlight: running, now: now)
            self.limiter = limiter
        } else if var backoff {
            self.backoff = backoff.answered(sent, fixed: widestLimit, now: now) ? nil : backoff
        } else {
            return
        }
        noteLimit(now: now)
    }

    /// The origin said at `now` that it has too many, of the request `sent`: by refusing it
    /// (429, 503), or by resetting its connection. An adaptive limit takes either; a fixed limit
    /// gives way to refusals only, since a connection also breaks when the network goes away.
    mutating func overloaded(_ sent: RequestSent, _ overload: AttemptReport.Overload, now: ContinuousClock.Instant) {
        if var limiter {
            limiter.overloaded(sent, now: now)
            self.limiter = limiter
        } else if overload != .refused {
            return
        } else if var backoff {
            backoff.refused(sent, inFlight: running, now: now)
            self.backoff = backoff
        } else {
            backoff = OverloadBackoff(sent, inFlight: running, fixed: widestLimit, now: now)
        }
        noteLimit(now: now)
    }

    /// An answer came over a multiplexed connection (`true`) or not, on a connection it opened
    /// (`onNewConnection`): it multiplexes from the first multiplexed answer, and stops only when
    /// a new connection says HTTP/1.1 (a front end that does not multiplex, a proxy), so that an
    /// answer over an older connection does not flip its slots back and forth. Whether it changed.
    mutating func answered(multiplexed: Bool, onNewConnection: Bool) -> Bool {
        guard multiplexed != multiplexes, multiplexed || onNewConnection else { return false }
        multiplexes = multiplexed
        setStreams()
        return true
    }

    /// Its slots' streams after a change of what it multiplexes or of the resources queued here;
    /// an adaptive limit's ceiling follows them.
    private mutating func setStreams() {
        let streams = multiplexes && fewestStreams != .max ? fewestStreams : 1
        guard streams != self.streams else { return }
        self.streams = streams
        limiter?.changeCeiling(to: limiterLimits.requestsInFlight(streams: streams))
    }

    /// Jobs waiting here.
    var count: Int { byResource.values.reduce(0) { $0 + $1.count } }

    /// The job that starts next here, its resource and priority.
    var head: (job: SliceID, resource: Int, priority: Int)? {
        guard let top = classes.first, let resource = top.turns.first, let job = byResource[resource]?.first else { return nil }
        return (job, resource, top.priority)
    }

    mutating func insert(_ job: SliceID, sequence: Int, resource: Int, priority: Int, streams: Int, sequenceOf: (SliceID) -> Int) {
        if streams < fewestStreams {
            fewestStreams = streams
            setStreams()
        }
        if byResource[resource]?.isEmpty ?? true {
            // The resource joins the back of its priority's turns.
            if let c = classes.firstIndex(where: { $0.priority <= priority }), classes[c].priority == priority {
                classes[c].turns.append(resource)
            } else {
                let at = classes.firstIndex { $0.priority < priority } ?? classes.count
                var turns = ReadyQueue<Int>()
                turns.append(resource)
                classes.insert((priority, turns), at: at)
            }
        }
        byResource[resource, default: ReadyQueue<SliceID>()].insert(job, sequence: sequence, sequenceOf: sequenceOf)
    }

    /// Removes the head job; its resource goes to the back of its turns if it has more.
    mutating func removeHead() {
        guard !classes.isEmpty, let resource = classes[0].turns.first else { return }
        classes[0].turns.removeFirst()
        byResource[resource]?.removeFirst()
        if byResource[resource]?.isEmpty ?? true {
            byResource[resource] = nil
        } else {
            classes[0].turns.append(resource)
        }
        if classes[0].turns.isEmpty { classes.removeFirst() }
    }

    /// Takes the last waiting job of `resource` (another origin of the slice takes it: the two
    /// work from the two ends of the queue), its resource leaving its turns when it has no more.
    mutating func takeLast(of resource: Int) -> SliceID? {
        // In place: a copy out of the dictionary would copy the whole queue.
        guard let job = byResource[resource]?.removeLast() else { return nil }
        if byResource[resource]?.isEmpty ?? true {
            byResource[resource] = nil
            for c in classes.indices { classes[c].turns.remove(resource) }
            classes.removeAll { $0.turns.isEmpty }
        }
        return job
    }

    /// The last waiting job of `resource`, left in place.
    func last(of resource: Int) -> SliceID? {
        byResource[resource]?.last
    }

    /// Whether `resource` has jobs waiting here.
    func hasWaiting(of resource: Int) -> Bool {
        !(byResource[resource]?.isEmpty ?? true)
    }

    /// Takes every job, resource after resource.
    mutating func drain() -> [SliceID] {
        var jobs: [SliceID] = []
        while let h = head {
            jobs.append(h.job)
            removeHead()
        }
        return jobs
    }
}
