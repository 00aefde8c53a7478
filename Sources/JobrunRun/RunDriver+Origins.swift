import JobrunCore
import JobrunFetch
import JobrunOutcome

/// What the origins' breakers decide (``RunMachine/attemptEndedAtOrigin(_:_:now:random:)``),
/// carried out: events told, slices failed unrequested, probes started.
extension RunDriver {
    /// Tells job `j`'s origin breaker how its attempt ended, and carries out what it decides.
    mutating func noteOriginHealth(_ j: SliceID, _ report: AttemptReport) {
        let random = options.random
        switch machine.attemptEndedAtOrigin(j, report, now: ContinuousClock.now, random: random()) {
        case nil:
            break
        case .tripped(let origin, let breaker):
            events.emit(.origin(origin, .tripped(failures: breaker.failuresInARow, last: breaker.lastFailureText)))
            machine.moveWaiting(off: origin)
        case .recovered(let origin):
            events.emit(.origin(origin, .recovered))
        case .gaveUp(let origin, let breaker):
            // The origin's event, with the count of slices failed unrequested, comes first:
            // they are not told one by one.
            let failure = RunMachine.unrequested(origin, breaker)
            let unrequested = machine.takeUnrequested(at: origin)
            events.emit(.origin(origin, .failing(failures: breaker.failuresInARow, last: breaker.lastFailureText, slicesFailed: unrequested.count)))
            for j in unrequested { fail(j, failure, announce: false) }
        }
    }

    /// Fails the slices that became ready for `origin` after it was given up on.
    mutating func failQueued(origin: String, breaker: OriginBreaker) {
        let failure = RunMachine.unrequested(origin, breaker)
        for j in machine.takeQueued(at: origin) { fail(j, failure, announce: false) }
    }

    /// Starts job `j`'s attempt at `origin`, which ``OriginHealth/mayStart(at:now:)`` admitted: as that origin's
    /// probe when its breaker is open, released again if the attempt failed before its request.
    mutating func startAdmitted(_ j: SliceID, at origin: String) {
        // The clock is read only when a breaker or the offline pause may hold the origin.
        guard machine.health.dependsOnTime else { return startAttempt(j) }
        let probes = machine.health.starting(job: j, at: origin, now: ContinuousClock.now)
        startAttempt(j)
        machine.attemptStartEnded(j, at: origin, probes: probes)
    }

    /// Whether job `j` may follow a redirect to `hop` now; when not, the slice fails, retries or
    /// waits for the network as the machine decides.
    mutating func admitsHop(_ j: SliceID, to hop: String) -> Bool {
        switch machine.admitsHop(j, to: hop, now: ContinuousClock.now) {
        case .follow: return true
        case .waitsForNetwork: return false
        // A slice with another URL goes there; no request went to the given-up origin.
        case .fails(let failure): retryOrFail(j, failure, isOriginsAnswer: false)
        case .retries(let failure): retryOrFail(j, failure)
        }
        return false
    }
}
