import JobrunCore
import JobrunFetch
import JobrunManifest
import JobrunPlan
import JobrunVerify
import JobrunOutcome

/// The state of one `apply`, owned by the coordinator thread.
struct Coordinator {
    typealias JobState = SliceBook.State
    typealias Job = SliceBook.Job

    let executor: Executor
    /// Where the run's events go (``RunObserver``s, on this thread).
    let events: RunEvents
    /// The run's counters, kept as slices start and end.
    var progress = RunProgress()
    /// Resources under way (for ``progress``), by plan entry.
    var activeResources = Set<Int>()
    /// `engines[0]` runs every plain-HTTP transfer under 64 KiB and every TLS transfer under
    /// 24 KiB (an unsized slice by its resource's mean so far); the others take turns over all engines
    /// (``TransferPlacement/takesTurns(size:overTLS:)``). Each engine keeps its own
    /// connections, so an HTTP/2 origin gets one multiplexed connection per engine.
    let engines: [CurlEngine]
    /// Verifies and writes memory bodies beside this thread.
    let store: BodyStore
    /// Bodies received and not yet checked or stored (``BodyBacklog``).
    var backlog = BodyBacklog()
    var nextSharedEngine = 0
    var plan: Plan { executor.plan }
    var options: ApplyOptions { executor.options }
    let clock = ContinuousClock()
    let started = ContinuousClock.now

    /// Every slice's state (``SliceBook``), by job.
    var book: SliceBook
    /// Each job's outcome, by plan entry and slice: the last failure while it is retried, its
    /// outcome once done, "not started" until then.
    var outcomes: [[SliceOutcome]] = []
    /// What each ended attempt means, and what it hands the next (``AttemptReview``).
    var review = AttemptReview()
    /// What the slices of each resource share of their URLs (``SliceAddress/Base``), by plan entry.
    var bases: [SliceAddress.Base?] = []
    /// The origin of each job whose slice does not go by its resource's base URL.
    var ownOrigins: [Int: String] = [:]
    /// Each job's declared size, kept only when a gate asks (a deadline is set).
    var expectedSizes: [Int64?] = []
    /// The resources' states, by plan entry (``ResourceGraph``).
    var graph: ResourceGraph
    /// Which ready slice starts next (limits, cooldowns, priorities, turns, gates).
    var scheduler = Scheduler()
    /// The origins' breakers and the offline pause (``OriginHealth``).
    var health: OriginHealth
    /// Transfers under way.
    var running: Int { scheduler.running }
    var nextToken: UInt64 = 1
    /// Verified slices waiting for their commit, and the roots to sync (``CommitQueue``).
    var commits = CommitQueue()
    var directories: [String: OutputDirectory] = [:]
    /// Whether the run goes on or stops, and why (``RunPhase``).
    var phase = RunPhase()
    var isStopping: Bool { phase.isStopping }
    var stopReason: StopReason? { phase.stopReason }
    var lastProgress = ContinuousClock.now
    let digestPool = DigestPool()
    let bodyBuffers = BodyBufferPool()
    /// The network policy's reviews (``PolicyReview``), its gate's place among the gates, and the
    /// watch of the conditions.
    var policyReview: PolicyReview?
    var policyGateIndex: Int?
    var conditionsWatch: ConditionsWatch?
    /// Why each deferred resource was deferred, by plan entry.
    var deferralOf: [Int: Deferral] = [:]

    init(executor: Executor, events: RunEvents, engines: [CurlEngine], store: BodyStore) {
        self.executor = executor
        self.events = events
        self.engines = engines
        self.store = store
        book = SliceBook(epoch: started)
        health = OriginHealth(offline: OfflinePause(wait: executor.options.offlineWait, deadline: executor.options.deadline))
        var entryByID: [String: Int] = [:]
        for (index, entry) in executor.plan.entries.enumerated() where entryByID[entry.resource.id] == nil {
            entryByID[entry.resource.id] = index
        }
        graph = ResourceGraph(
            dependencies: executor.plan.entries.map { entry in
                entry.resource.dependsOn.compactMap { d in entryByID[d.id].map { ResourceGraph.Dependency(id: d.id, resource: $0) } }
            },
            plannedDeferrals: executor.plan.entries.map(\.deferral),
            remaining: executor.plan.entries.map { entry in entry.decisions.count { Self.transfers($0.action) } })
        for (r, entry) in executor.plan.entries.enumerated() {
            scheduler.describe(resource: r, as: Scheduler.Lane(priority: entry.resource.settings.priority, limits: entry.resource.settings.concurrency))
        }
        if let cutoff = executor.options.deadline { scheduler.gates.append(DeadlineGate(cutoff: cutoff)) }
        buildJobs()
        startPolicy()
    }

    private mutating func buildJobs() {
        book.jobs.reserveCapacity(plan.entries.reduce(0) { $0 + $1.resource.slices.count })
        let notStarted = SliceOutcome(status: .skipped, skipReason: "not started")
        for (r, entry) in plan.entries.enumerated() {
            let base = SliceAddress.Base(entry.resource)
            bases.append(base)
            var resourceOutcomes = Array(repeating: notStarted, count: entry.resource.slices.count)
            for (s, slice) in entry.resource.slices.enumerated() {
                if slice.url != nil || base == nil {
                    ownOrigins[book.jobs.count + s] = SliceAddress(slice, of: entry.resource, base: base).origin
                }
                switch entry.decisions[s].action {
                case .upToDate:
                    resourceOutcomes[s] = SliceOutcome(status: .upToDate, size: slice.size, digests: slice.digests)
                    progress.counts.add(.upToDate, bytes: 0, integrity: slice.integrity)
                case .deferred:
                    resourceOutcomes[s] = SliceOutcome(status: .deferred, skipReason: entry.decisions[s].reason)
                    progress.counts.add(.deferred, bytes: 0, integrity: slice.integrity)
                case .fetch, .refetch, .resume:
                    progress.slicesToTransfer += 1
                    if let size = slice.size {
                        progress.bytesToTransfer = progress.bytesToTransfer.saturatingAdding(size)
                    } else {
                        progress.unsizedToTransfer += 1
                    }
                }
                if options.deadline != nil { expectedSizes.append(slice.size.map { $0 - entry.decisions[s].resumeOffset }) }
            }
            book.addResource(r, slices: entry.resource.slices.count) { s in !Self.transfers(entry.decisions[s].action) }
            outcomes.append(resourceOutcomes)
        }
        progress.slicesTotal = book.jobs.count
    }

    /// Whether a slice of `action` is work for the run; the others are done from the start.
    static func transfers(_ action: SliceAction) -> Bool {
        action != .upToDate && action != .deferred
    }

    /// Job `j`'s own URL, identity and origin (those of its slice).
    func address(_ j: Int) -> SliceAddress {
        let r = book.jobs[j].resource
        // Read in place: a copy of the resource would retain each of its fields.
        return SliceAddress(executor.plan.entries[r].resource.slices[book.jobs[j].slice], of: executor.plan.entries[r].resource, base: bases[r])
    }

    /// The origin of job `j`'s next or running request: its own, or a redirect's target.
    func origin(_ j: Int) -> String {
        review.redirectOrigin(j) ?? ownOrigin(j)
    }

    /// The URL and headers of job `j`'s next or running request: a redirect's, or those of its
    /// slice (whose `own` address is given).
    func nextRequest(_ j: Int, own: SliceAddress) -> (url: String, headers: [HeaderField]) {
        let resource = executor.plan.entries[book.jobs[j].resource].resource
        return review.request(j, ownURL: own.url, headers: resource.headers(for: resource.slices[book.jobs[j].slice]))
    }

    /// The origin of job `j`'s own URL.
    func ownOrigin(_ j: Int) -> String {
        if !ownOrigins.isEmpty, let origin = ownOrigins[j] { return origin }
        return bases[book.jobs[j].resource]?.origin ?? address(j).origin
    }

    func display(_ url: String) -> String {
        (try? ParsedURL.parse(url).get())?.displayString ?? url
    }

    /// How job `j`'s current URL is shown when it is a redirect's target (without query and
    /// fragment); `nil` when it is the slice's own (its outcome names none).
    func displayURL(_ j: Int) -> String? {
        review.redirectURL(j).map(display)
    }

    /// How job `j`'s current URL is shown in an event.
    func shownURL(_ j: Int) -> String {
        displayURL(j) ?? address(j).identity
    }

    // MARK: The loop

    mutating func run() -> ApplyResult {
        defer { stopPolicy() }
        activateRunnableResources()
        while true {
            if let reason = executor.stopReason { stop(reason) }
            if let cutoff = options.deadline, !isStopping, ContinuousClock.now >= cutoff { stop(.deadline) }
            stopIfOfflineTooLong()
            releaseDueRetries()
            reviewPolicyIfDue()
            if !isStopping { dispatch() }
            flushCommitsIfDue(force: isStopping)
            if isFinished { break }
            handleEvents()
            if isFinished { break }
            reportProgressIfDue()
            // Events of other threads (hooks) reach the observers at least once a turn.
            events.deliverPosted()
            store.start()
            executor.wait(until: nextDeadline())
            handleEvents()
        }
        if let reason = stopReason {
            // Resources that never became ready (their dependencies were cut short) are not
            // dependency failures: they were not started.
            let why = Self.notStartedReason(reason)
            for j in book.jobs.indices where !isDone(j) { settle(j, SliceOutcome(status: .skipped, skipReason: why, displayURL: displayURL(j)), bulk: true) }
        }
        for index in plan.entries.indices { finishResourceIfDone(index) }
        // Renames of resources that failed reach the disk too, so that the mirror state may record
        // them; not when stopping, when the sync would also flush what the cancelled transfers
        // wrote, and take time the stop does not have (those files are hashed next time instead).
        if stopReason == nil {
            for root in commits.renamedSinceSync.sorted() { _ = syncRoot(root) }
        }
        // The outcomes move into the result (the coordinator ends here): no copy of each.
        book.jobs = []
        let entries = plan.entries.enumerated().map { r, entry in
            let kept = outcomes[r]
            outcomes[r] = []
            return ApplyResult.Entry(resource: entry.resource, outcomes: kept, deferral: deferralOf[r])
        }
        var result = ApplyResult(entries: entries, stopReason: stopReason, elapsed: ContinuousClock.now - started)
        result.offline = health.offline.offlineDuration(now: ContinuousClock.now)
        return result
    }

    var isFinished: Bool {
        guard running == 0 && backlog.storing == 0 && commits.isIdle else { return false }
        // By index: `allSatisfy` would copy every job.
        for j in book.jobs.indices {
            switch book.jobs[j].state {
            case .done: continue
            case .waiting where stopReason != nil: continue
            default: return false
            }
        }
        return true
    }

    func nextDeadline() -> ContinuousClock.Instant? {
        var deadline: ContinuousClock.Instant?
        func consider(_ d: ContinuousClock.Instant) { deadline = deadline.map { min($0, d) } ?? d }
        if let end = book.nextDelayEnd() { consider(end) }
        let now = ContinuousClock.now
        if let end = scheduler.nextCooldownEnd(after: now) { consider(end) }
        if let cutoff = options.deadline, !isStopping { consider(cutoff) }
        if !isStopping, let offlineDeadline = nextOfflineDeadline(after: now) { consider(offlineDeadline) }
        for (origin, breaker) in health.breakers where scheduler.hasWaiting(at: origin) {
            if case .notBefore(let next) = breaker.admission(now: ContinuousClock.now) { consider(next) }
        }
        if let due = commits.nextDue { consider(due) }
        if let review = policyReview?.nextReview, !book.delayedJobs.isEmpty || scheduler.waiting > 0 { consider(review) }
        if let interval = events.progressInterval, running > 0 || !book.delayedJobs.isEmpty || health.offline.isOffline { consider(lastProgress + interval) }
        return deadline
    }

    // MARK: Resources and dependencies

    /// Starts every waiting resource whose dependencies are complete; skips those whose
    /// dependencies failed; defers those the plan or a deferred dependency defers.
    mutating func activateRunnableResources() {
        // A stopped run starts nothing, and its unfinished resources are not dependency failures.
        guard !isStopping else { return }
        graph.rescan()
        while let (r, decision) = graph.nextDecision() {
            switch decision {
            case .skip(let reason):
                skip(resource: r, reason: reason)
            case .defer(let deferral):
                deferResource(r, deferral)
            case .start:
                if !graph.isDone(r) {
                    activeResources.insert(r)
                    warnIfOverridden(r)
                    events.emit(.resourceStarted(id: plan.entries[r].resource.id))
                }
                for j in book.jobsOfResource[r] where !isDone(j) { requeue(j) }
                finishResourceIfDone(r)
            }
        }
    }

    mutating func skip(resource r: Int, reason: String) {
        for j in book.jobsOfResource[r] where !isDone(j) {
            settle(j, SliceOutcome(status: .skipped, skipReason: reason, displayURL: displayURL(j)), bulk: true)
        }
        events.emit(.resourceSkipped(id: plan.entries[r].resource.id, reason: reason))
    }

    func isDone(_ j: Int) -> Bool { book.isDone(j) }

    /// When every slice of a resource is done: a durable sync, then the resource line.
    mutating func finishResourceIfDone(_ r: Int) {
        guard graph.isReadyToEnd(r) else { return }
        // Counted in place: a resource can have 10,000 slices, and copying their outcomes
        // (strings, digests) to count them doubled the time between the last rename and the
        // exit of such a run.
        var counts = ApplyResult.Counts()
        let resource = plan.entries[r].resource
        for s in outcomes[r].indices {
            counts.add(outcomes[r][s].status, bytes: outcomes[r][s].bytesTransferred, integrity: resource.slices[s].integrity)
        }
        let total = book.jobsOfResource[r].count
        activeResources.remove(r)
        switch ResourceGraph.ending(counts: counts, total: total) {
        case .deferred:
            // Conditions turned bad while it ran: what it fetched is in place, the rest waits.
            _ = syncRoot(resource.outputRoot)
            let deferral = runtimeDeferral(of: r)
            deferralOf[r] = deferral
            graph.ended(r, as: .deferred)
            events.emit(.resourceDeferred(id: resource.id, deferral: deferral))
        case .complete:
            // The renames reach the disk before the resource is reported complete.
            if let error = syncRoot(resource.outputRoot) {
                graph.ended(r, as: .failed)
                events.emit(.resourceFailed(id: resource.id, counts: counts, cause: .syncFailed(message: systemErrorText(error))))
            } else {
                graph.ended(r, as: .complete)
                events.emit(.resourceCompleted(id: resource.id, counts: counts))
            }
        case .failed(let count, let total):
            graph.ended(r, as: .failed)
            events.emit(.resourceFailed(id: resource.id, counts: counts, cause: .slicesFailed(count: count, total: total)))
        case .unfinished(let count, let total):
            graph.ended(r, as: .unfinished)
            events.emit(.resourceFailed(id: resource.id, counts: counts, cause: .unfinished(count: count, total: total, reason: stopReason)))
        }
        activateRunnableResources()
    }

    /// Syncs the file systems of `root`'s folders (``OutputDirectory/syncFileSystem()``); on
    /// success every rename into it so far is durable, which ``RunEvent/synced(root:)`` tells.
    /// - Returns: the error number of a failed sync.
    mutating func syncRoot(_ root: String) -> Int32? {
        guard let dir = directories[root] else { return nil }
        if let error = dir.syncFileSystem() { return error }
        noteSynced(root)
        return nil
    }

    /// `root` was synced: every rename into it settled so far is durable.
    mutating func noteSynced(_ root: String) {
        commits.synced(root)
        events.emit(.synced(root: root))
    }

    /// Job `j` has ended with `outcome`: its state, the run's counters and an event. `bulk`: one
    /// of many ended together for a reason another event tells; `file`: the identity of the file
    /// a fetch renamed into place; `identity`: the slice's, when the caller has it.
    mutating func settle(_ j: Int, _ outcome: SliceOutcome, bulk: Bool = false, file: FileIdentity? = nil, identity: String? = nil) {
        var outcome = outcome
        if outcome.partial == nil, let reason = book.jobs[j].discardedPartial { outcome.partial = .discarded(reason) }
        if book.done(j) { graph.sliceDone(of: book.jobs[j].resource) }
        let slice = plan.entries[book.jobs[j].resource].resource.slices[book.jobs[j].slice]
        progress.counts.add(outcome.status, bytes: outcome.bytesTransferred, integrity: slice.integrity)
        progress.slicesSettled += 1
        progress.bytesSettled = progress.bytesSettled.saturatingAdding(slice.size ?? 0)
        events.emit(
            .sliceSettled(
                SettledSlice(
                    slice: SliceRef(
                        resource: plan.entries[book.jobs[j].resource].resource.id, path: slice.path, url: outcome.displayURL ?? identity ?? address(j).identity),
                    outcome: outcome, integrity: slice.integrity, isBulk: bulk, index: book.jobs[j].slice, file: file)))
        outcomes[book.jobs[j].resource][book.jobs[j].slice] = outcome
        review.forgetRedirect(j)
    }

    // MARK: Queue

    mutating func enqueue(_ j: Int) {
        // Jobs are numbered in plan order: a job's number is its sequence.
        scheduler.enqueue(j, sequence: j, resource: book.jobs[j].resource, origin: origin(j)) { $0 }
    }

    mutating func releaseDueRetries() {
        guard !book.delayedJobs.isEmpty else { return }
        // Plan order is restored by `enqueue`, whatever order they come in. Queued where its
        // next request goes: a retry's own origin (set when it was delayed), a parked job's as
        // it was.
        for j in book.dueJobs(at: ContinuousClock.now) { enqueue(j) }
    }

    /// Starts slices while the scheduler allows (limits, cooldowns, breakers, turns, priorities,
    /// gates), and carries out what its gates decide for the others.
    mutating func dispatch() {
        // Repeated ENOSPC: slices that became ready since fail instead of starting.
        if phase.startsNothing {
            stopForFullDisk()
            return
        }
        // Bodies the store has not finished hold their memory: past the backlog bounds nothing
        // new starts until it catches up (its reports call this again).
        guard backlog.admitsStarts else { return }
        let now = ContinuousClock.now
        // Slices that became ready for an origin given up on fail without a request.
        for (origin, breaker) in health.breakers where breaker.isFailed && scheduler.hasWaiting(at: origin) {
            failQueued(origin: origin, breaker: breaker)
        }
        while let action = nextAction(now: now) {
            switch action {
            case .startAttempt(let j, let origin):
                startAdmitted(j, at: origin)
            case .park(let j, let until):
                delay(j, until: until, isRetry: false)
            case .notStarted(let j, let reason, let stop):
                // A gate that holds slices back for the rest of the run (the deadline) ends it
                // early: it finishes what is under way and what still fits. One that holds back
                // only some resources (the network policy) defers their slices.
                if let stop { phase.heldBack(for: stop) }
                let status: SliceOutcome.Status = stop == nil ? .deferred : .skipped
                settle(j, SliceOutcome(status: status, attempts: Int(book.jobs[j].attempts), skipReason: reason, displayURL: displayURL(j)), bulk: true)
                finishResourceIfDone(book.jobs[j].resource)
            }
        }
    }

    /// The scheduler's next action. Its questions read copies made here, released before the
    /// action changes the jobs, the origins' health or the hops (no copy-on-write of any).
    mutating func nextAction(now: ContinuousClock.Instant) -> Scheduler.Action? {
        let health = self.health
        let sizes = expectedSizes
        let review = self.review
        return scheduler.next(
            now: now, mayStart: { health.mayStart(at: $0, now: now) }, expectedBytes: { sizes.isEmpty ? nil : sizes[$0] },
            continuesAttempt: { review.redirectOrigin($0) != nil })
    }

    static func notStartedReason(_ reason: StopReason) -> String {
        switch reason {
        case .signal(let s): "not started: the run was interrupted by signal \(s)"
        case .deadline: "not started: the run stopped at its deadline"
        case .offline: "not started: the network stayed offline for the whole --offline-wait"
        }
    }

    // MARK: Progress and stopping

    /// Sends the counters to the observers that want them, when their interval has passed.
    mutating func reportProgressIfDue() {
        guard let interval = events.progressInterval, ContinuousClock.now - lastProgress >= interval else { return }
        lastProgress = ContinuousClock.now
        events.emit(.progress(snapshot()))
    }

    /// The counters now, with what is only known at this moment.
    func snapshot() -> RunProgress {
        var p = progress
        // What running transfers have taken so far, counted as it arrived; the finished ones'
        // bytes are in `bytesReceived` (the counter may lag by a few pieces, never lead).
        p.bytesInFlight = max(0, executor.arrivals.total - p.bytesReceived)
        p.running = running
        p.retrying = book.delayedCount
        p.offlineFor = health.offline.currentPeriod(now: ContinuousClock.now)
        p.activeCount = activeResources.count
        p.activeResources = activeResources.sorted().prefix(RunProgress.activeShown).map { plan.entries[$0].resource.id }
        p.elapsed = ContinuousClock.now - started
        return p
    }

    /// Stops the run: nothing new starts, transfers in flight are cancelled (their partial files
    /// stay), and slices not started are skipped with the reason.
    mutating func stop(_ reason: StopReason) {
        switch phase.request(reason) {
        case .none:
            return
        case .reason(let reason):
            events.emit(.stopRequested(reason))
            return
        case .stop:
            events.emit(.stopRequested(reason))
        }
        let why = Self.notStartedReason(reason)
        for j in book.jobs.indices {
            switch book.jobs[j].state {
            case .running(let transfer, _):
                engines[Int(book.jobs[j].engine)].cancel(transfer)
            case .ready, .delayed, .waiting:
                settle(j, SliceOutcome(status: .skipped, attempts: Int(book.jobs[j].attempts), skipReason: why, displayURL: displayURL(j)), bulk: true)
            case .storing, .committing, .done:
                break
            }
        }
        _ = scheduler.removeAll()
    }
}
