import JobrunFetch
import JobrunOutcome

/// The offline pause (``OfflinePause``): fed by every attempt's end before its failure is
/// counted, consulted by `dispatch()` beside the breakers. Only retries touch the bookkeeping of
/// delayed jobs per origin, so a run without failures pays nothing for it.
extension Coordinator {
    /// What an attempt's end means for its slice, as far as the offline pause goes.
    enum ReachVerdict {
        /// It counts as usual.
        case counts
        /// Given back: the job waits, ready, for the network.
        case givenBack
        /// The run stops while the network is gone: the slice was cut by the stop, as if cancelled.
        case cut
    }

    /// Tells the offline pause how job `j`'s attempt ended, and carries out what it decides.
    mutating func noteReach(_ j: Int, _ report: AttemptReport, startedAt: ContinuousClock.Instant) -> ReachVerdict {
        // The common case, a whole answer while online with nothing remembered, decides nothing.
        guard health.offline.isEnabled, health.offline.isOffline || health.offline.hasRecords || report.transport != nil else { return .counts }
        var reach = report.reach
        if isStopping {
            // Nothing is queued again; what the missing network cut is not a failure of the slice.
            if health.offline.isOffline, reach.isTransportFailure { return .cut }
            reach = .unknown
        }
        if reach == .unknown {
            // A probe that ended so never told: the origin gets its next one.
            if health.offline.isOffline { health.offline.probeAbandoned(job: j, at: origin(j)) }
            return .counts
        }
        if reach == .answered && !health.offline.isOffline && !health.offline.hasRecords { return .counts }
        let now = ContinuousClock.now
        let action = health.offline.attemptEnded(job: j, at: origin(j), reach: reach, started: startedAt, now: now) {
            [scheduler, retryingAt = book.retryingAt] in
            scheduler.originsWithWork + retryingAt.compactMap { $0.value > 0 ? $0.key : nil }
        }
        switch action {
        case .counts:
            return .counts
        case .cameOnline(let origin, let after):
            events.emit(.networkOnline(origin: origin, after: after))
            return .counts
        case .givenBack:
            giveBack(j, report)
            return .givenBack
        case .wentOffline(let origins, let given):
            // Their failures were the network's: the breakers start again when it is back.
            health.networkWent(at: origins.map(\.origin))
            var earlier = given
            // This attempt is among them; ``giveBack(_:writer:)`` gives it back.
            if let k = earlier.firstIndex(of: j) { earlier.remove(at: k) }
            for g in earlier where !isDone(g) { book.jobs[g].attempts = max(0, book.jobs[g].attempts - 1) }
            for g in Set(earlier) where g != j && book.isDelayed(g) { requeue(g) }
            giveBack(j, report)
            // Never negative: an attempt that ended just past the deadline finds the pause over.
            events.emit(.networkOffline(origins: origins, wait: max(.zero, (health.offline.stopsAt ?? now) - now)))
            return .givenBack
        }
    }

    /// Job `j`'s ended attempt does not count: the job is ready again at its own origin, and
    /// keeps what the attempt learned of its file (its partial file stays for a resume).
    mutating func giveBack(_ j: Int, _ report: AttemptReport) {
        book.jobs[j].attempts = max(0, book.jobs[j].attempts - 1)
        review.givenBack(j, report)
        health.probeAbandoned(job: j, at: origin(j))
        requeue(j)
    }

    /// Job `j` is ready again, queued at its own origin.
    mutating func requeue(_ j: Int) {
        review.backToOwnOrigin(j)
        book.ready(j)
        enqueue(j)
    }

    /// Stops the run when it has been offline for `--offline-wait` (the clock is read only then).
    /// A pause cut short by the deadline ends with the deadline's stop, not this one.
    mutating func stopIfOfflineTooLong() {
        guard let until = health.offline.stopsAt, !isStopping, options.deadline.map({ until < $0 }) ?? true, ContinuousClock.now >= until else { return }
        stop(.offline)
    }

    /// Job `j`'s transfer was cut by the run's stop: not finished rather than failed (it counts
    /// as skipped), which the failure tells reports; its attempt ends here, so a partial file on
    /// disk stays when it can be resumed and is removed otherwise (a body in memory is dropped:
    /// such slices are too small to resume anyway).
    mutating func settleCut(_ j: Int, writer: SliceWriter) {
        let fate = endAttempt(j, writer: writer)
        let reason =
            switch fate {
            case .kept?: "cut in flight by the stop; its partial file is kept to resume"
            case .discarded(let why)?: "cut in flight by the stop; its partial file is removed: \(why)"
            case nil: "cut in flight by the stop; nothing was kept"
            }
        var outcome = SliceOutcome(
            status: .skipped, bytesTransferred: book.jobs[j].bytesTransferred, attempts: Int(book.jobs[j].attempts),
            failure: AttemptFailure(kind: .interrupted, message: reason, isTransient: false),
            skipReason: reason, duration: book.firstStart(j).map { ContinuousClock.now - $0 } ?? .zero, displayURL: displayURL(j))
        outcome.partial = fate
        settle(j, outcome)
    }

    /// When the next probe is due or the wait ends, while offline: the probes of origins with
    /// slices waiting, due after `now` (one due already waits for a slot, which an event frees).
    func nextOfflineDeadline(after now: ContinuousClock.Instant) -> ContinuousClock.Instant? {
        guard let until = health.offline.stopsAt else { return nil }
        let waiting = scheduler.originsWithWork.filter { scheduler.hasWaiting(at: $0) }
        guard let probe = health.offline.nextProbe(among: waiting), probe > now else { return until }
        return min(until, probe)
    }

    // MARK: Delayed jobs

    /// Job `j` waits until `until`: a retry's backoff, or (`isRetry` false) a gate's hold, which
    /// is no work at its origin for the offline pause (the gate, not the network, holds it).
    mutating func delay(_ j: Int, until: ContinuousClock.Instant, isRetry: Bool = true) {
        book.delayed(j, until: until, retryAt: isRetry ? ownOrigin(j) : nil)
    }
}
