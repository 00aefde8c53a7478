import JobrunCore
public import JobrunManifest
public import JobrunOutcome
public import JobrunState
import JobrunSystem

/// The completion hooks of one `apply` (docs/policy.md, "Hooks"): an observer of the run's
/// events that makes a resource's `on_complete`, `on_failure` or `on_deferred` hook due when the
/// resource ends,
/// and the run's `--on-run-end` hook at its end; a ``HookRunner`` runs them off the run's
/// thread. Hooks due in an earlier run that ended before they had run (the outboxes of this
/// run's output roots) are redelivered first.
///
/// Which end makes which hook due:
///
/// | event | hook | status |
/// |---|---|---|
/// | `resourceCompleted`, no slice deferred | `on_complete` | `complete` |
/// | `resourceFailed`: slices failed, or the folder could not be synced | `on_failure` | `failed` |
/// | `resourceSkipped`: a dependency did not complete | `on_failure` | `skipped` |
/// | `resourceDeferred`: the network policy held its work back | `on_deferred` | `deferred` |
/// | `resourceFailed`: the run stopped before it finished | none (the run that finishes it tells) | |
public final class HookDispatcher: RunObserver {
    public struct Options: Sendable {
        /// `--on-run-end`: the program and its arguments (a path with a slash is relative to
        /// the current directory).
        public var runEnd: [String]?
        public var runEndTimeout: Duration = HookSettings.defaultTimeout
        /// jobrun's environment, of which a hook gets only a few variables.
        public var environment: [String: String] = ProcessInfo.processInfo.environment
        /// What relative paths (folders, programs) are made absolute against, so that a
        /// redelivery from another directory finds them.
        public var currentDirectory: String = FileManager.default.currentDirectoryPath
        /// Between SIGTERM and SIGKILL to a hook's process group.
        public var grace: Duration = .seconds(5)
        /// Hooks running at once, one per resource at most.
        public var limit = 4

        public init() {}
    }

    /// A resource's hooks, and where its files and outbox are.
    private struct Target {
        var settings: HookSettings
        var folder: String
        var root: String
    }

    private let runner: HookRunner
    private let targets: [String: Target]
    private let runID: String
    private let options: Options
    /// The outbox of the run's end hook: the first output root of the run.
    private let runEndRoot: String?
    /// Stops the hooks from a signal handler.
    public let stopper: HookStopper

    /// Hooks for `resources` of run `runID`, outboxes in `states`; queues the hooks due in
    /// those roots' outboxes at once.
    public init(resources: [Resource], runID: String, states: MirrorStates?, mailbox: RunEventMailbox, options: Options = Options()) {
        self.runID = runID
        self.options = options
        var targets: [String: Target] = [:]
        for r in resources where !r.settings.hooks.commands.isEmpty {
            targets[r.id] = Target(settings: r.settings.hooks, folder: Self.absolute(r.folderPath, in: options.currentDirectory), root: r.outputRoot)
        }
        self.targets = targets
        runEndRoot = resources.first?.outputRoot
        runner = HookRunner(
            states: states, mailbox: mailbox,
            settings: HookRunner.Settings(inherited: HookEnvironment.inherited(from: options.environment), grace: options.grace, limit: options.limit))
        stopper = HookStopper(runner: runner)
        guard let states else { return }
        let now = RunID.milliseconds()
        // A root named two ways (relative and absolute, through a link) is one outbox: its
        // hooks are redelivered once.
        var seen = Set<[UInt64]>()
        for root in Set(resources.map(\.outputRoot)).sorted() {
            var st = stat()
            if stat(root, &st) == 0 {
                let identity = FileIdentity(st)
                if !seen.insert([identity.device, identity.inode]).inserted { continue }
            }
            for entry in states.undeliveredHooks(root: root, now: now) { runner.add(Self.redelivery(of: entry, root: root)) }
        }
    }

    public func observe(_ event: RunEvent) {
        switch event {
        case .resourceCompleted(let id, let counts) where counts.deferred == 0:
            due(.onComplete, of: id, event: "resource_done", status: "complete", counts: counts)
        case .resourceFailed(let id, let counts, let cause):
            let (code, reason): (String, String)
            switch cause {
            case .slicesFailed(let count, let total): (code, reason) = ("slices_failed", "\(count) of \(total) slices failed")
            case .syncFailed(let message): (code, reason) = ("sync_failed", "cannot sync the output folder: \(message)")
            case .unfinished: return
            }
            due(.onFailure, of: id, event: "resource_failed", status: "failed", cause: code, reason: reason, counts: counts)
        case .resourceSkipped(let id, let reason):
            due(.onFailure, of: id, event: "resource_skipped", status: "skipped", cause: "dependency_failed", reason: reason, counts: nil)
        case .resourceDeferred(let id, let deferral):
            // The causes as the event stream names them (`metered`, `window`, …), joined.
            due(
                .onDeferred, of: id, event: "resource_deferred", status: "deferred", cause: deferral.reasons.map(\.rawValue).joined(separator: ","),
                reason: deferral.message, counts: nil)
        default:
            break
        }
    }

    private func due(
        _ trigger: HookTrigger, of id: String, event: String, status: String, cause: String? = nil, reason: String? = nil,
        counts: ApplyResult.Counts?
    ) {
        guard let target = targets[id], let argv = target.settings.commands[trigger] else { return }
        let facts = HookEvent(
            hook: trigger.rawValue, event: event, run: runID, dueAt: HookEvent.now, resource: id, folder: target.folder, status: status,
            cause: cause, reason: reason, counts: Self.counts(counts?.named ?? []))
        runner.add(
            HookJob(
                event: facts, argv: absolute(argv), timeout: target.settings.timeout, policy: target.settings.failurePolicy, root: target.root))
    }

    /// Waits for every hook due so far, handing their events to `events` as they come (on the
    /// run's thread). Returns how this run's resource hooks ended.
    public func waitForHooks(events: RunEvents) -> [HookEnd] {
        while !runner.isIdle {
            events.mailbox.waitForPost(timeout: .milliseconds(250))
            events.deliverPosted()
        }
        events.deliverPosted()
        return runner.ended
    }

    /// Runs `--on-run-end` (if given) for a run that ends with `exitStatus`, and waits for it.
    /// It runs even after a stop: it tells how the run ended (a new stop cuts it short).
    public func runEnd(exitStatus: Int32, stopReason: StopReason?, counts: [(name: String, value: Int64)], events: RunEvents) {
        guard let argv = options.runEnd else { return }
        runner.resume()
        let status =
            switch stopReason {
            case .signal?: "interrupted"
            case .deadline?: "deadline"
            case .offline?: "offline"
            case nil: exitStatus == 0 ? "complete" : exitStatus == 1 ? "failed" : "error"
            }
        let facts = HookEvent(
            hook: "on_run_end", event: "run_end", run: runID, dueAt: HookEvent.now, status: status, counts: Self.counts(counts),
            exitStatus: exitStatus)
        // Its failure is a warning: the exit status it was told stays the run's.
        runner.add(HookJob(event: facts, argv: absolute(argv), timeout: options.runEndTimeout, policy: .warn, root: runEndRoot))
        _ = waitForHooks(events: events)
    }

    /// Ends the runner's thread, after ``waitForHooks(events:)``.
    public func close() {
        runner.close()
    }

    // MARK: Helpers

    private static func counts(_ named: [(name: String, value: Int64)]) -> [HookEvent.Count] {
        named.map { HookEvent.Count(name: $0.name, value: $0.value) }
    }

    /// `argv` with a relative program path made absolute.
    private func absolute(_ argv: [String]) -> [String] {
        guard let program = argv.first, program.contains("/") else { return argv }
        return [Self.absolute(program, in: options.currentDirectory)] + argv.dropFirst()
    }

    static func absolute(_ path: String, in directory: String) -> String {
        if path.hasPrefix("/") { return path }
        if path == "." || path.isEmpty { return directory }
        return (directory.hasSuffix("/") ? directory : directory + "/") + (path.hasPrefix("./") ? String(path.dropFirst(2)) : path)
    }

    /// The job of an outbox entry due in an earlier run. One whose event cannot be read (or was
    /// stored by another version of the hooks' JSON) still runs, with the stored line and the run
    /// id alone.
    static func redelivery(of entry: HookOutboxEntry, root: String) -> HookJob {
        // Whatever its policy was: the run whose outcome it could have failed has ended.
        let policy = HookFailurePolicy.warn
        let timeout = Duration.milliseconds(max(1, entry.timeoutMilliseconds))
        var job: HookJob
        if var facts = HookEvent.read(entry.event) {
            facts.isRedelivery = true
            job = HookJob(event: facts, argv: entry.argv, timeout: timeout, policy: policy, root: root)
        } else {
            let stored = HookEvent(hook: "unknown", event: "unknown", run: entry.runID, dueAt: "", status: "unknown", counts: [])
            job = HookJob(event: stored, argv: entry.argv, timeout: timeout, policy: policy, root: root)
            job.key = ""
            job.input = Array(entry.event.utf8) + [UInt8(ascii: "\n")]
            job.variables = [("JOBRUN_RUN_ID", entry.runID), ("JOBRUN_REDELIVERY", "1")]
            job.ref = HookRef(hook: "unknown", resource: nil, eventRun: entry.runID, isRedelivery: true, argv: entry.argv)
        }
        job.outboxID = entry.id
        return job
    }
}
