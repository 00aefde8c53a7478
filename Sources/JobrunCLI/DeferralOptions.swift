import ArgumentParser
import JobrunCore

/// What `apply` does with work the network policy defers (docs/policy.md).
struct DeferralOptions: ParsableArguments {
    @Option(
        name: .customLong("wait-for-conditions"),
        help: ArgumentHelp(
            "Wait up to this long for deferred work's conditions to turn good, instead of deferring it (for example 30m, 8h).",
            valueName: "duration"))
    var waitForConditions: String?

    @Option(
        name: .customLong("conditions-interval"),
        help: ArgumentHelp(
            "How often a run reads the conditions and the clock again for the network policy (default 30s).", valueName: "duration"))
    var conditionsInterval: String?

    @Flag(name: .customLong("require-complete"), help: "Exit 75 when work was deferred (by default deferral exits 0).")
    var requireComplete = false

    /// `--wait-for-conditions` (checked by ``validate()``).
    var wait: Duration? {
        waitForConditions.flatMap { try? DurationParser.milliseconds($0).get() }.map { .milliseconds($0) }
    }

    /// `--conditions-interval` (checked by ``validate()``).
    var interval: Duration {
        conditionsInterval.flatMap { try? DurationParser.milliseconds($0).get() }.map { .milliseconds($0) } ?? .seconds(30)
    }

    func validate() throws {
        if let conditionsInterval {
            guard let ms = try? DurationParser.milliseconds(conditionsInterval).get(), ms >= 100 else {
                throw ValidationError("--conditions-interval: '\(conditionsInterval)' is not a duration of 100ms or more (for example 30s, 5m)")
            }
        }
        if let waitForConditions {
            guard let ms = try? DurationParser.milliseconds(waitForConditions).get() else {
                throw ValidationError("--wait-for-conditions: '\(waitForConditions)' is not a duration (for example 30m, 8h)")
            }
            if ms <= 0 { throw ValidationError("--wait-for-conditions must be longer than 0") }
        }
    }
}
