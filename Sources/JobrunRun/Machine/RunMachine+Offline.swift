import JobrunOutcome

/// The offline pause (``OfflinePause``) fed by every attempt's end before its failure is
/// counted. Only retries touch the bookkeeping of delayed jobs per origin, so a run without
/// failures pays nothing for it.
extension RunMachine {
    /// What an attempt's end means for its slice, as far as the offline pause goes.
    enum Reached: Equatable {
        /// It counts as usual.
        case counts
        /// It counts, and its answer ended the pause: the network came back after `after`.
        case cameOnline(origin: String, after: Duration)
        /// Given back: the job waits, ready, for the network.
        case givenBack
        /// The network is gone: this attempt and those that failed since their origins last
        /// answered are given back, and the run waits up to `wait` for it.
        case wentOffline(origins: [OfflineOrigin], wait: Duration)
        /// The run stops while the network is gone: the slice was cut by the stop, as if cancelled.
        case cut
    }

    /// Tells the offline pause how job `j`'s attempt, started at `startedAt`, ended; `now` is
    /// read only when the pause takes the attempt in.
    mutating func attemptReached(_ j: SliceID, _ report: AttemptReport, startedAt: Instant, now: @autoclosure () -> Instant) -> Reached {
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
            if health.offline.isOffline { health.networkProbeAbandoned(job: j, at: origin(j)) }
            return .counts
        }
        if reach == .answered && !health.offline.isOffline && !health.offline.hasRecords { return .counts }
        let now = now()
        let action = health.attemptEnded(job: j, at: origin(j), reach: reach, started: startedAt, now: now) {
            [scheduler, retryingAt = book.retryingAt] in
            scheduler.originsWithWork + retryingAt.compactMap { $0.value > 0 ? $0.key : nil }
        }
        switch action {
        case .counts:
            return .counts
        case .cameOnline(let origin, let after):
            return .cameOnline(origin: origin, after: after)
        case .givenBack:
            giveBack(j, report)
            return .givenBack
        case .wentOffline(let origins, let given):
            // Their failures were the network's: the breakers start again when it is back.
            health.networkWent(at: origins.map(\.origin))
            var earlier = given
            // This attempt is among them; ``giveBack(_:_:)`` gives it back.
            if let k = earlier.firstIndex(of: j) { earlier.remove(at: k) }
            for g in earlier where !book.isDone(g) { book.attemptGivenBack(g) }
            for g in Set(earlier) where g != j && book.isDelayed(g) { requeue(g) }
            giveBack(j, report)
            // Never negative: an attempt that ended just past the deadline finds the pause over.
            return .wentOffline(origins: origins, wait: max(.zero, (health.offline.stopsAt ?? now) - now))
        }
    }

    /// Job `j`'s ended attempt does not count: the job is ready again at its own origin, and
    /// keeps what the attempt learned of its file (its partial file stays for a resume).
    mutating func giveBack(_ j: SliceID, _ report: AttemptReport) {
        book.attemptGivenBack(j)
        review.givenBack(j, report)
        health.probeAbandoned(job: j, at: origin(j))
        requeue(j)
    }

    /// Whether the run has been offline for `--offline-wait` at `now`; a pause the deadline cuts
    /// short ends with the deadline's stop instead.
    func isOfflineTooLong(now: @autoclosure () -> Instant) -> Bool {
        guard let until = health.offline.stopsAt, !isStopping, deadline.map({ until < $0 }) ?? true else { return false }
        return now() >= until
    }

    /// When the next probe is due or the wait ends, while offline: the probes of origins with
    /// slices waiting, due after `now` (one due already waits for a slot, which an event frees).
    func nextOfflineDeadline(after now: Instant) -> Instant? {
        guard let until = health.offline.stopsAt else { return nil }
        let waiting = scheduler.originsWithWork.filter { scheduler.hasWaiting(at: $0) }
        guard let probe = health.offline.nextProbe(among: waiting), probe > now else { return until }
        return min(until, probe)
    }
}
