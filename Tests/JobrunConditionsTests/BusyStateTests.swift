import JobrunConditions
import JobrunTestSupport
import Testing

/// The busy condition: CPU pressure of jobrun's own control group, else the system's, else the
/// load average; each with its limit.
@Suite struct BusyStateTests {
    static let idle = "some avg10=0.00 avg60=1.25 avg300=0.50 total=12345\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=0\n"
    static let loaded = "some avg10=80.00 avg60=62.50 avg300=40.00 total=99999\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=0\n"

    @Test func readingsAndLimits() {
        #expect(BusyState.someAverage60(inPressure: Self.loaded) == 62.5)
        #expect(BusyState.someAverage60(inPressure: "full avg10=1 avg60=99 avg300=1 total=1\n") == nil, "only `some` counts")
        #expect(BusyState.someAverage60(inPressure: "some avg10=1 avg60=nan avg300=1\n") == nil)
        #expect(BusyState.someAverage60(inPressure: "") == nil)
        #expect(BusyState.loadAverage1(in: "3.61 3.44 3.35 3/94 16495\n") == 3.61)
        #expect(BusyState.loadAverage1(in: "-1 0 0") == nil && BusyState.loadAverage1(in: "") == nil)

        #expect(
            BusyState.fromPressure(someAverage60: 49.99, source: .system)
                == BusyState(
                    isBusy: false, source: .system, reading: "CPU pressure 49.99 % over the last minute"))
        #expect(BusyState.fromPressure(someAverage60: 50, source: .system).isBusy)
        #expect(BusyState.fromLoad(1.99, cpus: 2) == BusyState(isBusy: false, source: .loadAverage(cpus: 2), reading: "load 1.99 on 2 CPUs"))
        #expect(BusyState.fromLoad(2, cpus: 2).isBusy)
        #expect(BusyState.fromLoad(0.5, cpus: 0) == BusyState(isBusy: false, source: .loadAverage(cpus: 1), reading: "load 0.5 on 1 CPU"))
    }

    /// Own group first (v2, then a hybrid hierarchy's `unified`), then the system, then the load.
    @Test func theMostTellingSourceThatCanBeRead() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let proc = dir.path("proc")
        let cgroups = dir.path("cgroup")
        #expect(BusyState.probe(proc: proc, cgroups: cgroups, cpus: 2) == nil, "nothing to read: unknown")

        _ = try dir.write(file: "proc/loadavg", contents: "2.50 1.00 0.50 3/94 16495\n")
        #expect(BusyState.probe(proc: proc, cgroups: cgroups, cpus: 2) == BusyState.fromLoad(2.5, cpus: 2))
        #expect(BusyState.probe(proc: proc, cgroups: cgroups, cpus: 4)?.isBusy == false)

        _ = try dir.write(file: "proc/pressure/cpu", contents: Self.idle)
        #expect(BusyState.probe(proc: proc, cgroups: cgroups, cpus: 2) == BusyState.fromPressure(someAverage60: 1.25, source: .system))

        _ = try dir.write(file: "proc/self/cgroup", contents: "4:memory:/x\n0::/system.slice/cron.service\n")
        #expect(BusyState.probe(proc: proc, cgroups: cgroups, cpus: 2)?.source == .system, "the group has no pressure file")
        _ = try dir.write(file: "cgroup/unified/system.slice/cron.service/cpu.pressure", contents: Self.loaded)
        #expect(
            BusyState.probe(proc: proc, cgroups: cgroups, cpus: 2)
                == BusyState.fromPressure(
                    someAverage60: 62.5, source: .controlGroup("/system.slice/cron.service")))
        _ = try dir.write(file: "cgroup/system.slice/cron.service/cpu.pressure", contents: Self.idle)
        #expect(BusyState.probe(proc: proc, cgroups: cgroups, cpus: 2)?.reading == "CPU pressure 1.25 % over the last minute")

        // The root group has no pressure of its own; a path that climbs out is not followed.
        _ = try dir.write(file: "proc/self/cgroup", contents: "0::/\n")
        #expect(BusyState.probe(proc: proc, cgroups: cgroups, cpus: 2)?.source == .system)
        _ = try dir.write(file: "proc/self/cgroup", contents: "0::/../system.slice/cron.service\n")
        #expect(BusyState.probe(proc: proc, cgroups: cgroups, cpus: 2)?.source == .system)
    }

    #if os(Linux)
    @Test func thisMachineHasAReading() {
        #expect(BusyState.probe() != nil)
        #expect(BusyState.onlineCPUs() >= 1)
    }
    #endif
}
