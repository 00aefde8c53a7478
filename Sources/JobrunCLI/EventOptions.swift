import ArgumentParser

/// `--events FILE|-`, shared by `plan`, `apply` and `verify` (``CommandRun`` writes the stream).
struct EventOptions: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp(
            "Write the run's events as NDJSON, one JSON object a line, to this file, or to stdout with '-' (docs/events.md).",
            valueName: "file"))
    var events: String?

    /// `--events -`: stdout carries the events, so what the command prints there goes to stderr.
    var isOnStdout: Bool { events == "-" }

    func validate() throws {
        if events?.isEmpty == true { throw ValidationError("--events needs a file name, or - for stdout") }
    }

    /// - Throws: a usage error when `--json` and `--events -` would both write to stdout.
    func refuseSharingStdout(withJSON json: Bool) throws {
        if json && isOnStdout {
            throw ValidationError("--json and --events - both write to stdout: give --events a file name")
        }
    }
}
