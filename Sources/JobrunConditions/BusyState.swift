/// Whether the machine is busy, and how that was measured: the `busy` condition of
/// discretionary work.
public struct BusyState: Sendable, Hashable {
    /// Where a reading came from, most telling first.
    public enum Source: Sendable, Hashable {
        /// The CPU pressure (PSI) of the control group jobrun runs in (its path): what a
        /// container or a systemd unit's CPU limits make it wait, too.
        case controlGroup(String)
        /// The whole system's CPU pressure (`/proc/pressure/cpu`).
        case system
        /// The one-minute load average against the online CPUs: kernels without PSI.
        case loadAverage(cpus: Int)
    }

    public var isBusy: Bool
    public var source: Source
    /// The measure, for people: `CPU pressure 62.5 % over the last minute`, `load 3.61 on 2 CPUs`.
    public var reading: String

    public init(isBusy: Bool, source: Source, reading: String) {
        self.isBusy = isBusy
        self.source = source
        self.reading = reading
    }

    /// A pressure reading is busy from this share of the last minute in which some task waited
    /// for a CPU: half the time, work that can wait would make others wait longer.
    public static let pressureLimit = 50.0

    /// From a CPU pressure file's `some avg60` (percent of the last minute in which at least one
    /// runnable task waited for a CPU): busy at ``pressureLimit`` or more.
    public static func fromPressure(someAverage60 share: Double, source: Source) -> BusyState {
        BusyState(isBusy: share >= pressureLimit, source: source, reading: "CPU pressure \(percent(share)) % over the last minute")
    }

    /// From the one-minute load average: busy when it reaches the number of online CPUs (every
    /// CPU has a task, on average, and more work queues behind them).
    public static func fromLoad(_ load: Double, cpus: Int) -> BusyState {
        let count = max(1, cpus)
        return BusyState(
            isBusy: load >= Double(count), source: .loadAverage(cpus: count),
            reading: "load \(percent(load)) on \(count) CPU\(count == 1 ? "" : "s")")
    }

    /// `some avg60` of a PSI file (`some avg10=3.19 avg60=26.66 avg300=35.09 total=13806159080`
    /// on its first line); `nil` when the text has none.
    public static func someAverage60(inPressure text: String) -> Double? {
        for line in text.split(separator: "\n") where line.hasPrefix("some ") {
            for field in line.split(separator: " ") where field.hasPrefix("avg60=") {
                return Double(field.dropFirst("avg60=".count)).flatMap { $0.isFinite && $0 >= 0 ? $0 : nil }
            }
        }
        return nil
    }

    /// The one-minute load average of `/proc/loadavg` (`3.61 3.44 3.35 3/94 16495`).
    public static func loadAverage1(in text: String) -> Double? {
        text.split(separator: " ").first.flatMap { Double($0) }.flatMap { $0.isFinite && $0 >= 0 ? $0 : nil }
    }

    /// Two decimals at most, no trailing zeros: `26.66`, `50`, `3.6`.
    static func percent(_ value: Double) -> String {
        let hundredths = (value * 100).rounded() / 100
        // Whole numbers as integers, where an integer can hold them (a file may say anything).
        let isWhole = hundredths == hundredths.rounded(.towardZero) && abs(hundredths) < 1e15
        return isWhole ? String(Int(hundredths)) : String(hundredths)
    }
}
