import Foundation
import JobrunConditions
import JobrunTestSupport
import Testing

/// The power condition follows systemd's `on_ac_power`: an external supply online means AC; else
/// a discharging battery of the machine means battery; anything else (no supplies at all) AC.
@Suite struct PowerStateTests {
    static let ac = PowerSupply(name: "AC", kind: .external(type: "Mains"), online: 1)
    static let acOff = PowerSupply(name: "AC", kind: .external(type: "Mains"), online: 0)
    static let bat = PowerSupply(name: "BAT0", kind: .battery, isPresent: true, status: "Discharging")

    @Test func theRulesCaseByCase() {
        #expect(PowerState.of([]) == PowerState(isOnAC: true, reason: "no power supply"))
        #expect(PowerState.of([Self.bat, Self.ac]) == PowerState(isOnAC: true, reason: "'AC' online"))
        #expect(PowerState.of([Self.acOff, Self.bat]) == PowerState(isOnAC: false, reason: "battery 'BAT0' discharging, 'AC' offline"))
        #expect(PowerState.of([Self.bat]) == PowerState(isOnAC: false, reason: "battery 'BAT0' discharging, no external supply"))
        // Online 2 is online too (a USB supply's alternative mode).
        #expect(PowerState.of([Self.bat, PowerSupply(name: "usb", kind: .external(type: "USB"), online: 2)]).isOnAC)
        // A UPS counts like mains.
        #expect(PowerState.of([Self.bat, PowerSupply(name: "ups", kind: .external(type: "UPS"), online: 1)]).isOnAC)

        var charging = Self.bat
        charging.status = "Charging"
        #expect(PowerState.of([Self.acOff, charging]) == PowerState(isOnAC: true, reason: "no battery discharging"))
        var unknownStatus = Self.bat
        unknownStatus.status = nil
        #expect(!PowerState.of([unknownStatus]).isOnAC, "a battery whose status cannot be read is taken as discharging")
        var absent = Self.bat
        absent.isPresent = false
        #expect(PowerState.of([absent]).isOnAC)
        var presenceUnknown = Self.bat
        presenceUnknown.isPresent = nil
        #expect(!PowerState.of([presenceUnknown]).isOnAC, "a battery whose presence cannot be read is taken as present")
        var mouse = Self.bat
        mouse.isPeripheral = true
        #expect(PowerState.of([mouse]).isOnAC, "a peripheral's battery is not the machine's")
        // A USB port that gives power, and a supply whose `online` cannot be read, count for nothing.
        #expect(!PowerState.of([Self.bat, PowerSupply(name: "usbc", kind: .usbSource, online: 1)]).isOnAC)
        #expect(!PowerState.of([Self.bat, PowerSupply(name: "AC", kind: .external(type: "Mains"))]).isOnAC)
    }

    /// Any order of the supplies gives the same answer and the same reason.
    @Test func theOrderOfTheSuppliesDoesNotMatter() {
        let second = PowerSupply(name: "BAT1", kind: .battery, isPresent: true, status: "Discharging")
        let supplies = [Self.acOff, second, Self.bat]
        #expect(PowerState.of(supplies) == PowerState.of(supplies.reversed()))
        #expect(PowerState.of(supplies).reason == "battery 'BAT0' discharging, 'AC' offline")
    }
}

/// Reading the power-supply class from a sysfs tree (a fixture here, `/sys` in use).
@Suite struct PowerSupplySysfsTests {
    static func device(_ dir: TemporaryDirectory, _ name: String, _ attributes: [String: String]) throws {
        for (key, value) in attributes { _ = try dir.write(file: "sys/class/power_supply/\(name)/\(key)", contents: value + "\n") }
    }

    @Test func aMachineWithoutSuppliesIsOnAC() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        #expect(PowerSupply.all(sysfs: dir.path("sys")).isEmpty)
        #expect(PowerState.of(PowerSupply.all(sysfs: dir.path("sys"))) == PowerState(isOnAC: true, reason: "no power supply"))
    }

    @Test func aLaptopOnBatteryAndThenOnMains() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        try Self.device(dir, "AC", ["type": "Mains", "online": "0"])
        try Self.device(dir, "BAT0", ["type": "Battery", "present": "1", "status": "Discharging", "capacity": "61"])
        try Self.device(dir, "hidpp_battery_0", ["type": "Battery", "scope": "Device", "status": "Discharging"])
        _ = try dir.makeDirectory("sys/class/power_supply/no-type")
        let supplies = PowerSupply.all(sysfs: dir.path("sys"))
        #expect(
            supplies == [
                PowerSupply(name: "AC", kind: .external(type: "Mains"), online: 0),
                PowerSupply(name: "BAT0", kind: .battery, isPresent: true, status: "Discharging"),
                PowerSupply(name: "hidpp_battery_0", kind: .battery, isPeripheral: true, status: "Discharging"),
            ])
        #expect(PowerState.of(supplies) == PowerState(isOnAC: false, reason: "battery 'BAT0' discharging, 'AC' offline"))
        try Self.device(dir, "AC", ["online": "1"])
        #expect(PowerState.of(PowerSupply.all(sysfs: dir.path("sys"))) == PowerState(isOnAC: true, reason: "'AC' online"))
    }

    /// A USB-C supply counts only when one of the ports below its parent device takes power:
    /// a laptop that charges a phone is still on battery.
    @Test func aUSBSupplyCountsOnlyInSinkMode() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        try Self.device(dir, "BAT0", ["type": "Battery", "present": "1", "status": "Discharging"])
        try Self.device(dir, "ucsi-source-psy-USBC000:001", ["type": "USB", "online": "1"])
        _ = try dir.write(file: "sys/devices/platform/USBC000:00/typec/port0/power_role", contents: "[source] sink\n")
        _ = try dir.write(file: "sys/devices/platform/other/typec/port1/power_role", contents: "source [sink]\n")
        _ = try dir.makeDirectory("sys/class/typec")
        try #require(symlink("../../../devices/platform/USBC000:00", dir.path("sys/class/power_supply/ucsi-source-psy-USBC000:001/device")) == 0)
        try #require(symlink("../../devices/platform/USBC000:00/typec/port0", dir.path("sys/class/typec/port0")) == 0)
        // Another device's port in sink mode says nothing of this supply.
        try #require(symlink("../../devices/platform/other/typec/port1", dir.path("sys/class/typec/port1")) == 0)
        let sourcing = PowerSupply.all(sysfs: dir.path("sys"))
        #expect(sourcing.last?.kind == .usbSource)
        #expect(!PowerState.of(sourcing).isOnAC)

        _ = try dir.write(file: "sys/devices/platform/USBC000:00/typec/port0/power_role", contents: "source [sink]\n")
        let sinking = PowerSupply.all(sysfs: dir.path("sys"))
        #expect(sinking.last == PowerSupply(name: "ucsi-source-psy-USBC000:001", kind: .external(type: "USB"), online: 1))
        #expect(PowerState.of(sinking) == PowerState(isOnAC: true, reason: "'ucsi-source-psy-USBC000:001' online"))

        // No port says source: taken as feeding the machine; no parent to look below: left out.
        try FileManager.default.removeItem(atPath: dir.path("sys/class/typec/port0"))
        #expect(PowerSupply.all(sysfs: dir.path("sys")).last?.kind == .external(type: "USB"))
        try FileManager.default.removeItem(atPath: dir.path("sys/class/power_supply/ucsi-source-psy-USBC000:001/device"))
        #expect(PowerSupply.all(sysfs: dir.path("sys")).last?.kind == .usbSource)
    }
}
