import JobrunManifest
import JobrunOutcome

/// Whether the run is offline, and what that does to its attempts (docs/apply.md, "Offline"):
/// when connection-level failures (a name that does not resolve, a host unreachable, a
/// connection refused or timed out) have hit every origin with work under way or waiting, the
/// network is taken to be gone. Nothing starts then but one probe per origin (a slice of its own,
/// on a backoff from 1 s to 30 s); every attempt that failed at the transport level since its
/// origin last answered is given back, as is every such failure while offline, so that the retry
/// budget is spent only while an origin is reachable. The first answer from any origin ends it.
/// Pure: the driver reports attempt ends and asks for admission, with the time passed in.
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
/// | offline | answered, sent since it went offline            | online, origin reachable      | `.cameOnline` |
/// | offline | answered, sent before                           | offline                       | `.counts`     |
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
        /// Nothing is known of the network (cancelled, a local failure before the response, a
        /// protocol error).
        case unknown

        /// The attempt failed at the transport level: unreachable or lost.
        var isTransportFailure: Bool {
            switch self {
            case .unreachable, .lost: true
            case .answered, .unknown: false
            }
        }
    }

    enum Action: Equatable {
        /// The attempt counts as usual.
        case counts
        /// The attempt is given back: the job starts again when the network is back.
        case givenBack
        /// The network is gone: the run pauses. The attempt is given back, and so is every
        /// earlier one listed (by job, once per failure) that failed since its origin last
        /// answered; `origins` are the unreachable ones with their last failures, sorted.
        case wentOffline(origins: [OfflineOrigin], givenBack: [SliceID])
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
        var job: SliceID?
    }

    /// A pause: since `since`; the run stops at `until` if no origin has answered.
    struct Period: Equatable {
        var since: Instant
        var until: Instant
        var probes: [String: Probe]
    }

    /// How long the run waits offline before it stops; zero: no pause.
    let wait: Duration
    /// The run's cutoff, past which no pause lasts.
    let deadline: Instant?
    /// The pause under way; `nil` online.
    private(set) var period: Period? {
        didSet { isOffline = period != nil }
    }
    /// `period != nil`, kept by its `didSet`: every slice's start and end asks, and a look at an
    /// optional `Period` (which holds clock instants) goes through the type's metadata.
    private(set) var isOffline = false
    /// Origins whose last attempt could not connect, with that failure and when (cleared by an
    /// answer to a later attempt).
    private var unreachable: [String: (failure: AttemptFailure, at: Instant)] = [:]
    /// Per origin, the jobs whose attempts failed there at the transport level since it last
    /// answered (a job once per such attempt), and when: given back if the run goes offline.
    private var lostSinceAnswer: [String: [(job: SliceID, at: Instant)]] = [:]
    /// Time spent offline in periods that have ended.
    private(set) var offlineTotal: Duration = .zero

    /// `wait` is not zero: the pause is on.
    let isEnabled: Bool

    init(wait: Duration, deadline: Instant? = nil) {
        self.wait = wait
        self.deadline = deadline
        isEnabled = wait > .zero
    }

    /// Some origin is remembered as unreachable, or with failures to give back.
    var hasRecords: Bool { !unreachable.isEmpty || !lostSinceAnswer.isEmpty }

    /// When the run stops for being offline, if it is.
    var stopsAt: Instant? { period?.until }

    /// How long the current period offline has lasted, while offline.
    func currentPeriod(now: Instant) -> Duration? {
        period.map { now - $0.since }
    }

    /// Time offline so far, the current period included.
    func offlineDuration(now: Instant) -> Duration {
        offlineTotal + (currentPeriod(now: now) ?? .zero)
    }

    /// The probes' schedule: from 1 s, doubling, to 30 s.
    static let probeBackoff: Backoff = {
        var backoff = Backoff()
        backoff.maximum = .seconds(30)
        return backoff
    }()

    /// The probe delay after `failed` failed probes: 1 s, 2 s, 4 s, 8 s, 16 s, then 30 s (the
    /// backoff's ceiling each time, without jitter: there is one probe per origin to spread).
    static func probeDelay(afterFailures failed: Int) -> Duration {
        probeBackoff.delay(afterAttempt: failed + 1, random: 1)
    }

    /// Job `job`'s attempt at `origin`, started at `started`, ended so. `originsWithWork` are the
    /// origins with slices waiting, delayed or under way (asked only when the answer can change
    /// the state).
    mutating func attemptEnded(
        job: SliceID, at origin: String, reach: Reach, started: Instant, now: Instant, originsWithWork: () -> [String]
    ) -> Action {
        guard isEnabled else { return .counts }
        switch reach {
        case .unknown:
            return .counts
        case .answered:
            forgetFailures(at: origin, before: started)
            // Online, or an answer to a request sent before the network went: no news of it now.
            guard let current = period, started >= current.since else { return .counts }
            lostSinceAnswer = [:]
            offlineTotal += now - current.since
            period = nil
            return .cameOnline(origin: origin, after: now - current.since)
        case .lost, .unreachable:
            if case .unreachable(let failure) = reach { unreachable[origin] = (failure, now) }
            guard var current = period else { return failedOnline(job: job, at: origin, reach: reach, now: now, originsWithWork: originsWithWork) }
            if var probe = current.probes[origin], probe.job == job {
                probe.failed += 1
                probe.next = now + Self.probeDelay(afterFailures: probe.failed)
                probe.job = nil
                current.probes[origin] = probe
                period = current
            }
            return .givenBack
        }
    }

    /// A transport failure while online: remembered, and the run goes offline when every
    /// origin with work is unreachable.
    private mutating func failedOnline(job: SliceID, at origin: String, reach: Reach, now: Instant, originsWithWork: () -> [String]) -> Action {
        lostSinceAnswer[origin, default: []].append((job, now))
        guard case .unreachable = reach else { return .counts }
        let pending = originsWithWork()
        // Work waiting at an origin not known to be unreachable: that origin may answer.
        guard pending.allSatisfy({ unreachable[$0] != nil }) else { return .counts }
        var probes: [String: Probe] = [:]
        for o in pending + [origin] { probes[o] = Probe(next: now + Self.probeDelay(afterFailures: 0)) }
        period = Period(since: now, until: deadline.map { min($0, now + wait) } ?? now + wait, probes: probes)
        let origins = Set(pending + [origin]).sorted().compactMap { o in unreachable[o].map { OfflineOrigin(origin: o, failure: $0.failure) } }
        let given = lostSinceAnswer.keys.sorted().flatMap { lostSinceAnswer[$0]?.map(\.job) ?? [] }
        lostSinceAnswer = [:]
        return .wentOffline(origins: origins, givenBack: given)
    }

    /// What failed at `origin` before `started`: an answer to an attempt begun after it shows
    /// the origin reachable again.
    private mutating func forgetFailures(at origin: String, before started: Instant) {
        if !unreachable.isEmpty, let mark = unreachable[origin], mark.at <= started { unreachable[origin] = nil }
        guard !lostSinceAnswer.isEmpty, let lost = lostSinceAnswer[origin] else { return }
        let left = lost.filter { $0.at > started }
        lostSinceAnswer[origin] = left.isEmpty ? nil : left
    }

    /// Whether `origin` may be sent a request now: online, or its probe is due.
    func admits(_ origin: String, now: Instant) -> Bool {
        switch admission(at: origin, now: now) {
        case .any, .probe: true
        case .notBefore, .none: false
        }
    }

    func admission(at origin: String, now: Instant) -> Admission {
        guard let probes = period?.probes else { return .any }
        // An origin not probed yet gets a first probe at once.
        guard let probe = probes[origin] else { return .probe }
        if probe.job != nil { return .none }
        return now >= probe.next ? .probe : .notBefore(probe.next)
    }

    /// Job `job`'s attempt starts as `origin`'s probe (after ``admission(at:now:)`` said `.probe`).
    mutating func probeStarted(job: SliceID, at origin: String, now: Instant) {
        guard period != nil else { return }
        period?.probes[origin, default: Probe(next: now)].job = job
    }

    /// Job `job`'s probe never reached `origin` (its slice failed before the request).
    mutating func probeAbandoned(job: SliceID, at origin: String) {
        guard period?.probes[origin]?.job == job else { return }
        period?.probes[origin]?.job = nil
    }

    /// The next probe due among `origins` (those with work waiting), while offline.
    func nextProbe(among origins: [String]) -> Instant? {
        guard let probes = period?.probes else { return nil }
        return origins.compactMap { o in probes[o].flatMap { $0.job == nil ? $0.next : nil } }.min()
    }
}
