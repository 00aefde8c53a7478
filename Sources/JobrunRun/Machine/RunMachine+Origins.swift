import JobrunOutcome

/// The origins' breakers (``OriginHealth``) fed by every attempt's end and asked before a
/// redirect is followed. An origin with no failure since its last success has no breaker at all,
/// so the common case costs one dictionary lookup on an empty or small dictionary.
extension RunMachine {
    /// What an attempt's end did to its origin's breaker, for the driver to tell or carry out.
    enum OriginNews {
        case tripped(origin: String, breaker: OriginBreaker)
        case recovered(origin: String)
        /// The origin failed its probes: the slices waiting for it fail without a request.
        case gaveUp(origin: String, breaker: OriginBreaker)
    }

    /// Tells job `j`'s origin's breaker how its attempt ended;
    /// `now` and `random` are read only when a breaker takes the attempt in.
    mutating func attemptEndedAtOrigin(
        _ j: SliceID, _ report: AttemptReport, now: @autoclosure () -> Instant, random: @autoclosure () -> Double
    )
        -> OriginNews?
    {
        // The common case, decided without the origin's name: an answer while no origin has failures.
        if health.breakers.isEmpty, report.isCleanBody { return nil }
        let failure: AttemptFailure?
        switch report.originReading {
        case .unknown:
            // Ended on this side (a write failed) before the origin's answer was known: says
            // nothing of its health; a probe that ended so is simply no longer under way.
            health.probeAbandoned(job: j, at: origin(j))
            return nil
        case .healthy: failure = nil
        case .failed(let f): failure = f
        }
        let origin = origin(j)
        if failure == nil && health.breakers[origin] == nil { return nil }
        let policy = plan.entries[book.jobs[j].resource].resource.settings.retries
        guard let (action, breaker) = health.attemptEnded(job: j, at: origin, failure: failure, now: now(), policy: policy, random: random())
        else { return nil }
        switch action {
        case .none: return nil
        case .tripped: return .tripped(origin: origin, breaker: breaker)
        case .recovered: return .recovered(origin: origin)
        case .gaveUp: return .gaveUp(origin: origin, breaker: breaker)
        }
    }

    /// Takes every slice waiting to start or to retry at `origin` (its own, or a redirect's
    /// target it waits for a slot at) off its queue: the origin was given up on. Those with
    /// another URL whose origin was not given up on move there (``place(_:)``; one waiting at a
    /// redirect's target goes back to its own URLs first); the others are returned, to fail.
    mutating func takeUnrequested(at origin: String) -> [SliceID] {
        let queued = Set(scheduler.removeAll(at: origin))
        return book.ids.filter { j in self.origin(j) == origin && book.isWaitingToStart(j) && !moves(j, requeue: queued.contains(j)) }
    }

    /// Takes the slices that became ready for `origin` after it was given up on off its queue:
    /// those with another URL move there, the others are returned, to fail.
    mutating func takeQueued(at origin: String) -> [SliceID] {
        scheduler.removeAll(at: origin).filter { !moves($0, requeue: true) }
    }

    /// Whether job `j`, waiting for an origin given up on, moves to another of its URLs (queued
    /// there when `requeue`).
    private mutating func moves(_ j: SliceID, requeue: Bool) -> Bool {
        guard hasSeveralURLs, urlCount(j) > 1 else { return false }
        let followed = review.redirectOrigin(j) != nil
        if followed { review.backToOwnOrigin(j) }
        guard place(j) || (followed && health.takesWork(ownOrigin(j))) else { return false }
        if requeue { enqueue(j) }
        return true
    }

    /// The slices queued at `origin`, whose breaker just opened or which was quarantined, that
    /// have another URL whose origin takes work move there; the others wait for its probes.
    mutating func moveWaiting(off origin: String) {
        guard hasSeveralURLs else { return }
        for j in scheduler.removeAll(at: origin) { enqueue(j) }
    }

    /// Job `j`'s attempt ended with `failure` at the origin that answered: counted there
    /// (``OriginUsage``), and a wrong answer counted against the origin of the URL it went to
    /// (a redirect's wrong bytes are its origin's: that is the URL the slice moves off); not
    /// when the bytes judged were not all the origin's answer (`isOriginsAnswer` false: a resume
    /// no validator vouched for, a partial file the origin called complete). The origin that
    /// this quarantined, when it did.
    mutating func attemptFailedAtOrigin(_ j: SliceID, _ failure: AttemptFailure, isOriginsAnswer: Bool = true) -> String? {
        let isWrong = isOriginsAnswer && OriginQuarantine.isWrongAnswer(failure)
        scheduler.failed(at: origin(j), wrongAnswer: isWrong)
        // Only an origin some slice may pass over is worth a quarantine.
        guard isWrong, hasSeveralURLs else { return nil }
        let own = ownOrigin(j)
        if passable == nil { passable = originsWithAlternatives() }
        guard passable?.contains(own) == true else { return nil }
        return health.quarantine.wrongAnswer(at: own, job: j, failure) ? own : nil
    }

    /// The failure of a slice not requested at an origin given up on.
    static func unrequested(_ origin: String, _ breaker: OriginBreaker) -> AttemptFailure {
        AttemptFailure(
            kind: .originFailing, message: "not requested: \(origin) failed \(breaker.failuresInARow) attempts in a row (last: \(breaker.lastFailureText))",
            isTransient: false)
    }

    /// Whether a redirect to `hop` may be followed now.
    enum HopAdmission: Equatable {
        case follow
        /// The network is gone and `hop` is not being probed: the slice waits for the network at
        /// its own origin, its attempt given back (already done).
        case waitsForNetwork
        /// `hop` was given up on: the slice fails without a request there.
        case fails(AttemptFailure)
        /// `hop` is being probed: the slice waits like a retry (its next attempt starts again at
        /// its own URL), until the next probe is due.
        case retries(AttemptFailure)
    }

    /// Whether job `j` may follow a redirect to `hop` at `now`.
    mutating func admitsHop(_ j: SliceID, to hop: String, now: Instant) -> HopAdmission {
        if health.offline.isOffline, !isStopping, !health.offline.admits(hop, now: now) {
            // An answer from before the network went redirects there: no attempt is spent.
            book.attemptGivenBack(j)
            requeue(j)
            return .waitsForNetwork
        }
        guard !health.mayStart(at: hop, now: now), let breaker = health.breakers[hop] else { return .follow }
        var failure = Self.unrequested(hop, breaker)
        failure.isTransient = true
        switch breaker.admission(now: now) {
        case .failed:
            failure.isTransient = false
            return .fails(failure)
        case .notBefore(let next):
            failure.retryAfter = max(.zero, next - now)
            return .retries(failure)
        default:
            return .retries(failure)
        }
    }
}
