import JobrunOutcome

/// Whether the run is offline, and what that does to its attempts (docs/apply.md, "Offline"):
/// when connection-level failures (a name that does not resolve, a host unreachable, a
/// connection refused or timed out) have hit every origin with work under way or waiting, the
/// network is taken to be gone. Nothing starts then but one probe per origin (a slice of its own,
/// on a backoff from 1 s to 30 s); every attempt that failed at the transport level since its
/// origin last answered is given back, as is every such failure while offline, so that the retry
/// budget is spent only while an origin is reachable. The first answer from any origin ends it.
/// Pure: the coordinator reports attempt ends and asks for admission, with the time passed in.
///
/// An answer clears what failed at its origin before its attempt started, not what failed while it
/// ran: the last responses of a server going away arrive after the first refusals.
///
/// | state   | attempt ended                                   | next state                    | action        |
/// |---------|-------------------------------------------------|-------------------------------|---------------|
/// | online  | answered                                        | online, origin reachable      | `.counts`     |
/// | online  | lost (reset, cut short, timed out)              | online, failure remembered    | `.counts`     |
/// | online  | unreachable, some origin with work is not       | online, origin unreachable    | `.counts`     |
/// | online  | unreachable, every origin with work is          | offline, probes in 1 s        | `.wentOffline`|
/// | offline | answered                                        | online, origin reachable      | `.cameOnline` |
/// | offline | lost or unreachable (the probe: next on backoff)| offline                       | `.givenBack`  |
/// | offline | no transport outcome (cancelled, local error)   | offline                       | `.counts`     |
///
/// A `wait` of zero turns the pause off: every attempt counts.
struct OfflinePause {
    typealias Instant = ContinuousClock.Instant

    /// How an attempt ended, as far as reaching its origin goes.
    enum Reach: Equatable {
        /// A whole response came back (any status): the origin is reachable.
        case answered
        /// No connection: the name did not resolve, the host was unreachable, the connection
        /// was refused or timed out.
        case unreachable(AttemptFailure)
        /// The connection broke or stalled after it was made.
        case lost
        /// Nothing is known of the network (cancelled, a local failure, a TLS or protocol error).
        case unknown
    }

    enum Action: Equatable {
        /// The attempt counts as usual.
        case counts
        /// The attempt is given back: the job starts again when the network is back.
        case givenBack
        /// The network is gone: the run pauses. The attempt is given back, and so is every
        /// earlier one listed (by job, once per failure) that failed since its origin last
        /// answered; `origins` are the unreachable ones with their last failures, sorted.
        case wentOffline(origins: [OfflineOrigin], givenBack: [Int])
        /// An origin answered after the run had been offline for `after`.
        case cameOnline(origin: String, after: Duration)
    }

    /// What an origin may be sent now.
    enum Admission: Equatable {
        case any
        /// One request, its probe.
        case probe
        /// Nothing before this instant.
        case notBefore(Instant)
        /// Nothing: its probe is under way.
        case none
    }

    /// An origin's probes while offline.
    struct Probe: Equatable {
        var next: Instant
        var failed = 0
        /// The job whose attempt is the probe under way.
        var job: Int?
    }

    enum State: Equatable {
        case online
        /// Since `since`; the run stops at `until` if no origin has answered.
        case offline(since: Instant, until: Instant, probes: [String: Probe])
    }

    /// How long the run waits offline before it stops; zero: no pause.
    let wait: Duration
    private(set) var state = State.online
    /// Origins whose last attempt could not connect, with that failure and when (cleared by an
    /// answer to a later attempt).
    private var unreachable: [String: (failure: AttemptFailure, at: Instant)] = [:]
    /// Per origin, the jobs whose attempts failed there at the transport level since it last
    /// answered (a job once per such attempt), and when: given back if the run goes offline.
    private var lostSinceAnswer: [String: [(job: Int, at: Instant)]] = [:]
    /// Time spent offline in periods that have ended.
    private(set) var offlineTotal: Duration = .zero

    init(wait: Duration) {
        self.wait = wait
    }

    /// Some origin is remembered as unreachable, or with failures to give back.
    var hasRecords: Bool { !unreachable.isEmpty || !lostSinceAnswer.isEmpty }

    var isOffline: Bool {
        if case .offline = state { return true }
        return false
    }

    /// When the run stops for being offline, if it is.
    var stopsAt: Instant? {
        if case .offline(_, let until, _) = state { return until }
        return nil
    }

    /// Time offline so far, the current period included.
    func offlineDuration(now: Instant) -> Duration {
        if case .offline(let since, _, _) = state { return offlineTotal + (now - since) }
        return offlineTotal
    }

    /// The probe delay after `failed` failed probes: 1 s, 2 s, 4 s, 8 s, 16 s, then 30 s.
    static func probeDelay(afterFailures failed: Int) -> Duration {
        .seconds(min(30, 1 << min(failed, 5)))
    }

    /// Job `job`'s attempt at `origin`, started at `started`, ended so. `originsWithWork` are the
    /// origins with slices waiting, delayed or under way (asked only when the answer can change
    /// the state).
    mutating func attemptEnded(
        job: Int, at origin: String, reach: Reach, started: Instant, now: Instant, originsWithWork: () -> [String]
    ) -> Action {
        guard wait > .zero else { return .counts }
        switch (state, reach) {
        case (_, .unknown):
            return .counts
        case (.online, .answered):
            forgetFailures(at: origin, before: started)
            return .counts
        case (.offline(let since, _, _), .answered):
            forgetFailures(at: origin, before: started)
            lostSinceAnswer = [:]
            offlineTotal += now - since
            state = .online
            return .cameOnline(origin: origin, after: now - since)
        case (.online, .lost):
            lostSinceAnswer[origin, default: []].append((job, now))
            return .counts
        case (.online, .unreachable(let failure)):
            unreachable[origin] = (failure, now)
            lostSinceAnswer[origin, default: []].append((job, now))
            let pending = originsWithWork()
            // Work waiting at an origin not known to be unreachable: that origin may answer.
            guard pending.allSatisfy({ unreachable[$0] != nil }) else { return .counts }
            var probes: [String: Probe] = [:]
            for o in pending { probes[o] = Probe(next: now + Self.probeDelay(afterFailures: 0)) }
            if probes[origin] == nil { probes[origin] = Probe(next: now + Self.probeDelay(afterFailures: 0)) }
            state = .offline(since: now, until: now + wait, probes: probes)
            let origins = Set(pending + [origin]).sorted().compactMap { o in unreachable[o].map { OfflineOrigin(origin: o, failure: $0.failure) } }
            let given = lostSinceAnswer.keys.sorted().flatMap { lostSinceAnswer[$0]?.map(\.job) ?? [] }
            lostSinceAnswer = [:]
            return .wentOffline(origins: origins, givenBack: given)
        case (.offline(let since, let until, var probes), .lost), (.offline(let since, let until, var probes), .unreachable):
            if case .unreachable(let failure) = reach { unreachable[origin] = (failure, now) }
            if var probe = probes[origin], probe.job == job {
                probe.failed += 1
                probe.next = now + Self.probeDelay(afterFailures: probe.failed)
                probe.job = nil
                probes[origin] = probe
                state = .offline(since: since, until: until, probes: probes)
            }
            return .givenBack
        }
    }

    /// What failed at `origin` before `started`: an answer to an attempt begun after it shows
    /// the origin reachable again.
    private mutating func forgetFailures(at origin: String, before started: Instant) {
        if !unreachable.isEmpty, let mark = unreachable[origin], mark.at <= started { unreachable[origin] = nil }
        guard !lostSinceAnswer.isEmpty, let lost = lostSinceAnswer[origin] else { return }
        let left = lost.filter { $0.at > started }
        lostSinceAnswer[origin] = left.isEmpty ? nil : left
    }

    func admission(at origin: String, now: Instant) -> Admission {
        guard case .offline(_, _, let probes) = state else { return .any }
        // An origin not probed yet gets a first probe at once.
        guard let probe = probes[origin] else { return .probe }
        if probe.job != nil { return .none }
        return now >= probe.next ? .probe : .notBefore(probe.next)
    }

    /// Job `job`'s attempt starts as `origin`'s probe (after ``admission(at:now:)`` said `.probe`).
    mutating func probeStarted(job: Int, at origin: String, now: Instant) {
        guard case .offline(let since, let until, var probes) = state else { return }
        probes[origin, default: Probe(next: now)].job = job
        state = .offline(since: since, until: until, probes: probes)
    }

    /// Job `job`'s probe never reached `origin` (its slice failed before the request).
    mutating func probeAbandoned(job: Int, at origin: String) {
        guard case .offline(let since, let until, var probes) = state, probes[origin]?.job == job else { return }
        probes[origin]?.job = nil
        state = .offline(since: since, until: until, probes: probes)
    }

    /// The next probe due among `origins` (those with work waiting), while offline.
    func nextProbe(among origins: [String]) -> Instant? {
        guard case .offline(_, _, let probes) = state else { return nil }
        return origins.compactMap { o in probes[o].flatMap { $0.job == nil ? $0.next : nil } }.min()
    }
}
