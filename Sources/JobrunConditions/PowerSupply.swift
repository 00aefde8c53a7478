/// One device of the kernel's power-supply class (`/sys/class/power_supply/NAME`), as far as
/// telling whether the machine runs on AC power needs it.
public struct PowerSupply: Sendable, Hashable {
    /// What the device is to this machine.
    public enum Kind: Sendable, Hashable {
        /// `type` Battery.
        case battery
        /// A USB supply whose USB-C ports all give power to others: no source for this machine.
        case usbSource
        /// A supply whose `online` tells whether it feeds the machine: `Mains`, `UPS`, a USB
        /// supply in sink mode, … (`type`, as the kernel names it).
        case external(type: String)
    }

    /// The device's name in the class folder (`AC`, `BAT0`, `ucsi-source-psy-USBC000:001`).
    public var name: String
    public var kind: Kind
    /// `online` (0 offline; 1 and 2 are kinds of online); `nil` when it cannot be read.
    public var online: UInt64?
    /// `scope` is `Device`: the battery of a peripheral (a mouse, a headset), not the machine's.
    public var isPeripheral: Bool
    /// `present`; `nil` when it cannot be read.
    public var isPresent: Bool?
    /// `status` of a battery (`Discharging`, `Charging`, `Not charging`, `Full`, `Unknown`);
    /// `nil` when it cannot be read.
    public var status: String?

    public init(name: String, kind: Kind, online: UInt64? = nil, isPeripheral: Bool = false, isPresent: Bool? = nil, status: String? = nil) {
        self.name = name
        self.kind = kind
        self.online = online
        self.isPeripheral = isPeripheral
        self.isPresent = isPresent
        self.status = status
    }
}
