import JobrunConditions
import JobrunCore
import JobrunManifest
import JobrunOutcome
import JobrunPlan

/// `apply`'s decisions as one value: its named parts, each owning one concern, and the questions
/// that span them (where a slice's request goes, what starts next, when something is next due,
/// whether the run has finished). It reads no clock, touches no file, calls no engine and emits
/// no event: the driver (``RunDriver``) tells it what happened, with the time, and carries out
/// what it answers.
struct RunMachine {
    typealias Instant = ContinuousClock.Instant

    let plan: Plan
    /// The run's `--deadline`.
    let deadline: Instant?
    /// Whether the run goes on or stops, and why.
    var phase = RunPhase()
    /// The resources' states, by plan entry.
    var graph: ResourceGraph
    /// Every slice's state, by job.
    var book: SliceBook
    /// Which ready slice starts next (limits, cooldowns, priorities, turns, gates).
    var scheduler = Scheduler()
    /// Verified slices waiting for their commit, and the roots to sync.
    var commits = CommitQueue()
    /// Bodies received and not yet checked or stored.
    var backlog = BodyBacklog()
    /// The origins' breakers and the offline pause.
    var health: OriginHealth
    /// What each ended attempt means, and what it hands the next.
    var review = AttemptReview()
    /// Which of its URLs each slice with several goes to next.
    var choice = OriginChoice()
    /// The network policy's reviews, and its gate's place among the scheduler's gates.
    private(set) var policy: PolicyReview?
    private var policyGateIndex: Int?
    /// What the slices of each resource share of their URLs at each of its origins, by plan entry.
    private var bases: [[SliceAddress.Base?]] = []
    /// The origin of the first URL of each job whose slice does not go by its resource's base URL.
    private var ownOrigins: [SliceID: String] = [:]
    /// Some slice has several URLs (``OriginChoice``).
    private(set) var hasSeveralURLs = false
    /// The origins some slice may pass over (``originsWithAlternatives()``), worked out at the
    /// first wrong answer.
    var passable: Set<String>?
    /// The resources with several origins whose slices spread over them (``spread(now:)``), each
    /// with its origins in order.
    private var spreads: [(resource: Int, origins: [String], weights: [Int])] = []
    /// Each job's bytes still to fetch, kept only when a gate asks (a deadline is set).
    private var expectedSizes: [ByteCount?] = []

    /// The machine of a run of `plan`, whose jobs' first starts count from `epoch`.
    init(plan: Plan, epoch: Instant, offlineWait: Duration, deadline: Instant?) {
        self.plan = plan
        self.deadline = deadline
        book = SliceBook(epoch: epoch)
        health = OriginHealth(offline: OfflinePause(wait: offlineWait, deadline: deadline))
        var entryByID: [String: Int] = [:]
        for (index, entry) in plan.entries.enumerated() where entryByID[entry.resource.id] == nil {
            entryByID[entry.resource.id] = index
        }
        graph = ResourceGraph(
            dependencies: plan.entries.map { entry in
                entry.resource.dependsOn.compactMap { d in entryByID[d.id].map { ResourceGraph.Dependency(id: d.id, resource: $0) } }
            },
            plannedDeferrals: plan.entries.map(\.deferral),
            remaining: plan.entries.map { entry in entry.decisions.count { Self.transfers($0.action) } })
        for (r, entry) in plan.entries.enumerated() {
            scheduler.describe(resource: r, as: Scheduler.Lane(priority: entry.resource.settings.priority, limits: entry.resource.settings.concurrency))
        }
        if let deadline { scheduler.gates.append(DeadlineGate(cutoff: deadline)) }
        book.reserve(plan.entries.reduce(0) { $0 + $1.resource.slices.count })
        for (r, entry) in plan.entries.enumerated() {
            let all = SliceAddress.Base.all(entry.resource)
            let base = all.first ?? nil
            bases.append(all)
            if all.count > 1 {
                hasSeveralURLs = true
                let origins = all.compactMap { $0?.origin }
                if origins.count == all.count, Set(origins).count == origins.count { spreads.append((r, origins, entry.resource.origins.map(\.weight))) }
            }
            for (k, origin) in entry.resource.origins.enumerated() {
                if let perHost = origin.perHost, let base = all[k] { scheduler.describe(resource: r, origin: base.origin, perHost: perHost) }
            }
            for (s, slice) in entry.resource.slices.enumerated() {
                if slice.url != nil || base == nil {
                    ownOrigins[SliceID(book.jobs.count + s)] = SliceAddress(slice, of: entry.resource, base: base).origin
                    if slice.ownURLCount > 1 { hasSeveralURLs = true }
                }
                if deadline != nil { expectedSizes.append(slice.size.map { ByteCount($0 - entry.decisions[s].resumeOffset) }) }
            }
            book.addResource(r, slices: entry.resource.slices.count) { s in !Self.transfers(entry.decisions[s].action) }
        }
        // Higher priorities are offered an idle origin first.
        spreads.sort {
            (-plan.entries[$0.resource].resource.settings.priority, $0.resource) < (-plan.entries[$1.resource].resource.settings.priority, $1.resource)
        }
    }

    /// Whether a slice of `action` is work for the run; the others are done from the start.
    static func transfers(_ action: SliceAction) -> Bool {
        action != .upToDate && action != .deferred
    }

    var isStopping: Bool { phase.isStopping }

    // MARK: Where requests go

    /// Job `j`'s own URL, identity and origin: those of its slice at the URL it goes to now
    /// (``OriginChoice``).
    func address(_ j: SliceID) -> SliceAddress {
        address(j, at: choice.current(j))
    }

    /// Job `j`'s address at its `k`-th URL.
    func address(_ j: SliceID, at k: Int) -> SliceAddress {
        let r = book.jobs[j].resource
        // Read in place: a copy of the resource would retain each of its fields.
        let base = bases[r].indices.contains(k) ? bases[r][k] : nil
        return SliceAddress(plan.entries[r].resource.slices[book.jobs[j].slice], of: plan.entries[r].resource, base: base, at: k)
    }

    /// The origin of job `j`'s own URL (the one it goes to now).
    func ownOrigin(_ j: SliceID) -> String {
        let k = choice.current(j)
        if k > 0 { return origin(of: j, at: k) }
        if !ownOrigins.isEmpty, let origin = ownOrigins[j] { return origin }
        return (bases[book.jobs[j].resource].first ?? nil)?.origin ?? address(j).origin
    }

    /// The origin of job `j`'s `k`-th URL.
    func origin(of j: SliceID, at k: Int) -> String {
        let r = book.jobs[j].resource
        if plan.entries[r].resource.slices[book.jobs[j].slice].url == nil, bases[r].indices.contains(k), let base = bases[r][k] { return base.origin }
        return address(j, at: k).origin
    }

    /// How many URLs job `j` may be fetched from (``Resource/urlCount(of:)``).
    func urlCount(_ j: SliceID) -> Int {
        let resource = plan.entries[book.jobs[j].resource].resource
        return resource.urlCount(of: resource.slices[book.jobs[j].slice])
    }

    /// The origins of the URLs of slices that have several: those a slice may pass over.
    func originsWithAlternatives() -> Set<String> {
        var origins: Set<String> = []
        for (r, entry) in plan.entries.enumerated() {
            // A base that did not parse as a folder: a slice's own address says.
            if bases[r].count > 1, let slice = entry.resource.slices.first {
                for (k, base) in bases[r].enumerated() { origins.insert(base?.origin ?? SliceAddress(slice, of: entry.resource, base: nil, at: k).origin) }
            }
            for slice in entry.resource.slices where slice.ownURLCount > 1 {
                for url in slice.urls { if case .success(let parsed) = ParsedURL.parse(url) { origins.insert(parsed.origin) } }
            }
        }
        return origins
    }

    /// A bit for each of job `j`'s URLs whose origin takes work (`usable`: not given up on, its
    /// breaker not open, not quarantined), and for each whose origin was not given up on (`alive`).
    func urlHealth(_ j: SliceID) -> (usable: UInt64, alive: UInt64) {
        var (usable, alive): (UInt64, UInt64) = (0, 0)
        for k in 0..<min(urlCount(j), OriginChoice.maximumURLs) {
            let origin = origin(of: j, at: k)
            if health.takesWork(origin) { usable |= 1 << UInt64(k) }
            if !health.isFailed(origin) { alive |= 1 << UInt64(k) }
        }
        return (usable, alive)
    }

    /// Job `j` waits elsewhere than at its own URL's origin when that takes no work and another
    /// of its URLs' does (``OriginChoice/place(_:usable:alive:)``); whether it moved.
    mutating func place(_ j: SliceID) -> Bool {
        guard hasSeveralURLs, urlCount(j) > 1 else { return false }
        let (usable, alive) = urlHealth(j)
        guard choice.place(j, usable: usable, alive: alive) else { return false }
        review.movedOrigin(j)
        return true
    }

    /// The headers of job `j`'s own request (at the URL it goes to now).
    func ownHeaders(_ j: SliceID) -> [HeaderField] {
        let resource = plan.entries[book.jobs[j].resource].resource
        return resource.headers(for: resource.slices[book.jobs[j].slice], at: choice.current(j))
    }

    /// The origin of job `j`'s next or running request: its own, or a redirect's target.
    func origin(_ j: SliceID) -> String {
        review.redirectOrigin(j) ?? ownOrigin(j)
    }

    /// The URL and headers of job `j`'s next or running request: a redirect's, or those of its
    /// slice (whose `own` address is given).
    func nextRequest(_ j: SliceID, own: SliceAddress) -> (url: String, headers: [HeaderField]) {
        review.request(j, ownURL: own.url, headers: ownHeaders(j))
    }

    // MARK: Resources

    /// The next resource its dependencies decide (``ResourceGraph/nextDecision()``); a started
    /// one has its slices not yet done queued.
    mutating func nextResourceDecision() -> (resource: Int, decision: ResourceGraph.Decision)? {
        guard let (r, decision) = graph.nextDecision() else { return nil }
        if case .start = decision {
            for j in book.jobsOfResource[r] where !book.isDone(j) { requeue(j) }
        }
        return (r, decision)
    }

    // MARK: Queues

    /// Job `j` waits for a slot where its next request goes: at another of its URLs when its
    /// own's origin takes no work and another's does (``OriginChoice/place(_:count:usable:)``).
    mutating func enqueue(_ j: SliceID) {
        if hasSeveralURLs, health.hasOriginsPassedOver, review.redirectOrigin(j) == nil, !health.takesWork(ownOrigin(j)) { _ = place(j) }
        // Jobs are numbered in plan order: a job's number is its sequence.
        scheduler.enqueue(j, sequence: j.index, resource: book.jobs[j].resource, origin: origin(j)) { $0.index }
    }

    /// Job `j` is ready again, queued at its own origin.
    mutating func requeue(_ j: SliceID) {
        review.backToOwnOrigin(j)
        book.ready(j)
        enqueue(j)
    }

    /// Job `j` waits until `until`: a retry's backoff, or (`isRetry` false) a gate's hold, which
    /// is no work at its origin for the offline pause (the gate, not the network, holds it).
    mutating func delay(_ j: SliceID, until: Instant, isRetry: Bool = true) {
        book.delayed(j, until: until, retryAt: isRetry ? ownOrigin(j) : nil)
    }

    /// Queues the delayed jobs due at `now` (read only when a job is delayed). Plan order is restored by `enqueue`, whatever order
    /// they come in; each is queued where its next request goes: a retry's own origin (set when
    /// it was delayed), a parked job's as it was.
    mutating func releaseDue(at now: @autoclosure () -> Instant) {
        guard !book.delayedJobs.isEmpty else { return }
        for j in book.dueJobs(at: now()) { enqueue(j) }
    }

    /// The scheduler's next action at `now`. Its questions read copies made here, released
    /// before the action changes the jobs, the origins' health or the redirects (no copy-on-write
    /// of any). A gate that holds a slice back for the rest of the run (the deadline's) ends the
    /// run early: it finishes what is under way and what still fits.
    mutating func nextAction(now: Instant) -> Scheduler.Action? {
        if !spreads.isEmpty { spread(now: now) }
        let action = scheduler.next(now: now, asking: Answers(health: health, expectedSizes: expectedSizes, review: review, now: now))
        if case .notStarted(_, _, let stop?)? = action { phase.heldBack(for: stop) }
        return action
    }

    /// Spreads the slices of resources with several origins: an origin that takes work, waits
    /// for nothing and has room for another request takes the last slice waiting at another
    /// origin of the resource that has no room (one per look; the next start looks again), while
    /// its requests in flight are fewer than that origin's in the ratio of their `weight`s. So
    /// the first origin takes what it can, each other one works the other end of what waits,
    /// and one that delivers faster frees its room sooner and takes more; one of weight 0 takes
    /// none. Resources of higher priority are offered an idle origin first.
    mutating func spread(now: Instant) {
        for (r, origins, weights) in spreads {
            for (y, idle) in origins.enumerated() where weights[y] > 0 && health.takesWork(idle) && scheduler.isIdle(idle, resource: r, now: now) {
                for (x, busy) in origins.enumerated() where x != y && !scheduler.hasRoom(at: busy, resource: r, now: now) {
                    // One that starts nothing now (a cooldown) holds no share to compare with.
                    let held = scheduler.running(at: busy)
                    guard held == 0 || scheduler.running(at: idle) * weights[x] < held * weights[y] else { continue }
                    guard let j = scheduler.lastWaiting(at: busy, resource: r), mayMove(j, from: x, to: y, origin: idle, now: now) else { continue }
                    _ = scheduler.takeLast(at: busy, resource: r)
                    moveChoice(j, to: y)
                    enqueue(j)
                    break
                }
            }
        }
    }

    /// Whether spreading may move job `j` from its URL `x` to its URL `y` (at `origin`): its slice
    /// goes by its resource's origins, it waits at `x` (not at a redirect's target), it has not
    /// failed at `y` in this round or for good, and the gates (the deadline's) would start it there.
    private func mayMove(_ j: SliceID, from x: Int, to y: Int, origin: String, now: Instant) -> Bool {
        let r = book.jobs[j].resource
        guard plan.entries[r].resource.slices[book.jobs[j].slice].url == nil, choice.current(j) == x, review.redirectOrigin(j) == nil,
            choice.mayMove(j, to: y)
        else { return false }
        guard !scheduler.gates.isEmpty else { return true }
        let candidate = Candidate(
            job: j, resource: r, origin: origin, expectedBytes: expectedSizes.isEmpty ? nil : expectedSizes[j], throughput: scheduler.throughput[origin])
        return scheduler.admission(candidate, now: now) == .admit
    }

    /// The machine's answers to the scheduler's questions at `now`.
    private struct Answers: StartQuestions {
        let health: OriginHealth
        let expectedSizes: [ByteCount?]
        let review: AttemptReview
        let now: Instant

        func mayStart(at origin: String) -> Bool { health.mayStart(at: origin, now: now) }
        func expectedBytes(_ job: SliceID) -> ByteCount? { expectedSizes.isEmpty ? nil : expectedSizes[job] }
        func continuesAttempt(_ job: SliceID) -> Bool { review.redirectOrigin(job) != nil }
    }

    // MARK: The network policy

    /// Installs the policy's gate, its first review due at `now`.
    mutating func startPolicy(_ policy: RunPolicy, now: Instant) {
        self.policy = PolicyReview(policy: policy, now: now)
        policyGateIndex = scheduler.gates.count
        scheduler.gates.append(PolicyGate(deferred: [:], waitUntil: policy.waitUntil, nextReview: now))
    }

    /// Judges every resource still to run again, with the wall clock at `wallMilliseconds` and
    /// the conditions' latest `reading`, and renews the gate's verdicts.
    mutating func reviewPolicy(now: Instant, wallMilliseconds: Int64, reading: Conditions?) {
        guard var review = policy, let index = policyGateIndex else { return }
        let resources = plan.entries.indices.filter { graph.isUndecidedOrActive($0) }.map { (entry: $0, resource: plan.entries[$0].resource) }
        scheduler.gates[index] = review.review(now: now, wallMilliseconds: wallMilliseconds, conditions: reading, resources: resources)
        policy = review
    }

    // MARK: Time and the end

    /// Whether every slice is settled and nothing is under way (a stopped run leaves the slices
    /// of resources that never started waiting).
    var isFinished: Bool {
        guard scheduler.running == 0 && backlog.storing == 0 && commits.isIdle else { return false }
        // By index: `allSatisfy` would copy every job.
        for j in book.ids {
            switch book.jobs[j].state {
            case .done: continue
            case .waiting where phase.stopReason != nil: continue
            default: return false
            }
        }
        return true
    }

    /// The first instant after `now` at which something is due: a delayed job, a cooldown's end,
    /// the deadline, an offline probe or the pause's end, a breaker's probe at an origin with
    /// work, a commit batch, the policy's review.
    func nextDeadline(now: Instant) -> Instant? {
        var next: Instant?
        func consider(_ d: Instant) { next = next.map { min($0, d) } ?? d }
        if let end = book.nextDelayEnd() { consider(end) }
        if let end = scheduler.nextCooldownEnd(after: now) { consider(end) }
        if let deadline, !isStopping { consider(deadline) }
        if !isStopping, let offline = nextOfflineDeadline(after: now) { consider(offline) }
        for (origin, breaker) in health.breakers where scheduler.hasWaiting(at: origin) {
            if case .notBefore(let probe) = breaker.admission(now: now) { consider(probe) }
        }
        if let due = commits.nextDue { consider(due) }
        if let review = policy?.nextReview, !book.delayedJobs.isEmpty || scheduler.waiting > 0 { consider(review) }
        return next
    }

    /// Whether the progress counters are worth reporting: something is under way or waits.
    var hasWorkInFlight: Bool {
        scheduler.running > 0 || !book.delayedJobs.isEmpty || health.offline.isOffline
    }
}
