import JobrunCore
import JobrunManifest
import JobrunOutcome
import Testing
@testable import JobrunRun

/// The scheduler as a state machine: jobs in, actions out, at made-up instants.
@Suite struct SchedulerTests {
    static let t0 = ContinuousClock.now
    static func at(_ seconds: Double) -> ContinuousClock.Instant { t0 + .milliseconds(Int64(seconds * 1000)) }

    static func lane(total: Int = 16, perHost: Int = 4, streams: Int = 32, priority: Int = 0) -> Scheduler.Lane {
        Scheduler.Lane(priority: priority, limits: ConcurrencyLimits(total: total, perHost: perHost, streams: streams))
    }

    /// Jobs numbered in plan order: job j has sequence j.
    static func enqueue(_ s: inout Scheduler, _ jobs: [SliceID], resource: Int, origin: String = "http://a") {
        for j in jobs { s.enqueue(j, sequence: j.index, resource: resource, origin: origin) { $0.index } }
    }

    /// Starts whatever may start at `now`, as the driver does (counting each start), and
    /// returns the actions in order.
    static func drain(
        _ s: inout Scheduler, now: ContinuousClock.Instant = t0, mayStart: @escaping (String) -> Bool = { _ in true }, sizes: [SliceID: ByteCount] = [:]
    ) -> [Scheduler.Action] {
        var actions: [Scheduler.Action] = []
        while let a = s.next(now: now, asking: Answers(mayStart: mayStart, sizes: sizes)) {
            if case .startAttempt(_, let origin) = a { s.started(at: origin, now: Self.t0) }
            actions.append(a)
        }
        return actions
    }

    static func started(_ actions: [Scheduler.Action]) -> [SliceID] {
        actions.compactMap { if case .startAttempt(let j, _) = $0 { j } else { nil } }
    }

    @Test func perHostAndTotalLimitsHold() {
        var s = Scheduler()
        s.describe(resource: 0, as: Self.lane(total: 5, perHost: 3))
        Self.enqueue(&s, Array(0..<10), resource: 0, origin: "http://a")
        Self.enqueue(&s, Array(10..<20), resource: 0, origin: "http://b")
        let first = Self.started(Self.drain(&s))
        #expect(first.count == 5 && s.running == 5)
        #expect(first.filter { $0 < 10 }.count <= 3 && first.filter { $0 >= 10 }.count <= 3)
        // A slot freed at an origin lets that origin start one more.
        s.ended(at: "http://a", now: Self.t0)
        let next = Self.started(Self.drain(&s))
        #expect(next.count == 1 && s.running == 5)
        #expect(s.waiting == 20 - 6)
    }

    /// At an origin that multiplexes, a slot is a connection's worth of streams: `per_host` and
    /// `total` count those, and a transfer that fits in a slot under way needs no new one.
    @Test func aMultiplexingOriginCountsConnectionsNotTransfers() {
        var s = Scheduler()
        s.describe(resource: 0, as: Self.lane(total: 3, perHost: 2, streams: 4))
        Self.enqueue(&s, Array(0..<20), resource: 0, origin: "https://a")
        Self.enqueue(&s, Array(20..<30), resource: 0, origin: "http://b")
        let first = Self.started(Self.drain(&s))
        #expect(first.count == 3 && s.slots == 3, "before any answer, a transfer is a slot")
        #expect(first.filter { $0 < 20 }.count == 2)
        // Its answer said HTTP/2: each of its 2 slots carries 4 streams.
        s.answered(at: "https://a", multiplexed: true, onNewConnection: true, now: Self.t0)
        #expect(s.multiplexingOrigins == 1)
        #expect(s.streams(at: "https://a") == 4 && s.slots == 2, "its two transfers fit in one connection")
        // The slot that freed goes to b in turn; a fills its connection's streams.
        let more = Self.started(Self.drain(&s))
        #expect(more == [21, 2, 3] && s.slots == 3 && s.running == 6, "\(more)")
        // A stream ending frees room in its connection, not a slot.
        s.ended(at: "https://a", now: Self.t0)
        #expect(s.slots == 3)
        #expect(Self.started(Self.drain(&s)) == [4])
        // Once a connection's four streams end, its slot is free: a takes it (b has its two).
        for _ in 0..<4 { s.ended(at: "https://a", now: Self.t0) }
        #expect(s.slots == 2 && s.running == 2)
        #expect(Self.started(Self.drain(&s)) == [5, 6, 7, 8] && s.slots == 3)
        // An answer over HTTP/1.1 on a connection a had before says nothing new; on one it
        // opened (a new front end), each transfer is a slot again, so a is over its two and
        // starts nothing until its transfers end.
        s.answered(at: "http://b", multiplexed: false, onNewConnection: true, now: Self.t0)
        #expect(s.multiplexingOrigins == 1 && s.streams(at: "http://b") == 1)
        s.answered(at: "https://a", multiplexed: false, onNewConnection: false, now: Self.t0)
        #expect(s.multiplexingOrigins == 1 && s.streams(at: "https://a") == 4)
        s.answered(at: "https://a", multiplexed: false, onNewConnection: true, now: Self.t0)
        #expect(s.multiplexingOrigins == 0 && s.streams(at: "https://a") == 1 && s.slots == 6 && s.running == 6)
        for _ in 0..<3 { s.ended(at: "https://a", now: Self.t0) }
        #expect(Self.started(Self.drain(&s)).isEmpty, "a still has one transfer per slot of its two, and the run its 3")
        s.ended(at: "https://a", now: Self.t0)
        #expect(Self.started(Self.drain(&s)) == [9])
    }

    /// Whatever the slots allow (256 connections of 1,000 streams), a run has at most
    /// `mostInFlight` transfers under way: each may hold a file and a receive buffer.
    @Test func aRunKeepsToItsMostInFlight() {
        var s = Scheduler()
        var lane = Self.lane(total: 1024, perHost: 256)
        lane.limits.streams = 1000
        s.describe(resource: 0, as: lane)
        Self.enqueue(&s, Array(0..<3000), resource: 0, origin: "https://a")
        _ = Self.drain(&s)
        s.answered(at: "https://a", multiplexed: true, onNewConnection: true, now: Self.t0)
        _ = Self.drain(&s)
        #expect(s.running == Scheduler.mostInFlight && s.slots == 2)
        s.ended(at: "https://a", now: Self.t0)
        #expect(Self.started(Self.drain(&s)).count == 1)
    }

    /// With `adaptive`, an origin's requests in flight are its limiter's: they start at a few,
    /// grow while answers come at the path's latency, halve on an overload; the
    /// slots still bound them, and an origin of a fixed lane has no limiter.
    @Test func anAdaptiveOriginKeepsToItsLimiter() {
        var s = Scheduler()
        var lane = Self.lane(total: 100, perHost: 8, streams: 10)
        lane.limits.adaptive = true
        s.describe(resource: 0, as: lane)
        s.describe(resource: 1, as: Self.lane(total: 100, perHost: 2))
        Self.enqueue(&s, Array(0..<100), resource: 0, origin: "https://a")
        Self.enqueue(&s, Array(100..<110), resource: 1, origin: "http://b")
        #expect(s.adaptiveLimit(at: "https://a") == 4 && s.adaptiveLimit(at: "http://b") == nil)
        #expect(Self.started(Self.drain(&s)).filter { $0 < 100 }.count == 4, "a few to start with, though per_host allows 8")
        // An answer over HTTP/2 makes a's slots connections of 10 streams: the limiter may grow to 80.
        s.answered(at: "https://a", multiplexed: true, onNewConnection: true, now: Self.t0)
        var started = 0
        for i in 0..<8 {
            s.answered(at: "https://a", latency: .milliseconds(40), sent: RequestSent(at: Self.t0, inFlight: 1), now: Self.at(Double(i) / 100))
            s.ended(at: "https://a", now: Self.t0)
            started += Self.started(Self.drain(&s)).count
        }
        #expect(s.adaptiveLimit(at: "https://a") == 12)
        #expect(started == 16 && s.running == 12 + 2, "as many in flight as the limit, though the slots allow 80")
        s.overloaded(at: "https://a", RequestSent(at: Self.t0, inFlight: 13), .refused, now: Self.at(1))
        #expect(s.adaptiveLimit(at: "https://a") == 6)
        // Its path: 4 at the first start, one more per answer, half at the overload; b's is its slots'.
        let usage = Dictionary(uniqueKeysWithValues: s.usage().map { ($0.origin, $0) })
        #expect(usage["https://a"]?.usage.limitPath.map(\.limit) == [4, 5, 6, 7, 8, 9, 10, 11, 12, 6])
        #expect(usage["https://a"]?.adaptive == true && usage["https://a"]?.streams == 10 && usage["https://a"]?.usage.requests == 20)
        #expect(usage["http://b"]?.usage.limitPath.map(\.limit) == [2] && usage["http://b"]?.adaptive == false)
        #expect(s.inFlight().map(\.origin) == ["https://a", "http://b"] && s.inFlight().first?.limit == 6)
        s.ended(at: "https://a", now: Self.t0)
        #expect(Self.started(Self.drain(&s)).isEmpty, "11 in flight over a limit of 6")
    }

    /// Two resources at one origin: its slots carry the fewer streams of the two, whichever
    /// answered last, and an adaptive limit's ceiling follows its slots both ways.
    @Test func resourcesSharingAnOriginShareItsSlots() {
        var s = Scheduler()
        var wide = Self.lane(total: 100, perHost: 2, streams: 32)
        wide.limits.adaptive = true
        s.describe(resource: 0, as: wide)
        s.describe(resource: 1, as: Self.lane(total: 100, perHost: 2, streams: 8))
        Self.enqueue(&s, Array(0..<50), resource: 0, origin: "https://a")
        #expect(s.limiter(at: "https://a")?.ceiling == 2)
        s.answered(at: "https://a", multiplexed: true, onNewConnection: true, now: Self.t0)
        #expect(s.streams(at: "https://a") == 32 && s.limiter(at: "https://a")?.ceiling == 64)
        Self.enqueue(&s, Array(50..<100), resource: 1, origin: "https://a")
        #expect(s.streams(at: "https://a") == 8 && s.limiter(at: "https://a")?.ceiling == 16, "the narrower resource narrows the slots")
        s.answered(at: "https://a", multiplexed: true, onNewConnection: false, now: Self.t0)
        #expect(s.streams(at: "https://a") == 8)
        // A new connection over HTTP/1.1, then HTTP/2 again: the ceiling goes down and back up.
        s.answered(at: "https://a", multiplexed: false, onNewConnection: true, now: Self.t0)
        #expect(s.streams(at: "https://a") == 1 && s.limiter(at: "https://a")?.ceiling == 2 && s.multiplexingOrigins == 0)
        s.answered(at: "https://a", multiplexed: true, onNewConnection: false, now: Self.t0)
        #expect(s.streams(at: "https://a") == 8 && s.limiter(at: "https://a")?.ceiling == 16 && s.multiplexingOrigins == 1)
        // Its slots hold both resources' transfers: 2 connections of 8.
        let started = Self.started(Self.drain(&s))
        #expect(s.slots == 1 && started.count == 4, "the limiter's 4 to start with (the HTTP/1.1 ceiling's cut undone), in one connection")
        #expect(Set(started.map { $0 < 50 }).count == 2, "the two resources take turns")
    }

    /// A transfer that takes its turn over the engines goes to the one with the fewest under way
    /// at its origin, so that neither needs more connections there than its share of the slots;
    /// of engines tied there, to the one with the fewest in all.
    @Test func turnsGoToTheEngineWithTheFewestAtTheOrigin() {
        var s = Scheduler()
        #expect(s.engine(fewestAt: "http://a", among: 2) == 0 && s.engine(fewestAt: "http://a", among: 1) == 0)
        s.started(at: "http://a", engine: 0, now: Self.t0)
        #expect(s.engine(fewestAt: "http://a", among: 2) == 1)
        s.started(at: "http://a", engine: 1, now: Self.t0)
        s.started(at: "http://a", engine: 1, now: Self.t0)
        s.started(at: "http://b", engine: 0, now: Self.t0)
        #expect(s.engine(fewestAt: "http://a", among: 2) == 0 && s.engine(fewestAt: "http://b", among: 2) == 1, "by origin")
        s.ended(at: "http://a", engine: 1, now: Self.t0)
        s.ended(at: "http://a", engine: 1, now: Self.t0)
        #expect(s.engine(fewestAt: "http://a", among: 2) == 1 && s.running == 2)
        // One large transfer at each of several origins: they spread over the engines.
        var u = Scheduler()
        u.started(at: "http://small", engine: 0, now: Self.t0)
        var placed: [Int] = []
        for host in ["x", "y", "z", "w"] {
            let engine = u.engine(fewestAt: "http://\(host)", among: 2)
            u.started(at: "http://\(host)", engine: engine, now: Self.t0)
            placed.append(engine)
        }
        #expect(placed == [1, 0, 1, 0])
        // However transfers end, choosing the fewest keeps each engine within half of per_host.
        var t = Scheduler()
        var onEngine = [0, 0]
        var peak = 0
        for step in 0..<1_000 {
            if t.running == 16 || (step % 3 == 0 && t.running > 0) {
                let engine = step % 5 == 0 || onEngine[1] == 0 ? 0 : 1
                guard onEngine[engine] > 0 else { continue }
                t.ended(at: "http://a", engine: engine, now: Self.t0)
                onEngine[engine] -= 1
            } else {
                let engine = t.engine(fewestAt: "http://a", among: 2)
                t.started(at: "http://a", engine: engine, now: Self.t0)
                onEngine[engine] += 1
                peak = max(peak, onEngine[engine])
            }
        }
        #expect(peak == 8)
    }

    /// Within a resource, plan order; a retried job goes back in its place.
    @Test func planOrderWithinAResource() {
        var s = Scheduler()
        s.describe(resource: 0, as: Self.lane(total: 1, perHost: 1))
        Self.enqueue(&s, [5, 2, 9], resource: 0)
        var order: [SliceID] = []
        for _ in 0..<3 {
            order += Self.started(Self.drain(&s))
            s.ended(at: "http://a", now: Self.t0)
        }
        #expect(order == [2, 5, 9])
    }

    /// The test: a second independent resource starts within the first few dispatches,
    /// not after the first resource's thousand slices; equal priorities take turns.
    @Test func resourcesOfEqualPriorityTakeTurns() {
        var s = Scheduler()
        s.describe(resource: 0, as: Self.lane(total: 1, perHost: 1))
        s.describe(resource: 1, as: Self.lane(total: 1, perHost: 1))
        Self.enqueue(&s, Array(0..<1000), resource: 0)
        Self.enqueue(&s, Array(1000..<1003), resource: 1)
        var order: [SliceID] = []
        for _ in 0..<8 {
            order += Self.started(Self.drain(&s))
            s.ended(at: "http://a", now: Self.t0)
        }
        #expect(order == [0, 1000, 1, 1001, 2, 1002, 3, 4])
    }

    @Test func higherPriorityFirstThenTurns() {
        var s = Scheduler()
        s.describe(resource: 0, as: Self.lane(total: 1, perHost: 1, priority: 0))
        s.describe(resource: 1, as: Self.lane(total: 1, perHost: 1, priority: 5))
        s.describe(resource: 2, as: Self.lane(total: 1, perHost: 1, priority: -1))
        Self.enqueue(&s, [0, 1], resource: 0)
        Self.enqueue(&s, [10, 11], resource: 1, origin: "http://b")
        Self.enqueue(&s, [20], resource: 2)
        var order: [SliceID] = []
        for _ in 0..<5 {
            let started = Self.started(Self.drain(&s))
            order += started
            for j in started { s.ended(at: j >= 10 && j < 20 ? "http://b" : "http://a", now: Self.t0) }
        }
        #expect(order == [10, 11, 0, 1, 20])
    }

    /// Origins take turns too, when the total limit is what binds.
    @Test func originsTakeTurns() {
        var s = Scheduler()
        s.describe(resource: 0, as: Self.lane(total: 1, perHost: 1))
        s.describe(resource: 1, as: Self.lane(total: 1, perHost: 1))
        Self.enqueue(&s, [0, 1, 2], resource: 0, origin: "http://a")
        Self.enqueue(&s, [10, 11, 12], resource: 1, origin: "http://b")
        var order: [SliceID] = []
        for _ in 0..<6 {
            let started = Self.started(Self.drain(&s))
            order += started
            for j in started { s.ended(at: j < 10 ? "http://a" : "http://b", now: Self.t0) }
        }
        #expect(Set(order) == [0, 1, 2, 10, 11, 12])
        for k in stride(from: 0, to: 6, by: 2) { #expect((order[k] < 10) != (order[k + 1] < 10), "\(order)") }
    }

    /// Origins that tie (same priority, never served) start in plan order, whatever order a
    /// dictionary keeps them in.
    @Test func tiesGoToPlanOrder() {
        for _ in 0..<20 {
            var s = Scheduler()
            s.describe(resource: 0, as: Self.lane(total: 1, perHost: 1))
            for (k, origin) in (0..<8).map({ "http://o\($0)" }).enumerated().reversed() {
                Self.enqueue(&s, [SliceID(k * 10)], resource: 0, origin: origin)
            }
            #expect(Self.started(Self.drain(&s)) == [0])
        }
    }

    @Test func aCoolingOriginOrOneItsBreakerHoldsStartsNothing() {
        var s = Scheduler()
        s.describe(resource: 0, as: Self.lane())
        Self.enqueue(&s, [0, 1], resource: 0, origin: "http://a")
        Self.enqueue(&s, [2], resource: 0, origin: "http://b")
        s.coolDown("http://a", until: Self.at(10))
        #expect(Self.started(Self.drain(&s, mayStart: { $0 != "http://b" })).isEmpty)
        #expect(s.nextCooldownEnd(after: Self.at(1)) == Self.at(10))
        #expect(Self.started(Self.drain(&s, now: Self.at(10), mayStart: { $0 != "http://b" })) == [0, 1])
        #expect(s.nextCooldownEnd(after: Self.at(1)) == nil)  // nothing waits there any more
        #expect(Self.started(Self.drain(&s, now: Self.at(10))) == [2])
    }

    @Test func removingAnOriginsJobs() {
        var s = Scheduler()
        s.describe(resource: 0, as: Self.lane())
        s.describe(resource: 1, as: Self.lane())
        Self.enqueue(&s, [0, 1], resource: 0, origin: "http://a")
        Self.enqueue(&s, [5], resource: 1, origin: "http://a")
        Self.enqueue(&s, [7], resource: 1, origin: "http://b")
        #expect(Set(s.removeAll(at: "http://a")) == [0, 1, 5])
        #expect(!s.hasWaiting(at: "http://a") && s.hasWaiting(at: "http://b") && s.waiting == 1)
        #expect(s.removeAll() == [7] && s.waiting == 0)
        #expect(s.next(now: Self.t0, asking: Answers()) == nil)
    }

    /// The rest of the run's answers, made up.
    struct Answers: StartQuestions {
        var mayStart: (String) -> Bool = { _ in true }
        var sizes: [SliceID: ByteCount] = [:]
        var continuing: Set<SliceID> = []
        func mayStart(at origin: String) -> Bool { mayStart(origin) }
        func expectedBytes(_ job: SliceID) -> ByteCount? { sizes[job] }
        func continuesAttempt(_ job: SliceID) -> Bool { continuing.contains(job) }
    }

    struct FakeGate: DispatchGate {
        var decisions: [SliceID: GateDecision]
        func decide(_ candidate: Candidate, now: ContinuousClock.Instant) -> GateDecision { decisions[candidate.job] ?? .admit }
    }

    /// A gate's answer becomes the action; a held job takes no slot.
    @Test func gatesHoldJobsBack() {
        var s = Scheduler()
        s.describe(resource: 0, as: Self.lane(total: 2, perHost: 2))
        s.gates = [FakeGate(decisions: [0: .deferred("no time", .deadline), 1: .later(Self.at(5)), 4: .deferred("metered", nil)])]
        Self.enqueue(&s, [0, 1, 2, 3, 4], resource: 0)
        let actions = Self.drain(&s)
        #expect(
            actions == [
                .notStarted(job: 0, reason: "no time", stop: .deadline), .park(job: 1, until: Self.at(5)), .startAttempt(job: 2, origin: "http://a"),
                .startAttempt(job: 3, origin: "http://a"),
            ])
        #expect(s.running == 2 && s.waiting == 1)
        s.ended(at: "http://a", now: Self.t0)
        #expect(Self.drain(&s) == [.notStarted(job: 4, reason: "metered", stop: nil)])
    }

    /// A job whose start continues an attempt (a redirect's next request) is not put to the
    /// gates again: they admitted the attempt; it still waits for a slot.
    @Test func aContinuedAttemptIsNotAskedAgain() {
        var s = Scheduler()
        s.describe(resource: 0, as: Self.lane(total: 1, perHost: 1))
        s.gates = [FakeGate(decisions: [0: .deferred("no time", .deadline), 1: .later(Self.at(5)), 2: .deferred("metered", nil)])]
        Self.enqueue(&s, [0, 1, 2], resource: 0)
        var actions: [Scheduler.Action] = []
        while let a = s.next(now: Self.t0, asking: Answers(continuing: [0, 1])) {
            if case .startAttempt(_, let origin) = a { s.started(at: origin, now: Self.t0) }
            actions.append(a)
        }
        #expect(actions == [.startAttempt(job: 0, origin: "http://a")])
        s.ended(at: "http://a", now: Self.t0)
        #expect(
            s.next(now: Self.t0, asking: Answers(continuing: [0, 1]))
                == .startAttempt(job: 1, origin: "http://a"))
        s.ended(at: "http://a", now: Self.t0)
        #expect(
            s.next(now: Self.t0, asking: Answers(continuing: [0, 1]))
                == .notStarted(job: 2, reason: "metered", stop: nil))
    }

    /// The deadline gate with a fake clock: without a measured rate or a size a slice starts
    /// while time is left; with both, only when it would finish (with the margin) in time.
    @Test func theDeadlineGate() {
        let gate = DeadlineGate(cutoff: Self.at(60))
        var rate = Throughput()
        rate.add(bytes: ByteCount(1 << 20), duration: .seconds(1))  // 1 MiB/s
        rate.add(bytes: 1_000, duration: .seconds(10))  // too small to say anything
        #expect(rate.bytesPerSecond == Double(1 << 20) && rate.samples == 1)
        func decide(_ bytes: Int64?, _ throughput: Throughput?, at t: Double) -> GateDecision {
            gate.decide(Candidate(job: 0, resource: 0, origin: "http://a", expectedBytes: bytes.map { ByteCount($0) }, throughput: throughput), now: Self.at(t))
        }
        #expect(decide(nil, rate, at: 59) == .admit)
        #expect(decide(100 << 20, nil, at: 59) == .admit)
        #expect(decide(30 << 20, rate, at: 0) == .admit)  // 30 s × 1.25 + 1 s < 60 s
        #expect(decide(30 << 20, rate, at: 30) != .admit)  // 38.5 s > 30 s
        if case .deferred(let why, let stop) = decide(30 << 20, rate, at: 30) {
            #expect(stop == .deadline)
            #expect(why == "not started: it needs about 39 s at 1.0 MiB/s (http://a), and 30 s are left before the deadline")
        }
        #expect(decide(nil, nil, at: 60) == .deferred("not started: the deadline has come", .deadline))
    }

    @Test func throughputIsSmoothed() {
        var t = Throughput()
        t.add(bytes: ByteCount(1 << 20), duration: .seconds(1))
        t.add(bytes: ByteCount(3 << 20), duration: .seconds(1))
        #expect(t.bytesPerSecond == Double(2 << 20))  // the second sample weighs a half
        for _ in 0..<50 { t.add(bytes: ByteCount(4 << 20), duration: .seconds(1)) }
        #expect(abs((t.bytesPerSecond ?? 0) - Double(4 << 20)) < 1024)  // recent ones win
    }
}
