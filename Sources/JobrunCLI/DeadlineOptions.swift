import ArgumentParser
import JobrunCore
import JobrunOutcome

/// `--deadline` and `--deadline-margin`: one absolute deadline for the run, retries included.
struct DeadlineOptions: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp(
            "Stop by this time: a duration from now (45m), an RFC 3339 time, or 'auto' (GitLab's CI_JOB_STARTED_AT + CI_JOB_TIMEOUT); env JOBRUN_DEADLINE.",
            valueName: "when"), completion: .list(["auto"]))
    var deadline: String?

    @Option(
        name: .customLong("deadline-margin"),
        help: ArgumentHelp(
            "Time kept before the deadline to cancel transfers and write the reports (default 5s).", valueName: "duration"))
    var deadlineMargin: String?

    static let defaultMargin: Int64 = 5_000

    /// `--deadline`, else `JOBRUN_DEADLINE`.
    var text: String? {
        deadline ?? ProcessInfo.processInfo.environment["JOBRUN_DEADLINE"].flatMap { $0.isEmpty ? nil : $0 }
    }

    func validate() throws {
        if let deadlineMargin, (try? DurationParser.milliseconds(deadlineMargin).get()) == nil {
            throw ValidationError("--deadline-margin: '\(deadlineMargin)' is not a duration (for example 5s, 1m)")
        }
        if let text, case .failure(let error) = DeadlineSpec.resolve(text, nowMilliseconds: 0, environment: ProcessInfo.processInfo.environment) {
            throw ValidationError("--deadline: \(error)")
        }
    }

    /// When the run stops: the deadline less the margin, on the monotonic clock; nil without one.
    func cutoff() -> ContinuousClock.Instant? {
        guard let text else { return nil }
        let now = RunID.milliseconds()
        guard case .success(let at) = DeadlineSpec.resolve(text, nowMilliseconds: now, environment: ProcessInfo.processInfo.environment)
        else { return nil }  // `validate()` refused it
        let margin = deadlineMargin.flatMap { try? DurationParser.milliseconds($0).get() } ?? Self.defaultMargin
        return ContinuousClock.now + .milliseconds(at - margin - now)
    }
}
