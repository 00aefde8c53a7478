import JobrunCore
import JobrunFetch
import JobrunManifest
import JobrunPlan
import JobrunFiles
import JobrunOutcome
import JobrunSystem

/// The state of one `apply`, owned by the driver thread.
struct RunDriver {
    typealias JobState = SliceBook.State
    typealias Job = SliceBook.Job

    let applyRun: ApplyRun
    /// Where the run's events go (``RunObserver``s, on this thread).
    let events: RunEvents
    /// The run's counters, kept as slices start and end.
    var progress = RunProgress()
    /// Resources under way (for ``progress``), by plan entry.
    var activeResources = Set<Int>()
    /// `engines[0]` runs every plain-HTTP transfer under 64 KiB and every TLS transfer under
    /// 24 KiB (an unsized slice by its resource's mean so far); the others take turns over all engines
    /// (``TransferPlacement/takesTurns(size:overTLS:)``), each to the engine with the fewest
    /// under way at its origin (``Scheduler/engine(fewestAt:among:)``): each engine keeps its own
    /// connections.
    let engines: [CurlEngine]
    /// Verifies and writes memory bodies beside this thread.
    let disk: DiskWorker
    var plan: Plan { applyRun.plan }
    var options: ApplyOptions { applyRun.options }
    let clock = ContinuousClock()
    let started = ContinuousClock.now
    /// The run's decisions (``RunMachine``).
    var machine: RunMachine
    /// The watch of the conditions, while the network policy looks at them.
    var conditionsWatch: ConditionsWatch?

    /// Each job's outcome, by plan entry and slice: the last failure while it is retried, its
    /// outcome once done, "not started" until then.
    var outcomes: [[SliceOutcome]] = []
    var directories: [String: OutputDirectory] = [:]
    var lastProgress = ContinuousClock.now
    let digestPool = DigestPool()
    let bodyBuffers = BodyBufferPool()
    /// Why each deferred resource was deferred, by plan entry.
    var deferralOf: [Int: Deferral] = [:]

    init(applyRun: ApplyRun, events: RunEvents, engines: [CurlEngine], disk: DiskWorker) {
        self.applyRun = applyRun
        self.events = events
        self.engines = engines
        self.disk = disk
        machine = RunMachine(plan: applyRun.plan, epoch: started, offlineWait: applyRun.options.offlineWait, deadline: applyRun.options.deadline)
        buildJobs()
        startPolicy()
        rememberQuarantines()
    }

    /// The quarantines an earlier run left, of the origins some slice may pass over here: held
    /// from the start, and told.
    private mutating func rememberQuarantines() {
        let remembered = applyRun.options.quarantinedOrigins
        guard !remembered.isEmpty, machine.hasSeveralURLs else { return }
        let passable = machine.originsWithAlternatives()
        for q in remembered.sorted(by: { $0.origin < $1.origin }) where passable.contains(q.origin) {
            machine.health.quarantine.remember(q.origin, reason: q.reason)
            events.emit(.origin(q.origin, .stillQuarantined(untilMilliseconds: q.untilMilliseconds, last: q.reason)))
        }
    }

    private mutating func buildJobs() {
        let notStarted = SliceOutcome(status: .skipped, skipReason: "not started")
        for entry in plan.entries {
            var resourceOutcomes = Array(repeating: notStarted, count: entry.resource.slices.count)
            for (s, slice) in entry.resource.slices.enumerated() {
                switch entry.decisions[s].action {
                case .upToDate:
                    resourceOutcomes[s] = SliceOutcome(status: .upToDate, size: slice.size, digests: slice.digests)
                    progress.counts.add(.upToDate, bytes: 0, integrity: slice.integrity)
                case .deferred:
                    resourceOutcomes[s] = SliceOutcome(status: .deferred, skipReason: entry.decisions[s].reason)
                    progress.counts.add(.deferred, bytes: 0, integrity: slice.integrity)
                case .fetch, .refetch, .resume, .revalidate:
                    progress.slicesToTransfer += 1
                    if let size = slice.size {
                        progress.bytesToTransfer = progress.bytesToTransfer.saturatingAdding(size)
                    } else {
                        progress.unsizedToTransfer += 1
                    }
                }
            }
            outcomes.append(resourceOutcomes)
        }
        progress.slicesTotal = machine.book.jobs.count
    }

    func display(_ url: String) -> String {
        (try? ParsedURL.parse(url).get())?.displayString ?? url
    }

    /// How job `j`'s current URL is shown when it is a redirect's target (without query and
    /// fragment) or another than the slice's first (``OriginChoice``); `nil` when it is the
    /// slice's first own URL (its outcome names none).
    func displayURL(_ j: SliceID) -> String? {
        if let redirect = machine.review.redirectURL(j) { return display(redirect) }
        return machine.choice.current(j) > 0 ? machine.address(j).identity : nil
    }

    /// How job `j`'s current URL is shown in an event.
    func shownURL(_ j: SliceID) -> String {
        displayURL(j) ?? machine.address(j).identity
    }

    // MARK: The loop

    mutating func run() -> ApplyResult {
        defer { stopPolicy() }
        activateRunnableResources()
        while true {
            if let reason = applyRun.stopReason { stop(reason) }
            if machine.deadlinePassed(now: ContinuousClock.now) { stop(.deadline) }
            if machine.isOfflineTooLong(now: ContinuousClock.now) { stop(.offline) }
            machine.releaseDue(at: ContinuousClock.now)
            reviewPolicyIfDue()
            if !machine.isStopping { dispatch() }
            flushCommitsIfDue(force: machine.isStopping)
            if machine.isFinished { break }
            handleEvents()
            if machine.isFinished { break }
            reportProgressIfDue()
            // Events of other threads (hooks) reach the observers at least once a turn.
            events.deliverPosted()
            disk.start()
            applyRun.wait(until: nextDeadline())
            handleEvents()
        }
        if let reason = machine.phase.stopReason {
            // Resources that never became ready (their dependencies were cut short) are not
            // dependency failures: they were not started.
            let why = Self.notStartedReason(reason)
            for j in machine.book.ids where !isDone(j) {
                settle(j, SliceOutcome(status: .skipped, skipReason: why, displayURL: displayURL(j)), bulk: true)
            }
        }
        for index in plan.entries.indices { finishResourceIfDone(index) }
        // Renames of resources that failed reach the disk too, so that the mirror state may record
        // them; not when stopping, when the sync would also flush what the cancelled transfers
        // wrote, and take time the stop does not have (those files are hashed next time instead).
        if machine.phase.stopReason == nil {
            for root in machine.commits.renamedSinceSync.sorted() { _ = syncRoot(root) }
        }
        // The outcomes move into the result (the driver ends here): no copy of each.
        machine.book.dropJobs()
        let entries = plan.entries.enumerated().map { r, entry in
            let kept = outcomes[r]
            outcomes[r] = []
            return ApplyResult.Entry(resource: entry.resource, outcomes: kept, deferral: deferralOf[r])
        }
        var result = ApplyResult(entries: entries, stopReason: machine.phase.stopReason, elapsed: ContinuousClock.now - started)
        result.offline = machine.health.offline.offlineDuration(now: ContinuousClock.now)
        result.origins = machine.scheduler.usage().map { origin, usage, streams, adaptive in
            var report = OriginUsageReport(
                origin: origin, requests: usage.requests, connections: usage.connections, meanInFlight: usage.meanInFlight ?? 0,
                peakInFlight: usage.peakInFlight, streams: streams, adaptive: adaptive,
                limitPath: usage.limitPath.map { OriginUsageReport.LimitPoint(at: max(.zero, $0.at - started), limit: $0.limit) })
            report.bytes = usage.bytes
            report.failures = usage.failures
            report.wrongAnswers = usage.wrongAnswers
            report.quarantined = machine.health.quarantine.holds(origin)
            return report
        }
        for origin in result.origins { events.emit(.originUsage(origin)) }
        return result
    }

    /// When the loop must next wake: the machine's next due instant, or the next progress report.
    func nextDeadline() -> ContinuousClock.Instant? {
        let due = machine.nextDeadline(now: ContinuousClock.now)
        guard let interval = events.progressInterval, machine.hasWorkInFlight else { return due }
        return due.map { min($0, lastProgress + interval) } ?? lastProgress + interval
    }

    // MARK: Resources and dependencies

    /// Starts every waiting resource whose dependencies are complete; skips those whose
    /// dependencies failed; defers those the plan or a deferred dependency defers.
    mutating func activateRunnableResources() {
        // A stopped run starts nothing, and its unfinished resources are not dependency failures.
        guard !machine.isStopping else { return }
        machine.graph.rescan()
        while let (r, decision) = machine.nextResourceDecision() {
            switch decision {
            case .skip(let reason):
                skip(resource: r, reason: reason)
            case .defer(let deferral):
                deferResource(r, deferral)
            case .start:
                if !machine.graph.isDone(r) {
                    activeResources.insert(r)
                    warnIfOverridden(r)
                    events.emit(.resourceStarted(id: plan.entries[r].resource.id))
                }
                finishResourceIfDone(r)
            }
        }
    }

    mutating func skip(resource r: Int, reason: String) {
        for j in machine.book.jobsOfResource[r] where !isDone(j) {
            settle(j, SliceOutcome(status: .skipped, skipReason: reason, displayURL: displayURL(j)), bulk: true)
        }
        events.emit(.resourceSkipped(id: plan.entries[r].resource.id, reason: reason))
    }

    func isDone(_ j: SliceID) -> Bool { machine.book.isDone(j) }

    /// When every slice of a resource is done: a durable sync, then the resource line.
    mutating func finishResourceIfDone(_ r: Int) {
        guard machine.graph.isReadyToEnd(r) else { return }
        // Counted in place: a resource can have 10,000 slices, and copying their outcomes
        // (strings, digests) to count them doubled the time between the last rename and the
        // exit of such a run.
        var counts = ApplyResult.Counts()
        let resource = plan.entries[r].resource
        for s in outcomes[r].indices {
            counts.add(
                outcomes[r][s].status, bytes: outcomes[r][s].bytesTransferred, integrity: resource.slices[s].integrity,
                revalidation: outcomes[r][s].revalidation)
        }
        let total = machine.book.jobsOfResource[r].count
        activeResources.remove(r)
        switch ResourceGraph.ending(counts: counts, total: total) {
        case .deferred:
            // Conditions turned bad while it ran: what it fetched is in place, the rest waits.
            _ = syncRoot(resource.outputRoot)
            let deferral = runtimeDeferral(of: r)
            deferralOf[r] = deferral
            machine.graph.ended(r, as: .deferred)
            events.emit(.resourceDeferred(id: resource.id, deferral: deferral))
        case .complete:
            // The renames reach the disk before the resource is reported complete.
            if let error = syncRoot(resource.outputRoot) {
                machine.graph.ended(r, as: .failed)
                events.emit(.resourceFailed(id: resource.id, counts: counts, cause: .syncFailed(message: systemErrorText(error))))
            } else {
                machine.graph.ended(r, as: .complete)
                events.emit(.resourceCompleted(id: resource.id, counts: counts))
            }
        case .failed(let count, let total):
            machine.graph.ended(r, as: .failed)
            events.emit(.resourceFailed(id: resource.id, counts: counts, cause: .slicesFailed(count: count, total: total)))
        case .unfinished(let count, let total):
            machine.graph.ended(r, as: .unfinished)
            events.emit(.resourceFailed(id: resource.id, counts: counts, cause: .unfinished(count: count, total: total, reason: machine.phase.stopReason)))
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
        machine.commits.synced(root)
        events.emit(.synced(root: root))
    }

    /// Job `j` has ended with `outcome`: its state, the run's counters and an event. `bulk`: one
    /// of many ended together for a reason another event tells; `file`: the identity of the file
    /// a fetch renamed into place (or a revalidation kept), with the `validators` its response
    /// carried; `confirmed`: the recorded identity a 304 confirmed; `identity`: the slice's, when
    /// the caller has it.
    mutating func settle(
        _ j: SliceID, _ outcome: SliceOutcome, bulk: Bool = false, file: FileIdentity? = nil, identity: String? = nil,
        validators: OriginValidators = OriginValidators(), confirmed: FileIdentity? = nil
    ) {
        var outcome = outcome
        if outcome.partial == nil, let reason = machine.book.jobs[j].discardedPartial { outcome.partial = .discarded(reason) }
        if !machine.choice.standings.isEmpty {
            outcome.failedAt = machine.choice.failures(j).map { OriginFailure(url: display(machine.address(j, at: $0.url).url), failure: $0.failure) }
            machine.choice.forget(j)
        }
        if machine.book.done(j) { machine.graph.sliceDone(of: machine.book.jobs[j].resource) }
        let slice = plan.entries[machine.book.jobs[j].resource].resource.slices[machine.book.jobs[j].slice]
        progress.counts.add(outcome.status, bytes: outcome.bytesTransferred, integrity: slice.integrity, revalidation: outcome.revalidation)
        progress.slicesSettled += 1
        progress.bytesSettled = progress.bytesSettled.saturatingAdding(slice.size ?? 0)
        var settled = SettledSlice(
            slice: SliceRef(
                resource: plan.entries[machine.book.jobs[j].resource].resource.id, path: slice.path,
                url: outcome.displayURL ?? identity ?? machine.address(j).identity),
            outcome: outcome, integrity: slice.integrity, isBulk: bulk, index: machine.book.jobs[j].slice, file: file)
        settled.validators = validators
        settled.confirmed = confirmed
        events.emit(.sliceSettled(settled))
        outcomes[machine.book.jobs[j].resource][machine.book.jobs[j].slice] = outcome
        machine.review.forgetRedirect(j)
    }

    // MARK: Starts

    /// Starts slices while the scheduler allows (limits, cooldowns, breakers, turns, priorities,
    /// gates), and carries out what its gates decide for the others.
    mutating func dispatch() {
        // Repeated ENOSPC: slices that became ready since fail instead of starting.
        if machine.phase.startsNothing {
            stopForFullDisk()
            return
        }
        // Bodies not yet checked (here or by the disk worker) hold their memory: past the backlog's
        // bounds nothing new starts until they are (their reports call this again).
        guard machine.backlog.admitsStarts else { return }
        let now = ContinuousClock.now
        // Slices that became ready for an origin given up on fail without a request (and so do
        // those that the failures make ready there, in this same turn).
        while let (origin, breaker) = machine.givenUpOriginWithWork() { failQueued(origin: origin, breaker: breaker) }
        while let action = machine.nextAction(now: now) {
            switch action {
            case .startAttempt(let j, let origin):
                startAdmitted(j, at: origin)
            case .park(let j, let until):
                machine.delay(j, until: until, isRetry: false)
            case .notStarted(let j, let reason, let stop):
                // Held back for the rest of the run (the deadline), a slice is not started; held
                // back with only some resources (the network policy), it is deferred.
                let status: SliceOutcome.Status = stop == nil ? .deferred : .skipped
                settle(j, SliceOutcome(status: status, attempts: Int(machine.book.jobs[j].attempts), skipReason: reason, displayURL: displayURL(j)), bulk: true)
                finishResourceIfDone(machine.book.jobs[j].resource)
            }
        }
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
        p.bytesInFlight = max(0, applyRun.arrivals.total - p.bytesReceived)
        p.running = machine.scheduler.running
        let inFlight = machine.scheduler.inFlight()
        p.originCount = inFlight.count
        p.origins = inFlight.prefix(RunProgress.originsShown).map { OriginInFlight(origin: $0.origin, running: $0.running, limit: $0.limit) }
        p.retrying = machine.book.delayedCount
        p.offlineFor = machine.health.offline.currentPeriod(now: ContinuousClock.now)
        p.activeCount = activeResources.count
        p.activeResources = activeResources.sorted().prefix(RunProgress.activeShown).map { plan.entries[$0].resource.id }
        p.elapsed = ContinuousClock.now - started
        return p
    }

    /// Stops the run: nothing new starts, transfers in flight are cancelled (their partial files
    /// stay), and slices not started are skipped with the reason.
    mutating func stop(_ reason: StopReason) {
        switch machine.phase.request(reason) {
        case .none:
            return
        case .reason(let reason):
            events.emit(.stopRequested(reason))
            return
        case .stop:
            events.emit(.stopRequested(reason))
        }
        let why = Self.notStartedReason(reason)
        for j in machine.book.ids {
            switch machine.book.jobs[j].state {
            case .running(let transfer, _):
                engines[Int(machine.book.jobs[j].engine)].cancel(transfer)
            case .ready, .delayed, .waiting:
                settle(j, SliceOutcome(status: .skipped, attempts: Int(machine.book.jobs[j].attempts), skipReason: why, displayURL: displayURL(j)), bulk: true)
            case .storing, .committing, .done:
                break
            }
        }
        _ = machine.scheduler.removeAll()
    }
}
