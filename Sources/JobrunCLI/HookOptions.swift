import ArgumentParser
import JobrunCore
import JobrunHooks
import JobrunManifest
import JobrunOutcome
import JobrunState

/// `apply --on-run-end PROGRAM|JSON-ARRAY`, and the run's completion hooks (docs/policy.md,
/// "Hooks").
struct HookOptions: ParsableArguments {
    @Option(
        name: .customLong("on-run-end"),
        help: ArgumentHelp(
            "Run a program when the run ends, with the event as a JSON line on stdin and JOBRUN_* variables (docs/policy.md, Hooks): a program alone, or a JSON array of the program and its arguments, e.g. '[\"notify-send\", \"mirror done\"]'. No shell.",
            valueName: "program"))
    var onRunEnd: String?

    /// `--on-run-end` as an argument vector (`validate()` refused anything else).
    var runEnd: [String]? { onRunEnd.flatMap { try? Self.argv(of: $0).get() } }

    func validate() throws {
        if let onRunEnd, case .failure(let problem) = Self.argv(of: onRunEnd) {
            throw ValidationError("--on-run-end: \(problem.message)")
        }
    }

    struct Problem: Error {
        var message: String
    }

    /// A value that starts with `[` is a JSON array of strings: the program, then its
    /// arguments. Anything else is a program without arguments, and may not hold blanks: a
    /// shell would have split them, and jobrun does not guess where.
    static func argv(of value: String) -> Result<[String], Problem> {
        let example = "give a JSON array of the program and its arguments, like '[\"notify-send\", \"mirror done\"]'"
        guard value.first == "[" else {
            if value.isEmpty { return .failure(Problem(message: "the program is empty")) }
            if value.contains(where: \.isWhitespace) {
                return .failure(Problem(message: "'\(value)' holds a blank, and no shell splits it: \(example)"))
            }
            return .success([value])
        }
        guard let argv = try? JSONDecoder().decode([String].self, from: Data(value.utf8)) else {
            return .failure(Problem(message: "'\(value)' is not a JSON array of strings: \(example)"))
        }
        guard let program = argv.first, !program.isEmpty else {
            return .failure(Problem(message: "the JSON array names no program: \(example)"))
        }
        if argv.contains(where: { $0.utf8.contains(0) }) {
            return .failure(Problem(message: "an argument holds a NUL character"))
        }
        return .success(argv)
    }

    /// The hooks of `manifest`'s resources and of the run's end, observing `events` from now on;
    /// hooks left due by an earlier run start at once. Their outboxes are `states`'.
    func start(for manifest: Manifest, runID: String, states: MirrorStates, events: RunEvents) -> HookDispatcher {
        var options = HookDispatcher.Options()
        options.runEnd = runEnd
        let hooks = HookDispatcher(resources: manifest.resources, runID: runID, states: states, mailbox: events.mailbox, options: options)
        events.add(hooks)
        return hooks
    }
}

extension HookDispatcher {
    /// Waits for the hooks due so far, and puts how this run's resource hooks ended into
    /// `result`; a signal that stopped them (the transfers having ended) stops the run.
    func settle(_ result: inout ApplyResult, events: RunEvents) {
        result.hooks = waitForHooks(events: events)
        if result.stopReason == nil, let signal = stopper.signal { result.stopReason = .signal(signal) }
    }

    /// The run's last step before `run_end`: hooks still due, then `--on-run-end` (a signal
    /// meanwhile stops them), then the runner's thread ends.
    func finish(_ end: RunEnd, events: RunEvents) {
        let stopper = self.stopper
        let stage = SignalHandling.install { signal in stopper.stop(signal: signal) }
        defer { stage.cancel() }
        _ = waitForHooks(events: events)
        runEnd(exitStatus: end.exitStatus, stopReason: end.stopReason, counts: end.counts, events: events)
        close()
    }
}
