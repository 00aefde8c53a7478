import JobrunCore

/// What happens around a start that is not the scheduler's choice: origins given up on, a
/// probe that did not go out, and where a finished body is checked.
extension RunMachine {
    /// An origin given up on (its breaker failed) at which slices still wait to start: they
    /// fail without a request.
    func givenUpOriginWithWork() -> (origin: String, breaker: OriginBreaker)? {
        guard !health.breakers.isEmpty else { return nil }
        for (origin, breaker) in health.breakers where breaker.isFailed && scheduler.hasWaiting(at: origin) { return (origin, breaker) }
        return nil
    }

    /// Job `j` was to start at `origin` as the probes `probes` (``OriginHealth/starting(job:at:now:)``);
    /// when its request did not go out, the probes are free for another job.
    mutating func attemptStartEnded(_ j: SliceID, at origin: String, probes: OriginHealth.Probes) {
        if probes != OriginHealth.Probes(), !book.isRunning(j) { health.didNotStart(job: j, at: origin, probes: probes) }
    }

    /// Job `j`'s transfer, its request `sent`, ended as `report` says, with `bytes` of body after
    /// `duration`, at `now` (read when a limit adapts or the origin falls idle): its slot is free.
    /// What the answer said of its origin counts while the transfer is still counted there: the
    /// protocol (whether its slots carry streams), an overload, and, for an adaptive limit, its
    /// latency. Its rate counts under the slice's own origin, where the gates look (a redirect's
    /// target serves it).
    mutating func transferEnded(
        _ j: SliceID, _ report: AttemptReport, sent: RequestSent, bytes: ByteCount, duration: Duration, now: @autoclosure () -> Instant
    ) {
        let origin = origin(j)
        if let multiplexed = report.multiplexed, multiplexed || (scheduler.multiplexingOrigins > 0 && report.connections > 0) {
            scheduler.answered(at: origin, multiplexed: multiplexed, onNewConnection: report.connections > 0, now: now())
        }
        if let overload = report.overload {
            scheduler.overloaded(at: origin, sent, overload, now: now())
        } else if scheduler.adapts, report.transport == nil, report.verdict != nil {
            // Only an answer with the file has a latency: an error page or a redirect may come
            // from a cache or the server's front, faster than the path to the content.
            let latency = report.isCleanBody ? report.latency : nil
            scheduler.answered(at: origin, latency: latency, sent: sent, now: now())
        }
        scheduler.ended(at: origin, engine: Int(book.jobs[j].engine), now: now(), duration: duration, connections: report.connections, bytes: bytes)
        if !scheduler.gates.isEmpty { scheduler.observe(ownOrigin(j), bytes: bytes, duration: duration) }
    }

    /// Whether a finished transfer's body waits to be checked until the slots it freed have their
    /// next slices (the engines never wait for the disk's work). Once the disk has been full,
    /// every outcome is handled at once, so that a second full disk is known before more starts.
    func bodyWaitsForStarts(hasBody: Bool) -> Bool {
        hasBody && !phase.hasFilledDisk
    }

    /// Whether a body is checked and stored on the disk worker's thread rather than the driver's:
    /// a memory body, unless the disk has been full (then bodies are stored one at a time, so
    /// that the next full disk is known before anything else starts).
    func checksBodyAside(isInMemory: Bool) -> Bool {
        isInMemory && !phase.hasFilledDisk
    }
}
