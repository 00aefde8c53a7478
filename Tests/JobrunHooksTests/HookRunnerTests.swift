import Foundation
import JobrunCore
import JobrunManifest
import JobrunOutcome
import JobrunState
import JobrunTestSupport
import Testing
@testable import JobrunHooks

/// The runner and its outbox: a hook is recorded as due before it runs and marked delivered
/// once it has run; one cut short by a stop stays due; a redelivery runs the stored program with
/// `JOBRUN_REDELIVERY=1`.
@Suite struct HookRunnerTests {
    /// An output root with a store, the run's events, and a runner posting to them.
    static func setUp() throws -> (TemporaryDirectory, MirrorStates, RunEvents, HookRunner) {
        let root = try TemporaryDirectory(prefix: "jobrun-hooks")
        let states = MirrorStates(roots: [root.path], access: .create) { Issue.record("\($0)") }
        let events = RunEvents()
        let runner = HookRunner(
            states: states, mailbox: events.mailbox,
            settings: .init(inherited: [("PATH", "/usr/bin:/bin")], grace: .seconds(5), limit: 4))
        return (root, states, events, runner)
    }

    static func event(run: String = "01RUN", resource: String = "r") -> HookEvent {
        HookEvent(hook: "on_complete", event: "resource_done", run: run, dueAt: "t", resource: resource, folder: "/x", status: "complete", counts: [])
    }

    /// Posted events until the runner is idle.
    static func drain(_ runner: HookRunner, _ events: RunEvents) async -> [RunEvent] {
        let log = Log()
        events.add(log)
        _ = await Poll.until(timeout: .seconds(120)) {
            events.deliverPosted()
            return runner.isIdle
        }
        events.deliverPosted()
        return log.events
    }

    final class Log: RunObserver {
        var events: [RunEvent] = []
        func observe(_ event: RunEvent) { events.append(event) }
    }

    @Test func aHookIsDueInTheOutboxWhileItRunsAndDeliveredAfter() async throws {
        let (root, states, events, runner) = try Self.setUp()
        defer { root.remove() }
        defer { runner.close() }
        // A test that fails midway leaves no hook running.
        defer { runner.stop() }
        // The hook waits for the test's word, so that the test sees it due meanwhile.
        let go = root.path("go")
        runner.add(
            HookJob(
                event: Self.event(), argv: ["sh", "-c", "while [ ! -e '\(go)' ]; do sleep 0.05; done; echo ran; exit 3"], timeout: .seconds(600),
                policy: .fail, root: root.path))
        let due = await Poll.until(timeout: .seconds(120)) { states.undeliveredHooks(root: root.path, now: 0).count == 1 }
        try #require(due, "the hook was not recorded as due")
        let entry = try #require(states.undeliveredHooks(root: root.path, now: 0).first)
        #expect(entry.runID == "01RUN" && entry.timeoutMilliseconds == 600_000 && entry.failurePolicy == "fail")
        #expect(entry.argv.first == "sh")
        #expect(HookEvent.read(entry.event) == Self.event())
        #expect(!runner.isIdle)
        FileManager.default.createFile(atPath: go, contents: nil)

        let seen = await Self.drain(runner, events)
        #expect(runner.isIdle)
        #expect(states.undeliveredHooks(root: root.path, now: 0).isEmpty, "a hook that ran, even failing, is delivered")
        guard seen.count == 2, case .hookStarted(let started) = seen[0], case .hookEnded(let end) = seen[1] else {
            Issue.record("not a start and an end: \(seen)")
            return
        }
        #expect(started.resource == "r" && !started.isRedelivery)
        #expect(end.exitStatus == 3 && end.outputTail == "ran\n" && end.failsRun)
        #expect(runner.ended == [end])
    }

    /// A stop cuts the running hook short and keeps the waiting one from starting: both stay due.
    @Test func aStopLeavesTheHooksDue() async throws {
        let (root, states, events, runner) = try Self.setUp()
        defer { root.remove() }
        defer { runner.close() }
        // A test that fails midway leaves no hook running.
        defer { runner.stop() }
        let started = root.path("started")
        for _ in 0..<2 {
            runner.add(
                HookJob(event: Self.event(), argv: ["sh", "-c", "touch '\(started)'; exec sleep 600"], timeout: .seconds(600), policy: .warn, root: root.path))
        }
        try #require(await Poll.until(timeout: .seconds(120)) { FileManager.default.fileExists(atPath: started) })
        runner.stop()
        let seen = await Self.drain(runner, events)
        let ends = seen.compactMap { if case .hookEnded(let end) = $0 { end } else { nil } }
        #expect(ends.count == 1 && ends.first?.wasCut == true && ends.first?.failsRun == false, "\(seen)")
        #expect(states.undeliveredHooks(root: root.path, now: 0).count == 2)
    }

    /// The outbox entry of an earlier run runs as stored, told it is a redelivery, and is then
    /// delivered; its failure is only a warning.
    @Test func aRedeliveryRunsTheStoredHook() async throws {
        let (root, states, events, runner) = try Self.setUp()
        defer { root.remove() }
        defer { runner.close() }
        // A test that fails midway leaves no hook running.
        defer { runner.stop() }
        let stored = HookOutboxEntry(
            id: 0, runID: "01EARLIER", event: String(decoding: Self.event(run: "01EARLIER").line.dropLast(), as: UTF8.self),
            argv: ["sh", "-c", "echo \"$JOBRUN_REDELIVERY $JOBRUN_RUN_ID\"; grep -c '\"redelivery\":true'; exit 1"], timeoutMilliseconds: 30_000,
            failurePolicy: "fail", createdAtMilliseconds: 1)
        let id = try #require(states.addHook(stored, root: root.path))
        let entry = try #require(states.undeliveredHooks(root: root.path, now: 0).first)
        let job = HookDispatcher.redelivery(of: entry, root: root.path)
        #expect(job.outboxID == id && job.key == "r" && job.ref.isRedelivery && !job.isResourceHook)

        runner.add(job)
        let seen = await Self.drain(runner, events)
        let end = try #require(seen.compactMap { if case .hookEnded(let end) = $0 { end } else { nil } }.first)
        #expect(end.outputTail == "1 01EARLIER\n1\n")
        #expect(end.hasFailed && end.policy == .warn && !end.failsRun)
        #expect(states.undeliveredHooks(root: root.path, now: 0).isEmpty)
        #expect(runner.ended.isEmpty, "a redelivery is not part of this run's result")
    }
}
