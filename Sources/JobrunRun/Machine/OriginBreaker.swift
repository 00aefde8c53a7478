import JobrunManifest
import JobrunOutcome

/// A circuit breaker for one origin: after `retries.host_failures` attempts in a row have failed
/// there (across more than one slice, with no success in between), the origin gets no new work
/// but one probe at a time on the backoff schedule; once `retries.attempts` probes have failed too,
/// the origin's remaining slices fail without being requested. Pure: the driver reports
/// attempt ends and asks for admission, with the time passed in.
///
/// | state   | event                          | next state                       | action     |
/// |---------|--------------------------------|----------------------------------|------------|
/// | closed  | success                        | closed, count 0                  | none       |
/// | closed  | failure, count < N or 1 slice  | closed, count + 1                | none       |
/// | closed  | failure, count = N, 2+ slices  | open, first probe after backoff  | tripped    |
/// | open    | success (probe or in flight)   | closed, count 0                  | recovered  |
/// | open    | probe failed, probes left      | open, next probe after backoff   | none       |
/// | open    | probe failed, none left        | failed                           | gaveUp     |
/// | open    | failure of an older transfer   | open                             | none       |
/// | failed  | anything                       | failed                           | none       |
struct OriginBreaker {
    enum State: Equatable {
        /// Taking work. `failures` attempts in a row failed; `lastSlice` was the last to fail;
        /// `acrossSlices`: those failures were of more than one slice.
        case closed(failures: Int, lastSlice: SliceID?, acrossSlices: Bool)
        /// Tripped: `probe` is the job whose attempt is the probe under way; the next one starts
        /// no earlier than `nextProbe`; `probesFailed` of the allowed probes have failed.
        case open(probe: SliceID?, nextProbe: ContinuousClock.Instant, probesFailed: Int)
        /// The probes are spent: nothing more is requested from the origin.
        case failed
    }

    enum Action: Equatable {
        case none
        /// Stopped taking new work.
        case tripped
        /// Answered again: takes work as before.
        case recovered
        /// The remaining slices fail without a request.
        case gaveUp
    }

    /// What the origin may be sent now.
    enum Admission: Equatable {
        /// As much as the limits allow.
        case any
        /// One request, the probe.
        case probe
        /// Nothing before this instant (a probe then).
        case notBefore(ContinuousClock.Instant)
        /// Nothing: a probe is under way.
        case none
        /// Nothing ever: its slices fail.
        case failed
    }

    private(set) var state = State.closed(failures: 0, lastSlice: nil, acrossSlices: false)
    /// The last failure seen at this origin (what its unrequested slices report).
    private(set) var lastFailure: AttemptFailure?
    /// Attempts in a row that have failed (reported while tripping and giving up).
    private(set) var failuresInARow = 0

    var isFailed: Bool { state == .failed }

    /// Whether the origin takes work as usual.
    var isClosed: Bool {
        if case .closed = state { true } else { false }
    }

    /// The last failure as origin lines and unrequested slices quote it.
    var lastFailureText: String {
        lastFailure.map { "\($0.typeName): \($0.message)" } ?? "no answer"
    }

    func admission(now: ContinuousClock.Instant) -> Admission {
        switch state {
        case .closed: return .any
        case .failed: return .failed
        case .open(let probe, let next, _):
            if probe != nil { return .none }
            return now >= next ? .probe : .notBefore(next)
        }
    }

    /// Job `job`'s attempt starts as the probe (after `admission` said `.probe`).
    mutating func probeStarted(job: SliceID) {
        if case .open(nil, let next, let failed) = state { state = .open(probe: job, nextProbe: next, probesFailed: failed) }
    }

    /// Job `job`'s probe never reached the origin (its slice failed before the request).
    mutating func probeAbandoned(job: SliceID) {
        if case .open(job, let next, let failed) = state { state = .open(probe: nil, nextProbe: next, probesFailed: failed) }
    }

    /// An attempt of job `job` at this origin ended: `failure` when it counts against the origin
    /// (``AttemptFailure/countsAgainstOrigin``), `nil` when the origin answered.
    mutating func attemptEnded(job: SliceID, failure: AttemptFailure?, now: ContinuousClock.Instant, policy: RetryPolicy, random: Double) -> Action {
        if let failure {
            lastFailure = failure
            failuresInARow += 1
        }
        switch state {
        case .failed:
            return .none
        case .closed(let failures, let lastSlice, let across):
            guard failure != nil else {
                failuresInARow = 0
                state = .closed(failures: 0, lastSlice: nil, acrossSlices: false)
                return .none
            }
            let count = failures + 1
            let spans = across || (lastSlice != nil && lastSlice != job)
            if policy.hostFailures > 0, count >= policy.hostFailures, spans {
                state = .open(probe: nil, nextProbe: now + policy.backoff.delay(afterAttempt: 1, random: random), probesFailed: 0)
                return .tripped
            }
            state = .closed(failures: count, lastSlice: job, acrossSlices: spans)
            return .none
        case .open(let probe, _, let probesFailed):
            guard failure != nil else {
                failuresInARow = 0
                state = .closed(failures: 0, lastSlice: nil, acrossSlices: false)
                return .recovered
            }
            guard probe == job else { return .none }
            let failed = probesFailed + 1
            if failed >= policy.attempts {
                state = .failed
                return .gaveUp
            }
            state = .open(probe: nil, nextProbe: now + policy.backoff.delay(afterAttempt: failed + 1, random: random), probesFailed: failed)
            return .none
        }
    }
}

extension AttemptFailure {
    /// The origin, not the slice, is at fault: it cannot be reached or answers with a server
    /// error (5xx, 408, 429). A 404, a digest mismatch or a local disk error says nothing of its
    /// health.
    var countsAgainstOrigin: Bool {
        switch kind {
        case .connect, .resolve, .timeout, .network, .truncated, .tls: true
        case .http: status.map { $0 >= 500 || $0 == 408 || $0 == 429 } ?? false
        default: false
        }
    }
}
