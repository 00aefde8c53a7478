import JobrunCore
import JobrunFetch
import JobrunOutcome

/// The per-origin circuit breakers (``OriginHealth``): fed by every attempt's end, consulted by
/// `dispatch()`. An origin with no failure since its last success has no breaker at all, so the
/// common case costs one dictionary lookup on an empty or small dictionary.
extension Coordinator {
    /// Tells job `j`'s origin breaker how its attempt ended, and carries out what it decides.
    mutating func noteOriginHealth(_ j: Int, _ report: AttemptReport) {
        // The common case, decided without the origin's name: an answer while no origin has failures.
        if health.breakers.isEmpty, report.isCleanBody { return }
        let failure: AttemptFailure?
        switch report.originReading {
        case .unknown:
            // Ended on this side (a write failed) before the origin's answer was known: says
            // nothing of its health; a probe that ended so is simply no longer under way.
            health.probeAbandoned(job: j, at: origin(j))
            return
        case .healthy: failure = nil
        case .failed(let f): failure = f
        }
        let origin = origin(j)
        if failure == nil && health.breakers[origin] == nil { return }
        let policy = plan.entries[book.jobs[j].resource].resource.settings.retries
        // Drawn only when a breaker takes the attempt in.
        let random = options.random
        guard let (action, breaker) = health.attemptEnded(job: j, at: origin, failure: failure, now: ContinuousClock.now, policy: policy, random: random())
        else { return }
        let last = breaker.lastFailureText
        switch action {
        case .none:
            break
        case .tripped:
            events.emit(.origin(origin, .tripped(failures: breaker.failuresInARow, last: last)))
        case .recovered:
            events.emit(.origin(origin, .recovered))
        case .gaveUp:
            failUnrequested(origin: origin, breaker: breaker)
        }
    }

    /// Fails every slice waiting to start or to retry at `origin` (its own, or a redirect's
    /// target it waits for a slot at), without a request: the origin has failed its probes. The
    /// origin's event, with their count, comes first: they are not told one by one.
    mutating func failUnrequested(origin: String, breaker: OriginBreaker) {
        let failure = Self.unrequested(origin, breaker)
        _ = scheduler.removeAll(at: origin)
        let unrequested = book.jobs.indices.filter { self.origin($0) == origin && book.isWaitingToStart($0) }
        events.emit(.origin(origin, .failing(failures: breaker.failuresInARow, last: breaker.lastFailureText, slicesFailed: unrequested.count)))
        for j in unrequested { fail(j, failure, announce: false) }
    }

    /// Fails the slices that became ready for `origin` after it was given up on.
    mutating func failQueued(origin: String, breaker: OriginBreaker) {
        let failure = Self.unrequested(origin, breaker)
        for j in scheduler.removeAll(at: origin) { fail(j, failure, announce: false) }
    }

    static func unrequested(_ origin: String, _ breaker: OriginBreaker) -> AttemptFailure {
        AttemptFailure(
            kind: .originFailing, message: "not requested: \(origin) failed \(breaker.failuresInARow) attempts in a row (last: \(breaker.lastFailureText))",
            isTransient: false)
    }

    /// Starts job `j`'s attempt at `origin`, which ``OriginHealth/mayStart(at:now:)`` admitted: as that origin's
    /// probe when its breaker is open, released again if the attempt failed before its request.
    mutating func startAdmitted(_ j: Int, at origin: String) {
        // The clock is read only when a breaker or the offline pause may hold the origin.
        guard health.dependsOnTime else { return startAttempt(j) }
        let probes = health.starting(job: j, at: origin, now: ContinuousClock.now)
        startAttempt(j)
        if probes != OriginHealth.Probes(), !book.isRunning(j) { health.didNotStart(job: j, at: origin, probes: probes) }
    }

    /// Whether job `j` may follow a redirect to `hop` now. When the hop's origin has been given
    /// up on, the slice fails unrequested there; while it is being probed, the slice waits like
    /// a retry (its next attempt starts again at its own URL), until the next probe is due.
    mutating func admitsHop(_ j: Int, to hop: String) -> Bool {
        let now = ContinuousClock.now
        if health.offline.isOffline, !isStopping, !health.offline.admits(hop, now: now) {
            // An answer from before the network went redirects there: the slice waits for the
            // network at its own origin, without an attempt spent.
            book.jobs[j].attempts = max(0, book.jobs[j].attempts - 1)
            requeue(j)
            return false
        }
        guard !health.mayStart(at: hop, now: now), let breaker = health.breakers[hop] else { return true }
        var failure = Self.unrequested(hop, breaker)
        switch breaker.admission(now: now) {
        case .failed:
            fail(j, failure)
        case .notBefore(let next):
            failure.isTransient = true
            failure.retryAfter = max(.zero, next - now)
            retryOrFail(j, failure)
        default:
            failure.isTransient = true
            retryOrFail(j, failure)
        }
        return false
    }
}
