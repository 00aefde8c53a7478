import ArgumentParser
import JobrunConditions
import JobrunCore
import JobrunManifest
import JobrunOutcome
import JobrunPlan
import JobrunState
import JobrunSystem

/// `--metered yes|no|auto`: what the network policy takes the network to be (env JOBRUN_METERED),
/// and the reading of every condition discretionary work waits for.
struct ConditionsOptions: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp(
            "Whether the network is metered: yes, no, or auto (ask NetworkManager; default); env JOBRUN_METERED.",
            valueName: "yes|no|auto"), completion: .list(MeteredSetting.allCases.map(\.rawValue)))
    var metered: String?

    /// How long NetworkManager may take to answer.
    static let probeTimeout: Duration = .milliseconds(500)

    /// `--metered` as a setting (``validate()`` refused anything else).
    var setting: MeteredSetting? {
        metered.flatMap { MeteredSetting(rawValue: $0.lowercased()) }
    }

    func validate() throws {
        if let metered, MeteredSetting(rawValue: metered.lowercased()) == nil {
            throw ValidationError("--metered: '\(metered)' is not one of yes, no, auto")
        }
        do {
            _ = try MeteredSetting.resolve(option: setting, environment: ProcessInfo.processInfo.environment)
        } catch {
            throw ValidationError("\(error)")
        }
    }

    /// What the network policies of `manifest` are judged by now: the conditions (read only when
    /// some resource's policy looks at them), the time, the machine's zone, and when each
    /// resource was first deferred (from `states`).
    func context(for manifest: Manifest, states: MirrorStates) -> PolicyContext {
        let environment = ProcessInfo.processInfo.environment
        let looks = manifest.resources.contains { $0.settings.network.defersForConditions }
        return PolicyContext(
            conditions: looks ? read() : Conditions.notRead, nowMilliseconds: RunID.milliseconds(),
            localZone: TimeZoneRules.local(environment: environment), firstDeferred: states.firstDeferrals())
    }

    /// The conditions now: the metered setting (or NetworkManager's answer), the power supply,
    /// how busy the machine is.
    func read() -> Conditions {
        reader()()
    }

    /// ``read()`` as a function another thread may call during a run.
    func reader() -> @Sendable () -> Conditions {
        let environment = ProcessInfo.processInfo.environment
        // `validate()` refused a bad JOBRUN_METERED.
        let (setting, source) = (try? MeteredSetting.resolve(option: setting, environment: environment)) ?? (.auto, "")
        let probeTimeout = Self.probeTimeout
        return {
            let state = setting.state(source: source) { MeteredState.networkManager(environment: environment, timeout: probeTimeout) }
            return Conditions.probe(metered: state)
        }
    }
}
