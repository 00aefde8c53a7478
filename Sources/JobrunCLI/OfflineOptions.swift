import ArgumentParser
import JobrunCore

/// `apply --offline-wait`: how long a run waits while every origin with work is unreachable
/// (docs/apply.md, "Offline").
struct OfflineOptions: ParsableArguments {
    @Option(
        name: .customLong("offline-wait"),
        help: ArgumentHelp(
            "While no origin with work can be reached, pause and probe them for up to this long (default 10m; never past --deadline), then exit 75; 0 turns the pause off.",
            valueName: "duration"))
    var offlineWait: String?

    static let defaultWait: Duration = .seconds(600)

    /// `--offline-wait` as a duration (the default without the option; `validate()` refused
    /// anything that is not one).
    var wait: Duration {
        guard let offlineWait else { return Self.defaultWait }
        if offlineWait == "0" { return .zero }
        return (try? DurationParser.milliseconds(offlineWait).get()).map { .milliseconds($0) } ?? Self.defaultWait
    }

    func validate() throws {
        if let offlineWait, offlineWait != "0", (try? DurationParser.milliseconds(offlineWait).get()) == nil {
            throw ValidationError("--offline-wait: '\(offlineWait)' is not a duration (for example 30s, 10m, 1h; 0 turns the pause off)")
        }
    }
}
