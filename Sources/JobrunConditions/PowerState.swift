/// Whether the machine runs on AC power, and why: the `power` condition of discretionary work.
public struct PowerState: Sendable, Hashable {
    public var isOnAC: Bool
    /// The supply that decided it, for people: `'AC' online`, `battery 'BAT0' discharging`, …
    public var reason: String

    public init(isOnAC: Bool, reason: String) {
        self.isOnAC = isOnAC
        self.reason = reason
    }

    /// The rules of systemd's `on_ac_power` (`systemd-ac-power`, `ConditionACPower=`), which
    /// users already know from their units:
    ///
    /// | the supplies                                                            | on AC |
    /// |-------------------------------------------------------------------------|-------|
    /// | one that can be online is (`Mains`, `UPS`, USB in sink mode, …)         | yes   |
    /// | else a battery of the machine (not a peripheral's), present (or unknown), discharging (or status unknown) | no |
    /// | else (none at all: a desktop, a server, a container)                    | yes   |
    ///
    /// A USB supply in source mode, a battery that is charging, full or absent, and a supply
    /// whose `online` cannot be read count for nothing.
    public static func of(_ supplies: [PowerSupply]) -> PowerState {
        var discharging: String?
        var offline: [String] = []
        for supply in supplies.sorted(by: { $0.name < $1.name }) {
            switch supply.kind {
            case .usbSource:
                continue
            case .battery:
                guard !supply.isPeripheral, supply.isPresent != false, supply.status == nil || supply.status == "Discharging" else { continue }
                if discharging == nil { discharging = supply.name }
            case .external:
                guard let online = supply.online else { continue }
                if online > 0 { return PowerState(isOnAC: true, reason: "'\(supply.name)' online") }
                offline.append(supply.name)
            }
        }
        if let battery = discharging {
            let none = offline.isEmpty ? "no external supply" : offline.map { "'\($0)'" }.joined(separator: ", ") + " offline"
            return PowerState(isOnAC: false, reason: "battery '\(battery)' discharging, \(none)")
        }
        if supplies.isEmpty { return PowerState(isOnAC: true, reason: "no power supply") }
        return PowerState(isOnAC: true, reason: "no battery discharging")
    }
}
