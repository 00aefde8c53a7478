import ArgumentParser
import JobrunCore
import JobrunOutcome
import JobrunReport

/// `--progress`, `--progress-interval`, `-q` and `-v` of `apply`: how much the human log says,
/// and how progress shows on stderr (``ProgressOutput/choose(_:)`` decides).
struct ProgressOptions: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp(
            "How progress shows on stderr: auto (tty on a terminal, else plain), tty (a live display), plain (a line every --progress-interval, and one when the run starts and ends) or none (default: $JOBRUN_PROGRESS, else auto).",
            valueName: "mode"), completion: .list(ProgressMode.allCases.map(\.rawValue)), transform: Self.mode)
    var progress: ProgressMode?

    @Option(
        name: .customLong("progress-interval"),
        help: ArgumentHelp(
            "How often --progress plain writes a line while transfers run (default 30s).", valueName: "duration"))
    var progressInterval: String?

    /// `--progress-interval` as a duration (`validate()` refused anything else).
    var interval: Duration {
        Self.interval(progressInterval) ?? Self.defaultInterval
    }

    static let defaultInterval: Duration = .seconds(30)

    /// `text` as an interval: the default without it, `nil` when it is not a duration longer than 0.
    static func interval(_ text: String?) -> Duration? {
        guard let text else { return defaultInterval }
        guard let ms = try? DurationParser.milliseconds(text).get(), ms > 0 else { return nil }
        return .milliseconds(ms)
    }

    @Flag(name: .shortAndLong, help: "Print only problems and the summary; no progress unless --progress is given.")
    var quiet = false

    @Flag(name: .shortAndLong, help: "Also print a line per slice that ends, and per retry.")
    var verbose = false

    static func mode(_ text: String) throws -> ProgressMode {
        guard let mode = ProgressMode(rawValue: text) else {
            throw ValidationError("'\(text)' is not a progress mode (\(ProgressMode.allCases.map(\.rawValue).joined(separator: ", ")))")
        }
        return mode
    }

    func validate() throws {
        if quiet && verbose { throw ValidationError("--quiet and --verbose cannot be used together") }
        if let progressInterval, Self.interval(progressInterval) == nil {
            throw ValidationError("--progress-interval: '\(progressInterval)' is not a duration (for example 10s, 1m)")
        }
    }

    var detail: HumanLog.Detail { quiet ? .quiet : verbose ? .verbose : .normal }

    /// Adds the human log and the progress output to `events`. With a live display, the lines
    /// of the log that go to the same terminal are written through it.
    /// - Parameter resultsToStderr: the log's results go to stderr (stdout carries JSON).
    /// - Returns: what removes the live display, to call once transfers are over, before
    ///   anything else is written (error paths included).
    /// - Throws: `ExitCode` 64 when `JOBRUN_PROGRESS` is not a mode.
    func install(on events: RunEvents, runID: String, resultsToStderr: Bool) throws -> LiveDisplay {
        let environment = ProcessInfo.processInfo.environment
        let output: ProgressOutput
        do {
            output = try ProgressOutput.choose(
                ProgressOutput.Inputs(
                    flag: progress, isQuiet: quiet, environment: environment, isStderrTerminal: isatty(STDERR_FILENO) == 1))
        } catch {
            StandardError.write("jobrun: error: \(error)\n")
            throw ExitCode(ExitStatus.usage.rawValue)
        }
        let terminal = output == .tty ? TerminalWriter(fd: STDERR_FILENO) : nil
        let stdoutFD = resultsToStderr ? STDERR_FILENO : STDOUT_FILENO
        // stdout on a terminal is taken to be the display's (were it another one, it would only
        // see the display cleared and redrawn around each line).
        let isStdoutTerminal = isatty(STDOUT_FILENO) == 1
        func write(_ line: String, to fd: Int32) {
            if let terminal, fd == STDERR_FILENO || isStdoutTerminal {
                terminal.print(line, to: fd)
            } else if fd == STDERR_FILENO {
                StandardError.write(line)
            } else {
                StandardOutput.write(line)
            }
        }
        events.add(HumanLog(detail: detail, results: { write($0, to: stdoutFD) }, notices: { write($0, to: STDERR_FILENO) }))
        if let terminal {
            let progress = TerminalProgress(
                writer: terminal, isColored: TerminalProgress.isColorWanted(environment: environment), warn: StandardError.write)
            events.add(progress)
            return LiveDisplay(progress: progress, suspension: LiveDisplay.handleSuspension(of: terminal))
        }
        if output == .plain {
            events.add(PlainProgress(runID: runID, interval: interval) { StandardError.write($0) })
        }
        return LiveDisplay(progress: nil, suspension: nil)
    }
}
