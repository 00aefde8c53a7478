import JobrunCore
import JobrunSystem

extension PowerSupply {
    /// The devices of `sysfs`/class/power_supply (`sysfs` is `/sys`; tests give a tree of their
    /// own), sorted by name. No such folder means no devices (a container, a virtual machine); a
    /// device whose `type` cannot be read is left out, as systemd leaves it out.
    public static func all(sysfs: String = "/sys") -> [PowerSupply] {
        let folder = sysfs + "/class/power_supply"
        var supplies: [PowerSupply] = []
        for name in entries(of: folder) {
            let device = folder + "/" + name
            guard let type = attribute("type", of: device) else { continue }
            var supply: PowerSupply
            switch type {
            case "Battery":
                supply = PowerSupply(name: name, kind: .battery)
                supply.isPeripheral = attribute("scope", of: device) == "Device"
                supply.isPresent = attribute("present", of: device).flatMap { UInt64($0) }.map { $0 != 0 }
                supply.status = attribute("status", of: device)
            case "USB" where !feedsThisMachine(usb: device, sysfs: sysfs):
                supply = PowerSupply(name: name, kind: .usbSource)
            default:
                supply = PowerSupply(name: name, kind: .external(type: type))
                supply.online = attribute("online", of: device).flatMap { UInt64($0) }
            }
            supplies.append(supply)
        }
        return supplies
    }

    /// Whether the USB supply `device` feeds this machine: one of the USB-C ports below its
    /// parent device is in sink mode, or none is in source mode (systemd's
    /// `device_is_power_sink`). One whose parent cannot be found feeds nothing, as systemd
    /// leaves it out.
    static func feedsThisMachine(usb device: String, sysfs: String) -> Bool {
        guard let parent = resolved(device + "/device") else { return false }
        let typec = sysfs + "/class/typec"
        var isSource = false
        var isSink = false
        for port in entries(of: typec) {
            guard let path = resolved(typec + "/" + port), path.hasPrefix(parent + "/"),
                let role = attribute("power_role", of: typec + "/" + port)
            else { continue }
            if role.contains("[sink]") { isSink = true } else if role.contains("[source]") { isSource = true }
        }
        return isSink || !isSource
    }

    /// A sysfs attribute's text without its trailing newline; `nil` when it cannot be read.
    static func attribute(_ name: String, of device: String) -> String? {
        FileReader.text(device + "/" + name)?.trimmingASCII([0x20, 0x09, 0x0A])
    }

    /// The names in `folder`, sorted; none when it cannot be listed.
    static func entries(of folder: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).sorted()
    }

    /// `path` with every symbolic link followed; `nil` when it does not lead anywhere.
    static func resolved(_ path: String) -> String? {
        guard let real = realpath(path, nil) else { return nil }
        defer { free(real) }
        return String(cString: real)
    }
}
