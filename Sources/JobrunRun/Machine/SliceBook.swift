import JobrunCore
import JobrunFetch
import JobrunOutcome

/// Every slice's progress through the run, by job (jobs are numbered in plan order): the one
/// place a slice's state changes, with the bookkeeping each state needs (the delayed jobs and
/// the origins their retries wait for, how far each resource's slices have settled). A part of
/// the run's machine: it reads no clock and calls no engine; the driver carries out what a
/// change means (a transfer started, a retry queued).
struct SliceBook {
    /// One slice's progress through the run.
    enum State {
        /// Its resource waits for dependencies.
        case waiting
        /// May start when its host and the total limit allow.
        case ready
        /// A transfer is running; its sink tells the attempt's events from a former attempt's.
        case running(transfer: TransferID, sink: BodySink)
        /// Waiting for a retry, or held by a gate.
        case delayed(until: ContinuousClock.Instant)
        /// A memory body the ``DiskWorker`` is verifying and writing.
        case storing(sink: BodySink)
        /// Verified, waiting for the batched sync and rename.
        case committing(VerifiedBody)
        /// Finished one way or another.
        case done
    }

    /// One slice's progress. A run keeps one per slice of its manifests, so what only a running
    /// attempt needs lives elsewhere: its sink (``BodySink``), a redirect's hop, and the
    /// outcome.
    struct Job {
        private let resourceIndex: Int32
        private let sliceIndex: Int32
        /// Changed by the book's transitions only.
        fileprivate(set) var state: State = .waiting
        var attempts: Int32 = 0
        /// The engine of the running transfer.
        var engine: UInt8 = 0
        var didResume = false
        /// Why a partial file of this slice was removed, when one was (its outcome tells).
        var discardedPartial: PartialFate.Reason?
        /// Nanoseconds from the book's ``SliceBook/epoch`` to the first attempt's start, `-1`
        /// before it (``SliceBook/firstStart(_:)``).
        fileprivate var firstStartNanoseconds: Int64 = -1
        var bytesTransferred: ByteCount = 0

        init(resource: Int, slice: Int) {
            resourceIndex = Int32(truncatingIfNeeded: resource)
            sliceIndex = Int32(truncatingIfNeeded: slice)
        }

        /// The plan entry and the slice within it.
        var resource: Int { Int(resourceIndex) }
        var slice: Int { Int(sliceIndex) }
    }

    /// The instant the jobs' first starts are counted from.
    let epoch: ContinuousClock.Instant
    /// The jobs: their states change by the transitions below, their counts by the notes after them.
    private(set) var jobs: [Job] = []
    /// Jobs of each resource, by plan entry.
    private(set) var jobsOfResource: [Range<SliceID>] = []
    /// Jobs that entered `.delayed`; those that have left it since are dropped by
    /// ``dueJobs(at:)``. Keeps the per-event work independent of the job count.
    private(set) var delayedJobs: Set<SliceID> = []
    /// Jobs delayed for a retry, by their own origin (with the scheduler's: the origins with
    /// work), and each such job's origin.
    private(set) var retryingAt: [String: Int] = [:]
    private var retryOrigin: [SliceID: String] = [:]
    /// Per resource: the first of its jobs not known to be done or committing. Both states are
    /// final (`.done` is never left, `.committing` only becomes `.done`), so scans resume where
    /// the last one stopped.
    private var settledCursor: [SliceID] = []

    init(epoch: ContinuousClock.Instant) {
        self.epoch = epoch
    }

    // MARK: Building

    /// Every job, in plan order.
    var ids: Range<SliceID> { SliceID(0)..<SliceID(jobs.count) }

    /// Room for `count` jobs, reserved before they are added.
    mutating func reserve(_ count: Int) {
        jobs.reserveCapacity(count)
    }

    /// Lets the jobs go (the run has ended; the outcomes hold what is reported).
    mutating func dropJobs() {
        jobs = []
    }

    /// Adds the jobs of the next resource (its slices in order): `done` tells those with nothing
    /// to do.
    mutating func addResource(_ index: Int, slices: Int, done: (Int) -> Bool) {
        let first = SliceID(jobs.count)
        for s in 0..<slices {
            var job = Job(resource: index, slice: s)
            if done(s) { job.state = .done }
            jobs.append(job)
        }
        jobsOfResource.append(first..<SliceID(jobs.count))
        settledCursor.append(first)
    }

    // MARK: What attempts did

    /// Job `j` begins another attempt (a redirect's next request is the same attempt).
    mutating func attemptBegan(_ j: SliceID) {
        jobs[j].attempts += 1
    }

    /// Job `j`'s last attempt does not count (the network was gone).
    mutating func attemptGivenBack(_ j: SliceID) {
        jobs[j].attempts = max(0, jobs[j].attempts - 1)
    }

    /// Job `j`'s running transfer is on engine `engine`.
    mutating func runs(_ j: SliceID, onEngine engine: Int) {
        jobs[j].engine = UInt8(truncatingIfNeeded: engine)
    }

    /// Job `j`'s attempt received `bytes` of body.
    mutating func received(_ j: SliceID, bytes: ByteCount) {
        jobs[j].bytesTransferred += bytes
    }

    /// Job `j`'s verified body continued a partial file.
    mutating func resumed(_ j: SliceID) {
        jobs[j].didResume = true
    }

    /// Job `j`'s partial file was removed, for `reason` (its outcome tells).
    mutating func partialDiscarded(_ j: SliceID, _ reason: PartialFate.Reason) {
        jobs[j].discardedPartial = reason
    }

    // MARK: Transitions

    /// Job `j` may start when the scheduler lets it.
    mutating func ready(_ j: SliceID) {
        assert(!isDone(j), "job \(j) left .done")
        leaveDelayed(j)
        jobs[j].state = .ready
    }

    mutating func running(_ j: SliceID, transfer: TransferID, sink: BodySink) {
        assert(!isDone(j), "job \(j) left .done")
        jobs[j].state = .running(transfer: transfer, sink: sink)
    }

    mutating func storing(_ j: SliceID, sink: BodySink) {
        assert(!isDone(j), "job \(j) left .done")
        jobs[j].state = .storing(sink: sink)
    }

    mutating func committing(_ j: SliceID, _ body: VerifiedBody) {
        assert(!isDone(j), "job \(j) left .done")
        jobs[j].state = .committing(body)
    }

    /// Job `j` waits until `until`: for a retry at `retryAt` (its own origin), or, without one,
    /// held by a gate (no work at its origin for the offline pause: the gate, not the network,
    /// holds it).
    mutating func delayed(_ j: SliceID, until: ContinuousClock.Instant, retryAt origin: String?) {
        assert(!isDone(j), "job \(j) left .done")
        leaveDelayed(j)
        if let origin {
            retryingAt[origin, default: 0] += 1
            retryOrigin[j] = origin
        }
        jobs[j].state = .delayed(until: until)
        delayedJobs.insert(j)
    }

    /// Job `j` has ended, one way or another; whether it was not done before.
    @discardableResult
    mutating func done(_ j: SliceID) -> Bool {
        // Every delayed job is in `delayedJobs`: a run without retries skips the look at its state.
        if !delayedJobs.isEmpty { leaveDelayed(j) }
        let wasDone = isDone(j)
        jobs[j].state = .done
        return !wasDone
    }

    /// Job `j` leaves `.delayed` (its next state is set by the caller).
    private mutating func leaveDelayed(_ j: SliceID) {
        guard case .delayed = jobs[j].state, let origin = retryOrigin.removeValue(forKey: j) else { return }
        if let count = retryingAt[origin], count > 1 { retryingAt[origin] = count - 1 } else { retryingAt[origin] = nil }
    }

    /// The delayed jobs whose wait is over at `now`: each is ready again (its caller queues it).
    /// Those that left `.delayed` otherwise are forgotten here.
    mutating func dueJobs(at now: ContinuousClock.Instant) -> [SliceID] {
        guard !delayedJobs.isEmpty else { return [] }
        var due: [SliceID] = []
        for j in delayedJobs {
            guard case .delayed(let until) = jobs[j].state else {
                delayedJobs.remove(j)  // failed or stopped meanwhile
                continue
            }
            if until <= now {
                delayedJobs.remove(j)
                ready(j)
                due.append(j)
            }
        }
        return due
    }

    /// Job `j`'s first attempt started at `instant` (its resource timeout counts from then).
    mutating func firstStarted(_ j: SliceID, at instant: ContinuousClock.Instant) {
        jobs[j].firstStartNanoseconds = max(0, (instant - epoch).wholeNanoseconds)
    }

    // MARK: Questions

    /// When job `j`'s first attempt started, if one has.
    func firstStart(_ j: SliceID) -> ContinuousClock.Instant? {
        let nanoseconds = jobs[j].firstStartNanoseconds
        return nanoseconds < 0 ? nil : epoch + .nanoseconds(nanoseconds)
    }

    func isDone(_ j: SliceID) -> Bool {
        if case .done = jobs[j].state { return true }
        return false
    }

    func isRunning(_ j: SliceID) -> Bool {
        if case .running = jobs[j].state { return true }
        return false
    }

    func isDelayed(_ j: SliceID) -> Bool {
        if case .delayed = jobs[j].state { return true }
        return false
    }

    func isWaitingToStart(_ j: SliceID) -> Bool {
        switch jobs[j].state {
        case .ready, .delayed: true
        default: false
        }
    }

    /// The earliest end of a delay, if a job is delayed.
    func nextDelayEnd() -> ContinuousClock.Instant? {
        var earliest: ContinuousClock.Instant?
        for j in delayedJobs {
            if case .delayed(let until) = jobs[j].state { earliest = earliest.map { min($0, until) } ?? until }
        }
        return earliest
    }

    /// Jobs delayed now (retrying, or held by a gate).
    var delayedCount: Int { delayedJobs.count { isDelayed($0) } }

    /// Every slice of resource `r` is done or verified and waiting for its commit (both final).
    mutating func allSettled(resource r: Int) -> Bool {
        let end = jobsOfResource[r].upperBound
        var j = settledCursor[r]
        while j < end {
            switch jobs[j].state {
            case .done, .committing: j = j.advanced(by: 1)
            default:
                settledCursor[r] = j
                return false
            }
        }
        settledCursor[r] = j
        return true
    }
}
