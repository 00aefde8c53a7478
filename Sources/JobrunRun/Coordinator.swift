import JobrunCore
import JobrunFetch
import JobrunManifest
import JobrunPlan
import JobrunVerify
import JobrunOutcome

/// The state of one `apply`, owned by the coordinator thread.
struct Coordinator {
    /// One slice's progress through the run.
    enum JobState {
        /// Its resource waits for dependencies.
        case waiting
        /// May start when its host and the total limit allow.
        case ready
        /// A transfer is running.
        case running(token: UInt64, transfer: TransferID, writer: SliceWriter)
        /// Waiting for a retry.
        case delayed(until: ContinuousClock.Instant)
        /// A memory body the ``BodyStore`` is verifying and writing.
        case storing(writer: SliceWriter)
        /// Verified (at `verifiedAt`, where the slice's own time ends), waiting for the batched
        /// sync and rename.
        case committing(writer: SliceWriter, digests: [Digest], verifiedAt: ContinuousClock.Instant)
        /// Finished one way or another.
        case done
    }

    struct Job {
        let resource: Int
        let slice: Int
        let sequence: Int
        /// The slice's own URL, its identity (also how it is shown) and its origin.
        let own: SliceAddress
        var origin: String
        var url: String
        var headers: [HeaderField]
        var hops = 0
        var attempts = 0
        /// The engine of the running transfer.
        var engine = 0
        var state: JobState = .waiting
        var firstStart: ContinuousClock.Instant?
        var bytesTransferred: Int64 = 0
        var didResume = false
        var httpVersion: String?
        var outcome: SliceOutcome?
    }

    let executor: Executor
    /// `engines[0]` runs every plain-HTTP transfer under 64 KiB or of unknown size, and every
    /// TLS transfer under 24 KiB; the others take turns over all engines
    /// (``takesTurns(size:overTLS:)``). Each engine keeps its own
    /// connections, so an HTTP/2 origin gets one multiplexed connection per engine.
    let engines: [CurlEngine]
    /// Verifies and writes memory bodies beside this thread.
    let store: BodyStore
    /// Memory bodies with the store, and their bytes (bounded like the backlog of bodies).
    var storing = 0
    var storingBytes: Int64 = 0
    var nextSharedEngine = 0
    var plan: Plan { executor.plan }
    var options: ApplyOptions { executor.options }
    let clock = ContinuousClock()
    let started = ContinuousClock.now

    var jobs: [Job] = []
    /// Jobs of each resource (indices into `jobs`), by plan entry.
    var jobsOfResource: [[Int]] = []
    var resourceState: [ResourceState]
    /// Each plan entry's dependencies, by id and plan entry, looked up once.
    let dependencies: [[(id: String, entry: Int)]]
    /// Ready jobs per origin, in plan order.
    var readyByOrigin: [String: ReadyQueue] = [:]
    /// Jobs that entered `.delayed` (a retry waits); entries whose job has left that state are
    /// dropped by `releaseDueRetries()`. Keeps the per-event work independent of the job count.
    var delayedJobs: Set<Int> = []
    /// Per resource: how many of its first jobs (in `jobsOfResource` order) are known to be done,
    /// and how many are known to be done or committing. Both states are final (`.done` is never
    /// left, `.committing` only becomes `.done`), so scans resume where the last one stopped.
    var doneCursor: [Int]
    var settledCursor: [Int]
    var runningByOrigin: [String: Int] = [:]
    var cooldownUntil: [String: ContinuousClock.Instant] = [:]
    /// What a failed attempt learned of its slice's file (``Representation``), by job: the next
    /// attempt's response must agree with it.
    var learned: [Int: Representation] = [:]
    /// Origins with failed attempts since their last success (``OriginBreaker``).
    var breakers: [String: OriginBreaker] = [:]
    var running = 0
    var nextToken: UInt64 = 1
    var pendingCommits: [Int] = []
    var oldestPendingCommit: ContinuousClock.Instant?
    var directories: [String: OutputDirectory] = [:]
    var diskFullCount = 0
    var isStopping = false
    var lastProgress = ContinuousClock.now
    let digestPool = DigestPool()
    let bodyBuffers = BodyBufferPool()

    enum ResourceState: Equatable {
        case waiting, active, complete, failed, skipped(String)
    }

    init(executor: Executor, engines: [CurlEngine], store: BodyStore) {
        self.executor = executor
        self.engines = engines
        self.store = store
        resourceState = Array(repeating: .waiting, count: executor.plan.entries.count)
        doneCursor = Array(repeating: 0, count: executor.plan.entries.count)
        settledCursor = Array(repeating: 0, count: executor.plan.entries.count)
        var entryByID: [String: Int] = [:]
        for (index, entry) in executor.plan.entries.enumerated() where entryByID[entry.resource.id] == nil {
            entryByID[entry.resource.id] = index
        }
        dependencies = executor.plan.entries.map { entry in
            entry.resource.dependsOn.compactMap { d in entryByID[d.id].map { (d.id, $0) } }
        }
        buildJobs()
    }

    private mutating func buildJobs() {
        var sequence = 0
        jobs.reserveCapacity(plan.entries.reduce(0) { $0 + $1.resource.slices.count })
        for (r, entry) in plan.entries.enumerated() {
            var indices: [Int] = []
            indices.reserveCapacity(entry.resource.slices.count)
            let base = SliceAddress.Base(entry.resource)
            for (s, slice) in entry.resource.slices.enumerated() {
                let own = SliceAddress(slice, of: entry.resource, base: base)
                var job = Job(resource: r, slice: s, sequence: sequence, own: own, origin: own.origin, url: own.url, headers: entry.resource.headers(for: slice))
                switch entry.decisions[s].action {
                case .upToDate:
                    job.state = .done
                    job.outcome = SliceOutcome(status: .upToDate, size: slice.size, digests: slice.digests, displayURL: own.identity)
                case .deferred:
                    job.state = .done
                    job.outcome = SliceOutcome(status: .deferred, displayURL: own.identity)
                case .fetch, .refetch, .resume:
                    break
                }
                indices.append(jobs.count)
                jobs.append(job)
                sequence += 1
            }
            jobsOfResource.append(indices)
        }
    }

    func display(_ url: String) -> String {
        (try? ParsedURL.parse(url).get())?.displayString ?? url
    }

    /// How job `j`'s current URL is shown: without query and fragment (and without a parse
    /// when it is the slice's own URL).
    func displayURL(_ j: Int) -> String {
        jobs[j].url == jobs[j].own.url ? jobs[j].own.identity : display(jobs[j].url)
    }

    // MARK: The loop

    mutating func run() -> ApplyResult {
        activateRunnableResources()
        while true {
            if let signal = executor.interruptedBy, !isStopping { stop(signal: signal) }
            releaseDueRetries()
            if !isStopping { dispatch() }
            flushCommitsIfDue(force: isStopping)
            if isFinished { break }
            handleEvents()
            if isFinished { break }
            reportProgressIfDue()
            executor.wait(until: nextDeadline())
            handleEvents()
        }
        flushCommitsIfDue(force: true)
        for index in plan.entries.indices { finishResourceIfDone(index) }
        // The outcomes move into the result (the coordinator ends here): no copy of each.
        let entries = plan.entries.enumerated().map { r, entry in
            ApplyResult.Entry(resource: entry.resource, outcomes: jobsOfResource[r].map { j in
                jobs[j].outcome.take() ?? SliceOutcome(status: .skipped, skipReason: "not attempted", displayURL: displayURL(j))
            })
        }
        return ApplyResult(entries: entries, interruptedBy: executor.interruptedBy, elapsed: ContinuousClock.now - started)
    }

    var isFinished: Bool {
        guard running == 0 && storing == 0 && pendingCommits.isEmpty else { return false }
        // By index: `allSatisfy` would copy every job.
        for j in jobs.indices {
            switch jobs[j].state {
            case .done: continue
            case .waiting where isStopping: continue
            default: return false
            }
        }
        return true
    }

    func nextDeadline() -> ContinuousClock.Instant? {
        var deadline: ContinuousClock.Instant?
        func consider(_ d: ContinuousClock.Instant) { deadline = deadline.map { min($0, d) } ?? d }
        for j in delayedJobs {
            if case .delayed(let until) = jobs[j].state { consider(until) }
        }
        for (origin, until) in cooldownUntil where !(readyByOrigin[origin]?.isEmpty ?? true) { consider(until) }
        for (origin, breaker) in breakers where !(readyByOrigin[origin]?.isEmpty ?? true) {
            if case .notBefore(let next) = breaker.admission(now: ContinuousClock.now) { consider(next) }
        }
        if let oldest = oldestPendingCommit { consider(oldest + .seconds(1)) }
        if let interval = options.progressInterval, running > 0 { consider(lastProgress + interval) }
        return deadline
    }

    // MARK: Resources and dependencies

    /// Starts every waiting resource whose dependencies are complete; skips those whose
    /// dependencies failed.
    mutating func activateRunnableResources() {
        // A stopped run starts nothing, and its unfinished resources are not dependency failures.
        guard !isStopping else { return }
        var changed = true
        while changed {
            changed = false
            for r in plan.entries.indices where resourceState[r] == .waiting {
                let deps = dependencies[r]
                if let failed = deps.first(where: { resourceState[$0.entry] == .failed || { if case .skipped = $0 { true } else { false } }(resourceState[$0.entry]) }) {
                    skip(resource: r, reason: "depends on '\(failed.id)', which did not complete")
                    changed = true
                } else if deps.allSatisfy({ resourceState[$0.entry] == .complete }) {
                    resourceState[r] = .active
                    for j in jobsOfResource[r] where !isDone(j) {
                        jobs[j].state = .ready
                        enqueue(j)
                    }
                    finishResourceIfDone(r)
                    changed = true
                }
            }
        }
    }

    mutating func skip(resource r: Int, reason: String) {
        resourceState[r] = .skipped(reason)
        for j in jobsOfResource[r] where !isDone(j) {
            jobs[j].state = .done
            jobs[j].outcome = SliceOutcome(status: .skipped, skipReason: reason, displayURL: displayURL(j))
        }
        options.output("- \(plan.entries[r].resource.id): skipped (\(reason))\n")
    }

    func isDone(_ j: Int) -> Bool {
        if case .done = jobs[j].state { return true }
        return false
    }

    /// Every slice of resource `r` is done. Amortised O(1) per call: `.done` is final, so the
    /// scan continues from the first slice that was not done last time.
    mutating func allDone(resource r: Int) -> Bool {
        let list = jobsOfResource[r]
        var k = doneCursor[r]
        while k < list.count, isDone(list[k]) { k += 1 }
        doneCursor[r] = k
        return k == list.count
    }

    /// Every slice of resource `r` is done or verified and waiting for its commit (both final).
    mutating func allSettled(resource r: Int) -> Bool {
        let list = jobsOfResource[r]
        var k = settledCursor[r]
        while k < list.count {
            switch jobs[list[k]].state {
            case .done, .committing: k += 1
            default:
                settledCursor[r] = k
                return false
            }
        }
        settledCursor[r] = k
        return true
    }

    /// When every slice of a resource is done: a durable sync, then the resource line.
    mutating func finishResourceIfDone(_ r: Int) {
        guard resourceState[r] == .active, allDone(resource: r) else { return }
        // Counted in place: a resource can have 10,000 slices, and copying their outcomes
        // (strings, digests) to count them doubled the time between the last rename and the
        // exit of such a run.
        var counts = ApplyResult.Counts()
        let resource = plan.entries[r].resource
        for j in jobsOfResource[r] {
            if let status = jobs[j].outcome?.status {
                counts.add(status, bytes: jobs[j].outcome?.bytesTransferred ?? 0, integrity: resource.slices[jobs[j].slice].integrity)
            }
        }
        let total = jobsOfResource[r].count
        if counts.failed == 0 && counts.skipped == 0 {
            // The renames reach the disk before the resource is reported complete.
            if let dir = directories[resource.outputRoot], let error = dir.syncFileSystem() {
                resourceState[r] = .failed
                options.output("! \(resource.id): cannot sync the output folder: \(systemErrorText(error))\n")
            } else {
                resourceState[r] = .complete
                options.output(resourceLine(r, counts))
            }
        } else if counts.failed > 0 {
            resourceState[r] = .failed
            options.output("! \(resource.id): \(counts.failed) of \(total) slices failed\n")
        } else {
            // Skipped slices of an active resource: the run was interrupted before they finished.
            resourceState[r] = .failed
            options.output("! \(resource.id): interrupted, \(counts.skipped) of \(total) slices not finished\n")
        }
        activateRunnableResources()
    }

    func resourceLine(_ r: Int, _ c: ApplyResult.Counts) -> String {
        var parts: [String] = []
        if c.fetched > 0 { parts.append("\(c.fetched) fetched") }
        if c.resumed > 0 { parts.append("\(c.resumed) resumed") }
        if c.upToDate > 0 { parts.append("\(c.upToDate) up to date") }
        if c.deferred > 0 { parts.append("\(c.deferred) deferred") }
        let sigil = c.fetched + c.resumed > 0 ? "+" : "="
        let size = c.fetched + c.resumed > 0 ? " (\(ByteCount(c.fetchedBytes)))" : ""
        var note = ""
        if c.withoutDigests.sizeOnly > 0 { note += ", \(c.withoutDigests.sizeOnly) size only" }
        if c.withoutDigests.unverified > 0 { note += ", \(c.withoutDigests.unverified) unverified" }
        return "\(sigil) \(plan.entries[r].resource.id): \(parts.joined(separator: ", "))\(size)\(note)\n"
    }

    // MARK: Queue

    mutating func enqueue(_ j: Int) {
        let seq = jobs[j].sequence
        let jobs = self.jobs  // shares storage; lets the closure read while the queue is mutated
        // Mutated in place: no copy of the queue per insertion.
        readyByOrigin[jobs[j].origin, default: ReadyQueue()].insert(j, sequence: seq) { jobs[$0].sequence }
    }

    mutating func releaseDueRetries() {
        guard !delayedJobs.isEmpty else { return }
        let now = ContinuousClock.now
        // Plan order is restored by `enqueue`, whatever order the set yields.
        for j in delayedJobs {
            guard case .delayed(let until) = jobs[j].state else {
                delayedJobs.remove(j)  // failed or stopped meanwhile
                continue
            }
            if until <= now {
                delayedJobs.remove(j)
                jobs[j].state = .ready
                enqueue(j)
            }
        }
    }

    /// Starts slices while the limits allow: the earliest ready slice (plan order) of any host
    /// that is below its limit and not cooling down.
    mutating func dispatch() {
        // Repeated ENOSPC: slices that became ready since fail instead of starting.
        if diskFullCount >= 2 {
            stopForFullDisk()
            return
        }
        // Bodies the store has not finished hold their memory: past the backlog bounds nothing
        // new starts until it catches up (its reports call this again).
        guard storing <= Self.maxStoring && storingBytes <= Self.maxBacklogBytes else { return }
        let now = ContinuousClock.now
        // Slices that became ready for an origin given up on fail without a request.
        for (origin, breaker) in breakers where breaker.isFailed && readyByOrigin[origin] != nil {
            failQueued(origin: origin, breaker: breaker)
        }
        while true {
            var best: (origin: String, job: Int)?
            for (origin, queue) in readyByOrigin {
                guard let head = queue.first else { continue }
                if let until = cooldownUntil[origin], until > now { continue }
                if !mayStart(at: origin, now: now) { continue }
                let limits = plan.entries[jobs[head].resource].resource.settings.concurrency
                if runningByOrigin[origin, default: 0] >= limits.perHost || running >= limits.total { continue }
                if best == nil || jobs[head].sequence < jobs[best?.job ?? head].sequence { best = (origin, head) }
            }
            guard let pick = best else { return }
            readyByOrigin[pick.origin]?.removeFirst()
            startAdmitted(pick.job, at: pick.origin)
        }
    }

    // MARK: Progress and stopping

    mutating func reportProgressIfDue() {
        guard let interval = options.progressInterval, ContinuousClock.now - lastProgress >= interval else { return }
        lastProgress = ContinuousClock.now
        let done = jobs.filter { if case .done = $0.state { true } else { false } }.count
        let bytes = jobs.reduce(Int64(0)) { $0 + $1.bytesTransferred }
        let seconds = Double((ContinuousClock.now - started).components.seconds)
        options.progress("jobrun: \(done)/\(jobs.count) slices done, \(running) running, \(ByteCount(bytes)) received in \(Int(seconds)) s\n")
    }

    mutating func stop(signal: Int32) {
        isStopping = true
        for j in jobs.indices {
            switch jobs[j].state {
            case .running(_, let transfer, _):
                engines[jobs[j].engine].cancel(transfer)
            case .ready, .delayed, .waiting:
                jobs[j].state = .done
                jobs[j].outcome = SliceOutcome(status: .skipped, attempts: jobs[j].attempts, skipReason: "not started: the run was interrupted by signal \(signal)", displayURL: displayURL(j))
            case .storing, .committing, .done:
                break
            }
        }
        readyByOrigin = [:]
    }
}
