import ArgumentParser
import JobrunCore
import JobrunManifest
import JobrunOutcome
import JobrunReport
import JobrunSystem
import Synchronization

/// `--metrics-file FILE` on `apply`, `verify` and `status`: the run in the Prometheus text format
/// (``MetricsReport``), written atomically once the exit status is known, whichever way the
/// command ends.
struct MetricsOption: ParsableArguments {
    @Option(
        name: .customLong("metrics-file"),
        help: ArgumentHelp(
            "Write the run's metrics in the Prometheus text format, atomically, for node_exporter's textfile collector (name it *.prom).",
            valueName: "file"))
    var metricsFile: String?

    @Option(
        name: .customLong("metrics-label"),
        help: ArgumentHelp(
            "A label every metric of --metrics-file has, NAME=VALUE (mirror=debian): runs over other manifests write series of their own.",
            valueName: "name=value"))
    var metricsLabels: [String] = []

    /// Labels jobrun's own series have: another label of one of these names would clash.
    static let reservedLabels: Set<String> = ["command", "resource", "state", "origin", "run_id", "version", "stop_reason", "job", "instance"]

    func validate() throws {
        if metricsFile?.isEmpty == true { throw ValidationError("--metrics-file needs a file name") }
        if !metricsLabels.isEmpty, metricsFile == nil { throw ValidationError("--metrics-label needs --metrics-file") }
        var seen = Set<String>()
        for text in metricsLabels {
            guard let (name, value) = Self.label(text), !value.isEmpty else {
                throw ValidationError(
                    "--metrics-label '\(text)': expected NAME=VALUE, NAME a Prometheus label name (letters, digits and '_', not starting with a digit or '__') and VALUE not empty"
                )
            }
            if Self.reservedLabels.contains(name) { throw ValidationError("--metrics-label '\(text)': '\(name)' is a label jobrun's metrics already have") }
            if !seen.insert(name).inserted { throw ValidationError("--metrics-label: '\(name)' is given twice") }
        }
    }

    /// `NAME=VALUE` split, when NAME is a label name Prometheus takes.
    static func label(_ text: String) -> (String, String)? {
        guard let equals = text.firstIndex(of: "=") else { return nil }
        let name = String(text[..<equals])
        let bytes = Array(name.utf8)
        guard let first = bytes.first, !name.hasPrefix("__"),
            first == UInt8(ascii: "_") || (first | 0x20 >= UInt8(ascii: "a") && first | 0x20 <= UInt8(ascii: "z")),
            bytes.allSatisfy({ $0 == UInt8(ascii: "_") || ($0 | 0x20 >= UInt8(ascii: "a") && $0 | 0x20 <= UInt8(ascii: "z")) || ($0 >= 0x30 && $0 <= 0x39) })
        else { return nil }
        return (name, String(text[text.index(after: equals)...]))
    }

    /// A run's metrics with the labels given; its end is stamped when it is written.
    func metrics(command: String, runID: String) -> RunMetrics {
        var metrics = RunMetrics(command: command, runID: runID, endedAtMilliseconds: 0)
        metrics.labels = metricsLabels.compactMap(Self.label)
        return metrics
    }

    /// Writes `metrics`, ended now with `exitStatus` after a run that started at `started`, over
    /// the file, carrying over what the file it replaces says of the last successes
    /// (``MetricsReport``). A file that cannot be written is a failed report (exit 74).
    func write(_ run: RunMetrics, exitStatus: Int32, stopReason: String? = nil, started: ContinuousClock.Instant) {
        guard let path = metricsFile else { return }
        var metrics = run
        metrics.endedAtMilliseconds = RunID.milliseconds()
        metrics.duration = ContinuousClock.now - started
        metrics.exitStatus = exitStatus
        metrics.stopReason = stopReason
        OutputFiles.prepareParent(of: path)
        let previous: [PrometheusSample]
        if case .success(let bytes) = FileReader.read(path, limit: 16 << 20) { previous = PrometheusSample.read(bytes) } else { previous = [] }
        Reports.attempt("the metrics file '\(path)'") { try AtomicFile.write(MetricsReport.render(metrics, previous: previous), to: path) }
    }

    /// What the run's metrics will say, filled in as the command goes, and written at its end
    /// (``CommandRun/atEnd(_:)``), or when a signal ends the process at once; `nil` without
    /// `--metrics-file`.
    func collect(for run: CommandRun) -> MetricsCollector? {
        guard metricsFile != nil else { return nil }
        let collector = MetricsCollector()
        let started = ContinuousClock.now
        let (command, runID) = (run.command, run.runID)
        let ending: @Sendable (Int32, String?) -> Void = { [self] status, stopReason in
            var metrics = self.metrics(command: command, runID: runID)
            collector.parts.withLock { parts in
                metrics.resources = parts.resources
                metrics.refusedCatalogs = parts.refusedCatalogs
                metrics.origins = parts.origins
            }
            write(metrics, exitStatus: status, stopReason: stopReason, started: started)
        }
        run.atEnd { end in ending(end.exitStatus, end.stopReason?.code) }
        SignalHandling.exitAfterLastWords { signal in ending(StopReason.signal(signal).exitStatus.rawValue, StopReason.signal(signal).code) }
        return collector
    }
}

/// The parts of a run's metrics that its command learns as it goes.
final class MetricsCollector: Sendable {
    struct Parts {
        var resources: [RunMetrics.Resource] = []
        var refusedCatalogs: [String] = []
        var origins: [OriginUsageReport] = []
    }

    let parts = Mutex(Parts())

    func refused(_ resources: [String]) {
        parts.withLock { $0.refusedCatalogs = resources }
    }
}
