import JobrunCore
import JobrunManifest
import JobrunOutcome
import JobrunPlan
import JobrunTestSupport
import Testing
@testable import JobrunRun

/// The run's decisions, asked of `RunMachine` at made-up instants (each plan is made from a
/// manifest in a temporary folder): no network, no threads. One test per family: retries and their waits, a 429's cooldown, a 416 to a whole
/// partial, redirects and their hosts' limits, an origin given up on, the offline pause, the
/// deadline, a full disk twice, dependencies, priorities and turns, and the run's end.
@Suite struct RunMachineTests {
    typealias Instant = ContinuousClock.Instant
    static let t0 = ContinuousClock.now
    static func at(_ seconds: Int) -> Instant { t0 + .seconds(seconds) }
    static let failure500 = AttemptFailure(kind: .http, status: 500, message: "HTTP 500", isTransient: true)

    /// The machine of a run of `resources` (manifest lines), its runnable resources started.
    static func machine(_ resources: String, deadline: Instant? = nil, offlineWait: Duration = .seconds(600)) throws -> RunMachine {
        let dir = try TemporaryDirectory()
        let yaml = """
            version: 1
            defaults: {output: out, retries: {attempts: 3, host_failures: 2, backoff: {initial: 1s, max: 8s}}}
            resources:
            \(resources)

            """
        var options = ManifestLoader.Options()
        options.environment = [:]
        options.currentDirectory = dir.path
        let loaded = ManifestLoader.load(paths: [try dir.write(file: "m.yaml", contents: yaml)], options: options)
        let manifest = try #require(loaded.manifest, "\(loaded.diagnostics)")
        var machine = RunMachine(plan: Planner.plan(for: manifest), epoch: t0, offlineWait: offlineWait, deadline: deadline)
        activate(&machine)
        return machine
    }

    /// Starts the resources their dependencies allow, as the driver does; returns the decisions.
    @discardableResult
    static func activate(_ machine: inout RunMachine) -> [Int: ResourceGraph.Decision] {
        var decisions: [Int: ResourceGraph.Decision] = [:]
        machine.graph.rescan()
        while let (r, decision) = machine.nextResourceDecision() { decisions[r] = decision }
        return decisions
    }

    /// A resource `id` at `host` with slices `names` (and `extra` settings).
    static func resource(_ id: String, host: String = "a.test", _ names: [String], extra: String = "") -> String {
        """
          - id: \(id)
            base_url: http://\(host)/
        \(extra.isEmpty ? "" : "    \(extra)\n")    slices:
        \(names.map { "      - {path: \($0), size: 1000}" }.joined(separator: "\n"))
        """
    }

    /// Takes the machine's actions at `now` as the driver would, until it has none: the jobs
    /// started (each counted at its origin), and the others' actions.
    static func drain(_ machine: inout RunMachine, now: Instant) -> (started: [SliceID], other: [Scheduler.Action]) {
        var started: [SliceID] = []
        var other: [Scheduler.Action] = []
        while let action = machine.nextAction(now: now) {
            if case .startAttempt(let j, let origin) = action {
                // The driver's start: as the origin's probe when its breaker or the pause asks.
                if machine.health.dependsOnTime { _ = machine.health.starting(job: j, at: origin, now: now) }
                machine.scheduler.started(at: origin, now: Self.t0)
                started.append(j)
            } else {
                other.append(action)
            }
        }
        return (started, other)
    }

    /// Job `j`'s attempt ends in `failure` at `now`: its slot is freed (as the driver frees it),
    /// and the machine decides whether and when it is retried.
    static func fails(_ machine: inout RunMachine, _ j: SliceID, _ failure: AttemptFailure, attempts: Int, now: Instant) -> AttemptReview.Retry {
        machine.scheduler.ended(at: machine.origin(j), now: Self.t0)
        while machine.book.jobs[j].attempts < attempts { machine.book.attemptBegan(j) }
        return machine.attemptFailed(j, failure, now: now, random: 0)
    }

    @Test func aRetryWaitsItsBackoffThenStartsAgain() throws {
        var m = try Self.machine(Self.resource("r", ["f"]))
        #expect(Self.drain(&m, now: Self.at(0)).started == [0])
        #expect(Self.fails(&m, 0, Self.failure500, attempts: 1, now: Self.at(0)) == .retry(at: Self.at(1), delay: .seconds(1), coolsDownOrigin: false))
        #expect(m.nextDeadline(now: Self.at(0)) == Self.at(1) && !m.isFinished)
        m.releaseDue(at: Self.at(0))
        #expect(Self.drain(&m, now: Self.at(0)).started.isEmpty, "not before its backoff")
        m.releaseDue(at: Self.at(1))
        #expect(Self.drain(&m, now: Self.at(1)).started == [0])
        // Its third attempt was its last.
        #expect(Self.fails(&m, 0, Self.failure500, attempts: 3, now: Self.at(2)) == .fail)
    }

    @Test func a429CoolsDownItsOriginAndNoOther() throws {
        var m = try Self.machine(
            Self.resource("a", ["1", "2"], extra: "concurrency: {per_host: 1}") + "\n"
                + Self.resource("b", host: "b.test", ["3", "4"], extra: "concurrency: {per_host: 1}"))
        #expect(Self.drain(&m, now: Self.at(0)).started == [0, 2])
        var refusal = AttemptFailure(kind: .http, status: 429, message: "HTTP 429", isTransient: true, coolsDownHost: true)
        let judged = m.review.judge(
            0, resource: 0, AttemptReport(verdict: .refused(refusal), retryAfter: "5"), expectedSize: 1000, backoff: Backoff(), wallClock: 0)
        guard case .failed(let failure, _, _) = judged else {
            Issue.record("a 429 is a failure")
            return
        }
        refusal.retryAfter = .seconds(5)
        #expect(failure == refusal)
        #expect(Self.fails(&m, 0, failure, attempts: 1, now: Self.at(0)) == .retry(at: Self.at(5), delay: .seconds(5), coolsDownOrigin: true))
        m.scheduler.ended(at: m.origin(2), now: Self.t0)
        #expect(Self.drain(&m, now: Self.at(1)).started == [3], "a.test cools down; b.test goes on")
        #expect(m.nextDeadline(now: Self.at(1)) == Self.at(5))
        m.releaseDue(at: Self.at(5))
        #expect(Self.drain(&m, now: Self.at(5)).started == [0], "per_host 1: the retry, then the next")
    }

    /// A 429 from a redirect's target cools the target down, not the slice's own origin; the
    /// retry starts again at the slice's own URL.
    @Test func a429FromARedirectTargetCoolsTheTarget() throws {
        var m = try Self.machine(Self.resource("a", ["1", "2"]) + "\n" + Self.resource("b", host: "b.test", ["3"]))
        #expect(Self.drain(&m, now: Self.at(0)).started == [0, 2, 1])
        m.scheduler.ended(at: m.origin(0), now: Self.t0)
        m.followRedirect(0, to: "http://b.test/elsewhere", headers: [])
        m.scheduler.ended(at: m.origin(2), now: Self.t0)
        #expect(Self.drain(&m, now: Self.at(0)).started == [0])
        let busy = AttemptFailure(kind: .http, status: 429, message: "HTTP 429", isTransient: true, retryAfter: .seconds(5), coolsDownHost: true)
        #expect(Self.fails(&m, 0, busy, attempts: 1, now: Self.at(0)) == .retry(at: Self.at(5), delay: .seconds(5), coolsDownOrigin: true))
        #expect(m.origin(0) == m.ownOrigin(0) && m.origin(0) == "http://a.test")
        #expect(m.scheduler.nextCooldownEnd(after: Self.at(0)) == nil, "nothing waits at the cooled target yet")
        m.enqueue(2)
        #expect(m.scheduler.nextCooldownEnd(after: Self.at(0)) == Self.at(5), "b.test cools down")
        m.scheduler.ended(at: m.origin(1), now: Self.t0)
        m.delay(1, until: Self.at(1))
        m.releaseDue(at: Self.at(1))
        #expect(Self.drain(&m, now: Self.at(1)).started == [1], "a.test takes requests")
    }

    @Test func a416ToAWholePartialVerifiesItAndOtherwiseRestarts() throws {
        var m = try Self.machine(Self.resource("r", ["f"]))
        let refused = ResponseVerdict.refused(AttemptFailure(kind: .http, status: 416, message: "HTTP 416", isTransient: false))
        #expect(
            m.review.judge(0, resource: 0, AttemptReport(verdict: refused, resumeOffset: 1000), expectedSize: 1000, backoff: Backoff(), wallClock: 0)
                == .completePartial)
        guard
            case .failed(let failure, true, true) = m.review.judge(
                0, resource: 0, AttemptReport(verdict: refused, resumeOffset: 400), expectedSize: 1000, backoff: Backoff(), wallClock: 0)
        else {
            Issue.record("a shorter partial is discarded and restarted")
            return
        }
        #expect(failure.kind == .rangeMismatch)
    }

    /// A redirect's next request waits for a slot at its target, within the slice's own
    /// resource's per-host limit there, and is not held to the gates again.
    @Test func aRedirectWaitsForASlotAtItsTarget() throws {
        var m = try Self.machine(Self.resource("a", ["1", "2", "3"], extra: "concurrency: {per_host: 1}"), deadline: Self.at(100))
        #expect(Self.drain(&m, now: Self.at(0)).started == [0])
        guard case .follow(let url, let headers) = m.review.redirect(0, location: "http://b.test/1", ownURL: m.address(0).url, headers: []) else {
            Issue.record("followed")
            return
        }
        m.scheduler.ended(at: m.origin(0), now: Self.t0)
        #expect(m.admitsHop(0, to: "http://b.test", now: Self.at(0)) == .follow)
        m.review.follow(0, to: url, headers: headers)
        m.book.ready(0)
        m.enqueue(0)
        #expect(m.origin(0) == "http://b.test" && m.ownOrigin(0) != m.origin(0))
        // The hop at b.test and the next slice at a.test, one each.
        #expect(Self.drain(&m, now: Self.at(0)).started.sorted() == [0, 1])
        // A second hop to a.test waits for job 1's slot there, even past the deadline's cutoff.
        m.scheduler.ended(at: m.origin(0), now: Self.t0)
        m.review.follow(0, to: "http://a.test/elsewhere", headers: [])
        m.book.ready(0)
        m.enqueue(0)
        #expect(Self.drain(&m, now: Self.at(0)).started.isEmpty)
        m.scheduler.ended(at: m.origin(1), now: Self.t0)
        #expect(Self.drain(&m, now: Self.at(100)).started == [0], "a hop continues an admitted attempt")
        m.scheduler.ended(at: m.origin(0), now: Self.t0)
        guard case .notStarted(2, _, .deadline)? = Self.drain(&m, now: Self.at(100)).other.first else {
            Issue.record("job 2 is not started at the deadline")
            return
        }
    }

    /// An origin whose failures trip its breaker takes only its probe when due; when the probes
    /// fail it is given up on: what waits for it is taken off its queue, and a redirect there
    /// fails without a request. Another origin goes on.
    @Test func anOriginGivenUpOnStartsNothing() throws {
        var m = try Self.machine(Self.resource("a", ["1", "2", "3", "4"]) + "\n" + Self.resource("b", host: "b.test", ["5"]))
        #expect(Self.drain(&m, now: Self.at(0)).started.sorted() == [0, 1, 2, 3, 4])
        let a = m.origin(0)
        let refused = AttemptReport(verdict: .refused(Self.failure500))
        for j: SliceID in [0, 1] {
            m.scheduler.ended(at: a, now: Self.t0)
            _ = m.attemptEndedAtOrigin(j, refused, now: Self.at(0), random: 0)
            m.delay(j, until: Self.at(1))
        }
        #expect(!m.health.mayStart(at: a, now: Self.at(0)) && m.health.mayStart(at: m.origin(4), now: Self.at(0)))
        m.releaseDue(at: Self.at(1))
        #expect(m.nextDeadline(now: Self.at(0)) == Self.at(1), "the probe is due after one backoff step")
        let probe = Self.drain(&m, now: Self.at(1)).started
        #expect(probe.count == 1, "one probe")
        // Each failed probe waits longer; at the limit the origin is given up on.
        var news: RunMachine.OriginNews?
        var now = 1
        var job = probe[0]
        for _ in 0..<10 {
            m.scheduler.ended(at: a, now: Self.t0)
            news = m.attemptEndedAtOrigin(job, refused, now: Self.at(now), random: 0)
            if case .gaveUp = news { break }
            m.delay(job, until: Self.at(now + 1))
            now += 8
            m.releaseDue(at: Self.at(now))
            guard let next = Self.drain(&m, now: Self.at(now)).started.first else { break }
            job = next
        }
        guard case .gaveUp(let origin, let breaker) = news else {
            Issue.record("the origin is given up on")
            return
        }
        #expect(origin == a && m.health.isFailed(a))
        #expect(m.givenUpOriginWithWork()?.origin == a, "slices still wait for it")
        let waiting = m.takeUnrequested(at: a)
        #expect(!waiting.isEmpty && waiting.allSatisfy { m.ownOrigin($0) == a })
        #expect(m.givenUpOriginWithWork() == nil)
        #expect(Self.drain(&m, now: Self.at(now)).started.isEmpty)
        #expect(m.admitsHop(4, to: a, now: Self.at(now)) == .fails(RunMachine.unrequested(a, breaker)))
    }

    /// When every origin with work is unreachable the run goes offline: the attempts that
    /// failed are given back and their slices wait, ready, for one probe per origin; an answer
    /// ends the pause; past the wait the run stops.
    @Test func offlineGivesAttemptsBackAndResumesWithTheNetwork() throws {
        var m = try Self.machine(Self.resource("a", ["1", "2"]), offlineWait: .seconds(60))
        #expect(Self.drain(&m, now: Self.at(0)).started == [0, 1])
        m.book.attemptBegan(0)
        m.book.attemptBegan(1)
        let unreachable = AttemptReport(verdict: nil, transport: .connect("refused"), hasHead: false)
        m.scheduler.ended(at: m.origin(0), now: Self.t0)
        guard case .wentOffline(let origins, let wait) = m.attemptReached(0, unreachable, startedAt: Self.at(0), now: Self.at(1)) else {
            Issue.record("the only origin is unreachable: offline")
            return
        }
        #expect(origins.map(\.origin) == [m.origin(0)] && wait == .seconds(60))
        #expect(m.book.jobs[0].attempts == 0 && m.health.offline.isOffline, "the attempt is given back")
        m.scheduler.ended(at: m.origin(1), now: Self.t0)
        #expect(m.attemptReached(1, unreachable, startedAt: Self.at(0), now: Self.at(1)) == .givenBack)
        #expect(m.book.jobs[1].attempts == 0)
        #expect(Self.drain(&m, now: Self.at(1)).started.isEmpty, "the first probe waits one step")
        let probeAt = Self.at(1) + OfflinePause.probeDelay(afterFailures: 0)
        #expect(m.nextDeadline(now: Self.at(1)) == probeAt)
        #expect(Self.drain(&m, now: probeAt).started.count == 1, "one probe per origin")
        #expect(!m.isOfflineTooLong(now: Self.at(60)) && m.isOfflineTooLong(now: Self.at(61)))
        let answered = AttemptReport(verdict: .body, written: 1000, declaredEnd: 1000)
        #expect(m.attemptReached(0, answered, startedAt: Self.at(2), now: Self.at(3)) == .cameOnline(origin: m.origin(0), after: .seconds(2)))
        #expect(!m.health.offline.isOffline && !m.isOfflineTooLong(now: Self.at(61)))
    }

    /// The deadline is a time the machine wakes for; a slice that would not finish before it at
    /// its origin's rate is not started, and from the cutoff on nothing is.
    @Test func theDeadlineCutsStartsOff() throws {
        var m = try Self.machine(Self.resource("a", ["1", "2", "3"]), deadline: Self.at(10))
        #expect(m.nextDeadline(now: Self.at(0)) == Self.at(10))
        #expect(Self.drain(&m, now: Self.at(0)).started == [0, 1, 2])
        var late = try Self.machine(Self.resource("a", ["1"]), deadline: Self.at(10))
        // 100 bytes a second: 1,000 bytes need about 13.5 s with the margin.
        late.scheduler.observe(late.origin(0), bytes: ByteCount(100 << 10), duration: .seconds(1024))
        guard case .notStarted(0, let reason, .deadline)? = late.nextAction(now: Self.at(0)) else {
            Issue.record("not started: no time")
            return
        }
        #expect(reason.contains("before the deadline"))
        var cut = try Self.machine(Self.resource("a", ["1"]), deadline: Self.at(10))
        guard case .notStarted(0, _, .deadline)? = cut.nextAction(now: Self.at(10)) else {
            Issue.record("nothing starts at the cutoff")
            return
        }
        #expect(!cut.isStopping && cut.phase.stopReason == .deadline, "held back for the rest of the run: it ends early, after what is under way")
        #expect(cut.phase.request(.deadline) == .stop(.deadline) && cut.nextDeadline(now: Self.at(10)) == nil)
    }

    /// An answer over HTTP/2 tells the scheduler its origin multiplexes: a slot there then
    /// carries the resource's `streams`.
    @Test func anAnswerOverHTTP2MakesItsOriginMultiplex() throws {
        var m = try Self.machine(Self.resource("a", ["1", "2", "3", "4", "5", "6"], extra: "concurrency: {per_host: 1, streams: 4}"))
        #expect(Self.drain(&m, now: Self.at(0)).started == [0], "one slot, one transfer, before any answer")
        m.transferEnded(
            0, AttemptReport(verdict: .body, written: 100, declaredEnd: 100, multiplexed: true), sent: RequestSent(at: Self.at(0), inFlight: 1), bytes: 100,
            duration: .seconds(1), now: Self.at(1))
        #expect(m.scheduler.streams(at: m.origin(0)) == 4)
        #expect(Self.drain(&m, now: Self.at(1)).started == [1, 2, 3, 4], "the one slot is a connection of four streams")
        // An answer over HTTP/1.1 on a new connection makes each transfer a slot again; one with
        // no answer says nothing.
        m.transferEnded(
            1, AttemptReport(verdict: nil, transport: .network("reset"), hasHead: false), sent: RequestSent(at: Self.at(0), inFlight: 1), bytes: 0,
            duration: .seconds(1), now: Self.at(2))
        #expect(m.scheduler.streams(at: m.origin(0)) == 4)
        m.transferEnded(
            2, AttemptReport(verdict: .body, written: 100, declaredEnd: 100, multiplexed: false), sent: RequestSent(at: Self.at(0), inFlight: 1), bytes: 100,
            duration: .seconds(1), now: Self.at(2))
        #expect(m.scheduler.streams(at: m.origin(0)) == 4, "over a connection it had: nothing new")
        m.transferEnded(
            3, AttemptReport(verdict: .body, written: 100, declaredEnd: 100, multiplexed: false, connections: 1),
            sent: RequestSent(at: Self.at(0), inFlight: 1), bytes: 100, duration: .seconds(1),
            now: Self.at(2))
        #expect(m.scheduler.streams(at: m.origin(0)) == 1)
        #expect(Self.drain(&m, now: Self.at(2)).started.isEmpty, "a transfer under way over a slot of one")
    }

    /// With `adaptive`, an answer's latency feeds its origin's limit and a 503 halves it.
    @Test func answersFeedAnAdaptiveLimit() throws {
        var m = try Self.machine(Self.resource("a", (1...40).map(String.init), extra: "concurrency: {per_host: 16, adaptive: true}"))
        let origin = m.origin(0)
        #expect(Self.drain(&m, now: Self.at(0)).started == [0, 1, 2, 3])
        for j: SliceID in [0, 1] {
            m.transferEnded(
                j, AttemptReport(verdict: .body, written: 1000, declaredEnd: 1000, latency: .milliseconds(40)), sent: RequestSent(at: Self.at(0), inFlight: 1),
                bytes: 1000, duration: .milliseconds(40),
                now: Self.at(0))
        }
        #expect(m.scheduler.adaptiveLimit(at: origin) == 6)
        let busy = AttemptFailure(kind: .http, status: 503, message: "HTTP 503", isTransient: true, coolsDownHost: true)
        m.transferEnded(
            2, AttemptReport(verdict: .refused(busy), latency: .milliseconds(1)), sent: RequestSent(at: Self.at(0), inFlight: 3), bytes: 0,
            duration: .milliseconds(40), now: Self.at(1))
        #expect(m.scheduler.adaptiveLimit(at: origin) == 3)
        #expect(m.scheduler.limiter(at: origin)?.minLatency == .milliseconds(40), "a refusal's latency is not the path's")
    }

    /// Without `adaptive`, a 503 halves what its origin has in flight and answers bring it back
    /// to `per_host`, where the back-off ends; a broken connection changes nothing (the network
    /// may have gone), nor do refusals of requests sent before the halving.
    @Test func aFixedLimitGivesWayToRefusalsOnly() throws {
        var m = try Self.machine(Self.resource("a", (1...40).map(String.init), extra: "concurrency: {per_host: 8}"))
        let origin = m.origin(0)
        #expect(Self.drain(&m, now: Self.at(0)).started == Array(0..<8))
        m.transferEnded(
            0, AttemptReport(verdict: nil, transport: .network("reset"), hasHead: false), sent: RequestSent(at: Self.at(0), inFlight: 1), bytes: 0,
            duration: .seconds(1), now: Self.at(1))
        #expect(m.scheduler.backoff(at: origin) == nil && !m.scheduler.adapts)
        let busy = AttemptFailure(kind: .http, status: 503, message: "HTTP 503", isTransient: true, coolsDownHost: true)
        // The last three sent, refused: sent while 6, 7 and 8 were in flight.
        for (j, at): (SliceID, Int) in [(5, 2), (6, 3), (7, 4)] {
            let sent = RequestSent(at: Self.at(0), inFlight: j.index + 1)
            m.transferEnded(j, AttemptReport(verdict: .refused(busy)), sent: sent, bytes: 0, duration: .seconds(1), now: Self.at(at))
        }
        let backoff = m.scheduler.backoff(at: origin)
        #expect(
            backoff?.limit == 3 && backoff?.capacity.requests == 5 && backoff?.capacity.isFirm == false,
            "7 in flight at the first refusal, halved once for the three")
        #expect(Self.drain(&m, now: Self.at(5)).started.isEmpty, "4 still in flight")
        m.transferEnded(
            4, AttemptReport(verdict: nil, transport: .network("reset"), hasHead: false), sent: RequestSent(at: Self.at(0), inFlight: 5), bytes: 0,
            duration: .seconds(1), now: Self.at(6))
        #expect(m.scheduler.backoff(at: origin) == backoff, "a reset after the refusals changes nothing either")
        for j: SliceID in 1...3 {
            m.transferEnded(
                j, AttemptReport(verdict: .body, written: 10, declaredEnd: 10), sent: RequestSent(at: Self.at(0), inFlight: 1), bytes: 10,
                duration: .seconds(1), now: Self.at(10))
        }
        #expect(m.scheduler.backoff(at: origin)?.limit == 5 && m.scheduler.running == 0, "one more per answer up to what the origin took, then slower")
        #expect(Self.drain(&m, now: Self.at(10)).started.count == 5)
        let later = 10 + Int(OverloadBackoff.capacityHold / .milliseconds(1))
        for j: SliceID in 8...10 {
            m.transferEnded(
                j, AttemptReport(verdict: .body, written: 10, declaredEnd: 10), sent: RequestSent(at: Self.at(10), inFlight: 1), bytes: 10,
                duration: .seconds(1), now: Self.at(later))
        }
        #expect(m.scheduler.backoff(at: origin) == nil, "back at per_host: the back-off is over")
        #expect(Self.drain(&m, now: Self.at(later)).started.count == 6)
        let path = m.scheduler.usage().first?.usage.limitPath.map(\.limit)
        #expect(path == [8, 3, 4, 5, 6, 7, 8], "\(String(describing: path))")
    }

    /// A full disk makes every later body be checked before more starts; a second one stops all
    /// starts.
    @Test func aSecondFullDiskStartsNothing() throws {
        var m = try Self.machine(Self.resource("a", ["1"]))
        #expect(!m.phase.hasFilledDisk)
        #expect(m.bodyWaitsForStarts(hasBody: true) && !m.bodyWaitsForStarts(hasBody: false), "a body waits until the freed slots are used")
        #expect(m.checksBodyAside(isInMemory: true) && !m.checksBodyAside(isInMemory: false), "a memory body is checked on the disk worker's thread")
        let full = WriteFailure(path: "out/1", operation: "write", errno: 28)
        #expect(
            m.review.judge(0, resource: 0, AttemptReport(verdict: .body, writeFailure: full), expectedSize: 1000, backoff: Backoff(), wallClock: 0)
                == .writeFailed(full))
        m.phase.diskFilled()
        #expect(m.phase.hasFilledDisk && !m.phase.startsNothing)
        #expect(!m.bodyWaitsForStarts(hasBody: true) && !m.checksBodyAside(isInMemory: true), "after a full disk, every body is checked here at once")
        m.phase.diskFilled()
        #expect(m.phase.startsNothing && !m.isStopping, "the run ends what is under way")
    }

    /// A resource waits for its dependencies; when one fails, its dependents are skipped in
    /// turn, and a deferred one defers them.
    @Test func aDependencyFailureSkipsAndADeferralDefers() throws {
        var m = try Self.machine(
            [
                Self.resource("base", ["1"]), Self.resource("mid", ["2"], extra: "depends_on: [base]"),
                Self.resource("top", ["3"], extra: "depends_on: [mid]"),
                Self.resource("side", ["4"], extra: "depends_on: [base2]"), Self.resource("base2", ["5"]),
            ].joined(separator: "\n"))
        let ids = m.plan.entries.map(\.resource.id)
        func index(_ id: String) throws -> Int { try #require(ids.firstIndex(of: id)) }
        #expect(Self.drain(&m, now: Self.at(0)).started.count == 2, "base and base2 start; the others wait")
        for j in m.book.jobsOfResource[try index("base")] where m.book.done(j) { m.graph.sliceDone(of: m.book.jobs[j].resource) }
        m.graph.ended(try index("base"), as: .failed)
        let decisions = Self.activate(&m)
        guard case .skip(let reason)? = decisions[try index("mid")], case .skip? = decisions[try index("top")] else {
            Issue.record("mid and top are skipped: \(decisions)")
            return
        }
        #expect(reason.contains("base"))
        for j in m.book.jobsOfResource[try index("base2")] where m.book.done(j) { m.graph.sliceDone(of: m.book.jobs[j].resource) }
        m.graph.ended(try index("base2"), as: .deferred)
        guard case .defer? = Self.activate(&m)[try index("side")] else {
            Issue.record("side is deferred with its dependency")
            return
        }
    }

    /// Slices of a higher-priority resource start first; resources of equal priority take turns
    /// by origin.
    @Test func priorityFirstThenTurns() throws {
        var m = try Self.machine(
            [
                Self.resource("low1", host: "l1.test", ["1", "2"]), Self.resource("low2", host: "l2.test", ["3", "4"]),
                Self.resource("high", host: "h.test", ["5", "6"], extra: "priority: 10"),
            ].joined(separator: "\n"))
        let order = Self.drain(&m, now: Self.at(0)).started.map { m.plan.entries[m.book.jobs[$0].resource].resource.id }
        #expect(order == ["high", "high", "low1", "low2", "low1", "low2"])
    }

    /// Independent resources at one origin, one transfer at a time: the second takes turns with
    /// the first rather than waiting behind all of it, unless the first has a lower priority.
    @Test(arguments: [0, 10])
    func independentResourcesShareTheQueue(priorityOfShort: Int) throws {
        var m = try Self.machine(
            Self.resource("long", (0..<20).map { "a\($0)" }, extra: "concurrency: {total: 1, per_host: 1}") + "\n"
                + Self.resource("short", ["b0", "b1"], extra: "concurrency: {total: 1, per_host: 1}\n    priority: \(priorityOfShort)"))
        var order: [String] = []
        for second in 0..<22 {
            let started = Self.drain(&m, now: Self.at(second)).started
            #expect(started.count == 1)
            for j in started {
                order.append(m.plan.entries[m.book.jobs[j].resource].resource.slices[m.book.jobs[j].slice].path)
                m.scheduler.ended(at: m.origin(j), now: Self.t0)
            }
        }
        #expect(order.count == 22)
        #expect(Array(order.prefix(4)) == (priorityOfShort == 0 ? ["a0", "b0", "a1", "b1"] : ["b0", "b1", "a0", "a1"]), "\(order)")
    }

    /// An attempt must end within its resource's timeout from the slice's first start, and none
    /// starts after it; a first attempt of a slice planned as a fetch looks for no partial file,
    /// a later one does, and a redirect's next request is no new attempt.
    @Test func anAttemptsStartAndItsResourceTimeout() throws {
        var m = try Self.machine(Self.resource("a", ["1"], extra: "timeouts: {resource: 30s}"), deadline: Self.at(100))
        #expect(!m.deadlinePassed(now: Self.at(99)) && m.deadlinePassed(now: Self.at(100)))
        guard let first = m.attemptDeadline(0, now: Self.at(1)) else {
            Issue.record("the first attempt starts")
            return
        }
        #expect(first.deadline == Self.at(31) && first.isFirstStart)
        #expect(!m.attemptStarts(0, isFirstStart: first.isFirstStart) && m.book.jobs[0].attempts == 1)
        let again = m.attemptDeadline(0, now: Self.at(20))
        let second = try #require(again)
        #expect(second.deadline == Self.at(31) && !second.isFirstStart, "the timeout counts from the first start")
        #expect(m.attemptStarts(0, isFirstStart: second.isFirstStart) && m.book.jobs[0].attempts == 2)
        m.review.follow(0, to: "http://b.test/1", headers: [])
        #expect(m.attemptStarts(0, isFirstStart: false) && m.book.jobs[0].attempts == 2, "a redirect's next request")
        let late = m.attemptDeadline(0, now: Self.at(31))
        #expect(late == nil)
    }

    /// The run has finished when every slice is done and nothing is under way; a stopped run
    /// leaves the slices of resources that never started waiting.
    @Test func theRunFinishesWhenEverySliceIsSettled() throws {
        var m = try Self.machine(Self.resource("a", ["1"]) + "\n" + Self.resource("b", ["2"], extra: "depends_on: [a]"))
        #expect(!m.isFinished)
        _ = m.scheduler.removeAll()
        let ended = m.book.done(0)
        #expect(ended && !m.isFinished, "b's slice waits")
        #expect(m.phase.request(.signal(15)) == .stop(.signal(15)))
        #expect(m.isFinished)
    }
}
