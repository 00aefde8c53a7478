/// What discretionary work waits for, read once: the network's metering, the power supply and
/// how busy the machine is. An unknown reading counts as good (CI machines and containers have
/// neither NetworkManager nor a battery) and keeps its source, so that it is never silent.
public struct Conditions: Sendable, Equatable {
    public var metered: MeteredState
    public var power: PowerState
    /// `nil`: nothing could be read.
    public var busy: BusyState?

    public init(metered: MeteredState, power: PowerState, busy: BusyState?) {
        self.metered = metered
        self.power = power
        self.busy = busy
    }

    /// Discretionary work could run now: not metered, on AC power, not busy.
    public var allowDiscretionaryWork: Bool {
        !metered.isMetered && power.isOnAC && !(busy?.isBusy ?? false)
    }

    /// One reading, as `jobrun conditions` and the reports show it: a name, a value and its source.
    public struct Reading: Sendable, Equatable {
        public var name: String
        public var value: String
        public var source: String
        /// It holds discretionary work back.
        public var isBad: Bool
    }

    /// `metered=no (NetworkManager Metered=NO)`, `power=ac ('AC' online)`,
    /// `busy=no (CPU pressure 3 % over the last minute, cgroup /user.slice)`.
    public var readings: [Reading] {
        [
            Reading(name: "metered", value: metered.value.rawValue, source: metered.source, isBad: metered.isMetered),
            Reading(name: "power", value: power.isOnAC ? "ac" : "battery", source: power.reason, isBad: !power.isOnAC),
            busy.map { Reading(name: "busy", value: $0.isBusy ? "yes" : "no", source: "\($0.reading), \($0.source.description)", isBad: $0.isBusy) }
                ?? Reading(name: "busy", value: "unknown", source: "neither CPU pressure nor the load average can be read", isBad: false),
        ]
    }

    /// Conditions nobody read, as no policy looks at them: every one unknown, none defers.
    public static let notRead = Conditions(
        metered: MeteredState(value: .unknown, source: "not read: no policy looks at it"),
        power: PowerState(isOnAC: true, reason: "not read: no policy looks at it"), busy: nil)

    /// Reads every condition of this machine; `metered` is already resolved (``MeteredSetting``).
    public static func probe(metered: MeteredState, sysfs: String = "/sys", proc: String = "/proc", cgroups: String = "/sys/fs/cgroup") -> Conditions {
        Conditions(metered: metered, power: .of(PowerSupply.all(sysfs: sysfs)), busy: BusyState.probe(proc: proc, cgroups: cgroups))
    }
}

extension BusyState.Source {
    /// `cgroup /system.slice/cron.service`, `system`, `load average`.
    public var description: String {
        switch self {
        case .controlGroup(let path): "cgroup \(path)"
        case .system: "system"
        case .loadAverage: "load average"
        }
    }
}
