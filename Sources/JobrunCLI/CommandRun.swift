import ArgumentParser
import JobrunCore
import JobrunManifest
import JobrunOutcome
import JobrunReport
import JobrunSystem

/// One run of `plan`, `apply` or `verify` as its observers see it: its id (``RunID``), its
/// events (``RunEvents``) and, with `--events`, the event stream (``EventStream``) on a writer
/// thread (``BackgroundWriter``).
///
/// It owns both ends of the stream, so that every way out of a command is told the same way:
/// `run_start` first (``start()``, once the manifests are read, for their digest; or just before
/// the end when the command failed before that), and `run_end` last, with the exit status the
/// command ends with, whether it returned or threw, and its summary when it got that far
/// (``summarize(counts:summaryLine:stopReason:)``). The stream's file is complete when
/// ``run(_:events:progressInterval:_:)`` returns.
///
/// A SIGINT or SIGTERM that ends the process at once (any outside apply's transfers, a second
/// one during them) writes `run_end` first (``SignalHandling``). The only ways out without
/// `run_end`: an unusable `JOBRUN_RUN_ID` or an events file that cannot be opened (exit 64, or
/// 74 (1 with `plan --detailed-exitcode`), before the stream exists), and SIGKILL.
final class CommandRun {
    let command: String
    let runID: String
    let events = RunEvents()
    /// Fed with the manifests as they are read; only with `--events` (hashing costs time).
    let manifestsDigest: ManifestsDigest?
    private let writer: BackgroundWriter?
    private let started = ContinuousClock.now
    /// When the command started, on the wall clock (ms since the epoch): what the mirror state
    /// records as the run's start.
    let startedAtMilliseconds = RunID.milliseconds()
    private var hasStarted = false
    private var summary: (counts: [(name: String, value: Int64)], line: String, stopReason: StopReason?)?
    /// What runs once the exit status is known, before `run_end` (``atEnd(_:)``).
    private var endSteps: [(RunEnd) -> Void] = []
    /// What runs once every observer has seen `run_end` (``afterEnd(_:)``).
    private var finalSteps: [() -> Void] = []

    /// Runs `body` as `command` (`plan`, `apply`, `verify`), between `run_start` and `run_end`.
    /// - Parameter progressInterval: how often the stream gets a `progress` event.
    /// - Throws: what `body` throws, after `run_end`; `ExitCode` 64 for an unusable
    ///   `JOBRUN_RUN_ID`, 74 (1 with `plan --detailed-exitcode`) when the events file cannot be
    ///   opened.
    static func run(_ command: String, events options: EventOptions, progressInterval: Duration? = nil, _ body: (CommandRun) throws -> Void) throws {
        let run = try CommandRun(command: command, events: options, progressInterval: progressInterval)
        do {
            try body(run)
        } catch {
            run.end(exitStatus: Reports.status(after: Jobrun.exitCode(for: error).rawValue))
            throw error
        }
        run.end(exitStatus: Reports.status(after: ExitStatus.ok.rawValue))
    }

    private init(command: String, events options: EventOptions, progressInterval: Duration?) throws {
        self.command = command
        runID = try RunIdentity.resolve()
        guard let path = options.events else {
            writer = nil
            manifestsDigest = nil
            return
        }
        let writer = try Self.openStream(path)
        self.writer = writer
        manifestsDigest = ManifestsDigest()
        let stream = EventStream(runID: runID, progressInterval: progressInterval, output: writer)
        events.add(stream)
        let started = self.started
        SignalHandling.exitAfterLastWords { signal in
            stream.observe(
                .runEnded(
                    RunEnd(
                        exitStatus: StopReason.signal(signal).exitStatus.rawValue, stopReason: .signal(signal), counts: [],
                        summaryLine: nil, elapsed: ContinuousClock.now - started)))
        }
    }

    /// The writer for `--events PATH` (`-`: stdout). A reader that goes away is a write error
    /// (SIGPIPE ignored), told once on stderr; the run goes on, and exits 74 (``Reports``).
    /// - Throws: `ExitCode` 74 when the file cannot be opened (1 with `plan --detailed-exitcode`).
    private static func openStream(_ path: String) throws -> BackgroundWriter {
        let isStdout = path == "-"
        let fd: Int32
        if isStdout {
            fd = STDOUT_FILENO
        } else {
            OutputFiles.prepareParent(of: path)
            fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
            guard fd >= 0 else {
                StandardError.write("jobrun: error: cannot open the events file '\(path)': \(systemErrorText(errno))\n")
                throw ExitCode(Reports.failureStatus.rawValue)
            }
        }
        let name = isStdout ? "stdout" : "'\(path)'"
        do {
            return try BackgroundWriter(descriptor: fd, closesDescriptor: !isStdout) { code in
                Reports.failed("the events to \(name)", because: "\(systemErrorText(code)); the run goes on without them")
            }
        } catch {
            if !isStdout { close(fd) }
            StandardError.write("jobrun: error: cannot write the events to \(name): \(error)\n")
            throw ExitCode(Reports.failureStatus.rawValue)
        }
    }

    /// Sends `run_start` (the first time only): the command, its redacted arguments, the
    /// digest of the manifests read so far and, once they are read, how much `manifest` holds.
    func start(_ manifest: Manifest? = nil) {
        guard !hasStarted else { return }
        hasStarted = true
        events.emit(
            .runStarted(
                RunStart(
                    command: command, runID: runID, arguments: ArgumentRedaction.redact(CommandLine.arguments),
                    manifestsDigest: manifestsDigest?.hex, resources: manifest?.resources.count, slices: manifest?.sliceCount)))
    }

    /// The command's counts (named as in its JSON summary) and last line, for `run_end`.
    func summarize(counts: [(name: String, value: Int64)], summaryLine: String, stopReason: StopReason? = nil) {
        summary = (counts, summaryLine, stopReason)
    }

    /// Adds a step that runs once the command's exit status is known, whichever way it ends,
    /// just before `run_end` (its events come first): the last added runs first, as `defer`
    /// blocks do. Apply's run-end hook is one.
    func atEnd(_ step: @escaping (RunEnd) -> Void) {
        endSteps.append(step)
    }

    /// Adds a step that runs after every observer has seen `run_end`, whichever way the command
    /// ends: the release of the output roots' locks, so that the next run finds this one's end
    /// recorded in the mirror state (the recorder writes it as it sees `run_end`).
    func afterEnd(_ step: @escaping () -> Void) {
        finalSteps.append(step)
    }

    private func end(exitStatus: Int32) {
        // From here the command ends on its own, and a signal says no last words; unless one is
        // saying them now, and the process exits with them.
        guard SignalHandling.claimEnd() else {
            while true { pause() }
        }
        let end = RunEnd(
            exitStatus: exitStatus, stopReason: summary?.stopReason, counts: summary?.counts ?? [],
            summaryLine: summary?.line, elapsed: ContinuousClock.now - started)
        for step in endSteps.reversed() { step(end) }
        endSteps = []
        start()
        var final = end
        final.elapsed = ContinuousClock.now - started
        // A report the steps could not write (the metrics file) changes the status the process exits with.
        final.exitStatus = Reports.status(after: end.exitStatus)
        events.emit(.runEnded(final))
        // The stream finishes its writer at run_end; this covers a stream that was not sent it.
        writer?.finish()
        for step in finalSteps.reversed() { step() }
        finalSteps = []
    }
}
