import JobrunManifest
import JobrunOutcome

/// The origins' health: a breaker for each origin with failed attempts since its last success
/// (``OriginBreaker``), and the offline pause, for a network gone (``OfflinePause``). A part of
/// the run's machine: it says which origin may be sent a request at an instant, and what an
/// attempt's start and end change; the driver tells the events and fails the slices.
struct OriginHealth {
    typealias Instant = ContinuousClock.Instant

    /// Origins with failed attempts since their last success: none in the common case, so a
    /// look at them costs an empty dictionary's.
    private(set) var breakers: [String: OriginBreaker] = [:]
    private(set) var offline: OfflinePause
    /// Origins that served wrong bytes, and those quarantined for it.
    var quarantine = OriginQuarantine()

    /// Which probes an attempt's start is (``starting(job:at:now:)``).
    struct Probes: Equatable {
        /// It probes an origin whose breaker is open.
        var ofBreaker = false
        /// It probes an origin while the network is gone.
        var ofNetwork = false
    }

    init(offline: OfflinePause) {
        self.offline = offline
    }

    /// Whether `origin` may be sent a request at `now`: the network, when gone, is probed there,
    /// and its breaker is closed or due for a probe.
    func mayStart(at origin: String, now: Instant) -> Bool {
        (!offline.isOffline || offline.admits(origin, now: now)) && breakerAdmits(origin, now: now)
    }

    /// Whether `origin`'s breaker lets a request go at `now` (the network aside).
    func breakerAdmits(_ origin: String, now: Instant) -> Bool {
        guard !breakers.isEmpty, let breaker = breakers[origin] else { return true }
        switch breaker.admission(now: now) {
        case .any, .probe: return true
        case .notBefore, .none, .failed: return false
        }
    }

    /// Whether `origin` takes work as usual: not given up on, its breaker not open, and not
    /// quarantined for wrong bytes.
    func takesWork(_ origin: String) -> Bool {
        (breakers.isEmpty || breakers[origin]?.isClosed ?? true) && !quarantine.holds(origin)
    }

    /// Whether some origin takes no work as usual (``takesWork(_:)``): slices with several URLs
    /// are then placed at one that does.
    var hasOriginsPassedOver: Bool { !breakers.isEmpty || !quarantine.isEmpty }

    /// Whether `origin` has been given up on.
    func isFailed(_ origin: String) -> Bool {
        !breakers.isEmpty && breakers[origin]?.isFailed == true
    }

    /// Whether a look at the clock may change an answer: a breaker exists, or the network is gone.
    var dependsOnTime: Bool { !breakers.isEmpty || offline.isOffline }

    /// Job `job` starts an attempt at `origin` (admitted at `now`): the probes it is, recorded.
    mutating func starting(job: SliceID, at origin: String, now: Instant) -> Probes {
        var probes = Probes()
        if !breakers.isEmpty, breakers[origin]?.admission(now: now) == .probe {
            breakers[origin]?.probeStarted(job: job)
            probes.ofBreaker = true
        }
        if offline.isOffline, offline.admission(at: origin, now: now) == .probe {
            offline.probeStarted(job: job, at: origin, now: now)
            probes.ofNetwork = true
        }
        return probes
    }

    /// The attempt whose start was `probes` did not start after all: the origins get their next.
    mutating func didNotStart(job: SliceID, at origin: String, probes: Probes) {
        if probes.ofBreaker { breakers[origin]?.probeAbandoned(job: job) }
        if probes.ofNetwork { offline.probeAbandoned(job: job, at: origin) }
    }

    /// Job `job`'s attempt at `origin`, started at `started`, ended so as far as the network goes
    /// (``OfflinePause/attemptEnded(job:at:reach:started:now:originsWithWork:)``).
    mutating func attemptEnded(
        job: SliceID, at origin: String, reach: OfflinePause.Reach, started: Instant, now: Instant, originsWithWork: () -> [String]
    ) -> OfflinePause.Action {
        offline.attemptEnded(job: job, at: origin, reach: reach, started: started, now: now, originsWithWork: originsWithWork)
    }

    /// A probe of the network at `origin` ended without a word on it: the origin gets its next.
    mutating func networkProbeAbandoned(job: SliceID, at origin: String) {
        offline.probeAbandoned(job: job, at: origin)
    }

    /// A probe of `origin`'s breaker ended without a word on its health.
    mutating func probeAbandoned(job: SliceID, at origin: String) {
        breakers[origin]?.probeAbandoned(job: job)
    }

    /// Job `job`'s attempt at `origin` ended with `failure` (`nil`: the origin answered well):
    /// what the origin's breaker does, and the breaker as it now is; `nil` (and no random number
    /// drawn) when the origin answered well and has no breaker.
    mutating func attemptEnded(
        job: SliceID, at origin: String, failure: AttemptFailure?, now: Instant, policy: RetryPolicy, random: @autoclosure () -> Double
    ) -> (action: OriginBreaker.Action, breaker: OriginBreaker)? {
        if failure == nil && breakers[origin] == nil { return nil }
        var breaker = breakers[origin] ?? OriginBreaker()
        let action = breaker.attemptEnded(job: job, failure: failure, now: now, policy: policy, random: random())
        if case .closed(0, _, _) = breaker.state {
            breakers[origin] = nil
        } else {
            breakers[origin] = breaker
        }
        return (action, breaker)
    }

    /// The network went: the failures at `origins` were its, so their breakers start again
    /// when it is back (one that has given up on its origin stays so: its slices have failed).
    mutating func networkWent(at origins: [String]) {
        for origin in origins where breakers[origin]?.isFailed != true { breakers[origin] = nil }
    }
}
