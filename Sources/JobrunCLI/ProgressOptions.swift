import ArgumentParser
import JobrunCore
import JobrunOutcome
import JobrunReport

/// `--progress`, `-q` and `-v` of `apply`: how much the human log says, and how progress shows
/// on stderr (``ProgressOutput/choose(_:)`` decides).
struct ProgressOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(
        "How progress shows on stderr: auto (tty on a terminal, else plain), tty (a live display), plain (a line every --progress-interval) or none (default: $JOBRUN_PROGRESS, else auto).",
        valueName: "mode"), transform: Self.mode)
    var progress: ProgressMode?

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
    }

    var detail: HumanLog.Detail { quiet ? .quiet : verbose ? .verbose : .normal }

    /// Adds the human log and the progress output to `events`. With a live display, the lines
    /// of the log that go to the same terminal are written through it.
    /// - Parameter resultsToStderr: the log's results go to stderr (stdout carries JSON).
    /// - Returns: what removes the live display, to call once transfers are over, before
    ///   anything else is written (error paths included).
    /// - Throws: `ExitCode` 64 when `JOBRUN_PROGRESS` is not a mode.
    func install(on events: RunEvents, runID: String, interval: Duration, resultsToStderr: Bool) throws -> LiveDisplay {
        let environment = ProcessInfo.processInfo.environment
        let output: ProgressOutput
        do {
            output = try ProgressOutput.choose(ProgressOutput.Inputs(
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
