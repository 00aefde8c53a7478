import Dispatch
import JobrunCore
import JobrunManifest
import JobrunOutcome
import JobrunState
import Synchronization
import JobrunSystem

/// Runs due hooks off the run's thread, so that a slow hook never holds up a transfer: a
/// thread records each due hook in its root's outbox (before it may run, so that one due when
/// jobrun dies runs on the next apply), then the ``HookQueue`` decides when it starts, on a
/// thread of its own. Its start and end are posted to the run's ``RunEventMailbox``; a hook
/// that has run to its end (whatever its exit status) is marked delivered.
final class HookRunner: Sendable {
    struct Settings: Sendable {
        /// What passes from jobrun's environment (``HookEnvironment``).
        var inherited: [(name: String, value: String)]
        /// Between SIGTERM and SIGKILL.
        var grace: Duration
        /// Hooks at once.
        var limit: Int
    }

    /// The recording thread, started with the first due hook: a run without hooks starts none.
    private enum Recorder {
        case notStarted, running
        /// No thread could be started: due hooks are recorded (and, threads failing, run) on
        /// the thread that adds them.
        case unavailable
    }

    private struct State {
        var recorder = Recorder.notStarted
        /// Due, waiting to be recorded in the outbox.
        var due: [HookJob] = []
        var isRecording = false
        var queue: HookQueue<HookJob>
        /// The stop of the hooks started since the last ``resume()``.
        var stop = HookStop()
        var isStopped = false
        var isClosed = false
        /// How this run's resource hooks ended.
        var ended: [HookEnd] = []
    }

    private let state: Mutex<State>
    private let hasDue = DispatchSemaphore(value: 0)
    private let recorderEnded = DispatchSemaphore(value: 0)
    private let mailbox: RunEventMailbox
    private let states: MirrorStates?
    private let settings: Settings

    init(states: MirrorStates?, mailbox: RunEventMailbox, settings: Settings) {
        self.states = states
        self.mailbox = mailbox
        self.settings = settings
        state = Mutex(State(queue: HookQueue(limit: settings.limit)))
    }

    /// Queues `job` (from any thread).
    func add(_ job: HookJob) {
        let mustStart = state.withLock { state -> Bool in
            state.due.append(job)
            guard case .notStarted = state.recorder else { return false }
            state.recorder = .running
            return true
        }
        if mustStart, DetachedThread.start(name: "jobrun-hooks", { [self] in recordLoop() }) != nil {
            state.withLock { $0.recorder = .unavailable }
        }
        if case .unavailable = state.withLock({ $0.recorder }) {
            _ = recordDue()
        } else {
            hasDue.signal()
        }
    }

    /// Nothing due, recording or running.
    var isIdle: Bool {
        state.withLock { $0.due.isEmpty && !$0.isRecording && $0.queue.isIdle }
    }

    /// Stops the hooks: those running get SIGTERM (then SIGKILL), those waiting do not start.
    /// Either stays due in the outbox for the next apply.
    func stop() {
        let stop = state.withLock { state in
            state.isStopped = true
            _ = state.queue.removeWaiting()
            return state.stop
        }
        stop.stop()
    }

    /// Hooks due from now on run again (the run's end, after a stop).
    func resume() {
        state.withLock { state in
            state.isStopped = false
            state.stop = HookStop()
        }
    }

    /// How this run's resource hooks ended, in the order they ended.
    var ended: [HookEnd] { state.withLock { $0.ended } }

    /// Ends the recording thread, if one started, once it has recorded what is due.
    func close() {
        let isRunning = state.withLock { state -> Bool in
            state.isClosed = true
            if case .running = state.recorder { return true }
            return false
        }
        guard isRunning else { return }
        hasDue.signal()
        recorderEnded.wait()
    }

    private func recordLoop() {
        while true {
            hasDue.wait()
            if recordDue() {
                recorderEnded.signal()
                return
            }
        }
    }

    /// Records the hooks due so far, then starts those the queue lets start. Returns whether the
    /// runner is closed.
    private func recordDue() -> Bool {
        let (batch, isClosed) = state.withLock { state in
            defer { state.due = [] }
            state.isRecording = !state.due.isEmpty
            return (state.due, state.isClosed)
        }
        var recorded = batch
        for k in recorded.indices { record(&recorded[k]) }
        let starting = state.withLock { state -> [(HookJob, HookStop)] in
            state.isRecording = false
            guard !state.isStopped else { return [] }
            let stop = state.stop
            return recorded.flatMap { state.queue.add($0, key: $0.key) }.map { ($0, stop) }
        }
        mailbox.wake()
        for (job, stop) in starting { launch(job, stop: stop) }
        return isClosed
    }

    /// Writes a new due hook to its root's outbox.
    private func record(_ job: inout HookJob) {
        guard job.outboxID == nil, let root = job.root, let states else { return }
        job.outboxID = states.addHook(
            HookOutboxEntry(
                id: 0, runID: job.ref.eventRun, event: String(decoding: job.input.dropLast(), as: UTF8.self), argv: job.argv,
                timeoutMilliseconds: job.timeout.wholeMilliseconds, failurePolicy: job.policy.rawValue,
                createdAtMilliseconds: RunID.milliseconds()), root: root)
    }

    private func launch(_ job: HookJob, stop: HookStop) {
        // Without a thread of its own, it runs on this one: later hooks wait, none is lost.
        if DetachedThread.start(name: "jobrun-hook", { [self] in run(job, stop: stop) }) != nil { run(job, stop: stop) }
    }

    private func run(_ job: HookJob, stop: HookStop) {
        mailbox.post(.hookStarted(job.ref))
        var outcome: HookProcess.Outcome
        switch job.argv.first.map({ HookProgram.resolve($0, path: HookEnvironment.path(of: settings.inherited)) }) {
        case _ where stop.isStopped:
            // Stopped between its turn and its start: not started at all, it stays due.
            outcome = HookProcess.Outcome(signal: SIGTERM, wasCut: true)
        case .success(let executable)?:
            outcome = HookProcess.run(
                executable: executable, argv: job.argv, environment: HookEnvironment.items(inherited: settings.inherited, variables: job.variables),
                input: job.input, timeout: job.timeout, grace: settings.grace, stop: stop)
        case .failure(let error)?:
            outcome = HookProcess.Outcome(launchError: error.description)
        case nil:
            outcome = HookProcess.Outcome(launchError: "its outbox entry names no program")
        }
        let end = HookEnd(
            hook: job.ref, exitStatus: outcome.exitStatus, signal: outcome.signal, hasTimedOut: outcome.hasTimedOut,
            launchError: outcome.launchError, duration: outcome.duration, outputTail: outcome.outputTail, outputBytes: outcome.outputBytes,
            policy: job.policy, wasCut: outcome.wasCut)
        if !end.wasCut, let id = job.outboxID, let root = job.root {
            states?.markHookDelivered(id: id, root: root, atMilliseconds: RunID.milliseconds())
        }
        // Posted before the queue hears of the end: once the runner is idle, every end is posted.
        mailbox.post(.hookEnded(end))
        let next = state.withLock { state -> [(HookJob, HookStop)] in
            if job.isResourceHook { state.ended.append(end) }
            let stop = state.stop
            return state.queue.finished(key: job.key).map { ($0, stop) }
        }
        mailbox.wake()
        for (job, stop) in next { launch(job, stop: stop) }
    }
}
