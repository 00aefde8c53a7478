import JobrunCore
import JobrunSystem

extension BusyState {
    /// Measures how busy the machine is, the most telling way that works here: the CPU pressure
    /// of jobrun's own control group (cgroup v2, also under a hybrid hierarchy's `unified`),
    /// then the system's, then the load average against `cpus`. `proc` and `cgroups` are
    /// `/proc` and `/sys/fs/cgroup` (tests give trees of their own); `nil` when nothing can be
    /// read (then the condition is unknown).
    public static func probe(proc: String = "/proc", cgroups: String = "/sys/fs/cgroup", cpus: Int = onlineCPUs()) -> BusyState? {
        if let group = ownGroup(proc: proc), group != "/" {
            for hierarchy in [cgroups, cgroups + "/unified"] {
                if let text = FileReader.text(hierarchy + group + "/cpu.pressure"), let share = someAverage60(inPressure: text) {
                    return fromPressure(someAverage60: share, source: .controlGroup(group))
                }
            }
        }
        if let text = FileReader.text(proc + "/pressure/cpu"), let share = someAverage60(inPressure: text) {
            return fromPressure(someAverage60: share, source: .system)
        }
        if let text = FileReader.text(proc + "/loadavg"), let load = loadAverage1(in: text) {
            return fromLoad(load, cpus: cpus)
        }
        return nil
    }

    /// The cgroup v2 path of this process (`0::/system.slice/cron.service` in `/proc/self/cgroup`).
    static func ownGroup(proc: String) -> String? {
        guard let text = FileReader.text(proc + "/self/cgroup") else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix("0::") {
            let path = line.dropFirst(3)
            // A path that climbs out (`..`) is not one to follow into the hierarchy.
            guard path.hasPrefix("/"), !path.split(separator: "/").contains("..") else { return nil }
            return String(path)
        }
        return nil
    }

    /// The CPUs online now.
    public static func onlineCPUs() -> Int {
        max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
    }
}
