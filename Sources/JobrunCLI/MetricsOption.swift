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

    func validate() throws {
        if metricsFile?.isEmpty == true { throw ValidationError("--metrics-file needs a file name") }
    }

    /// Writes `metrics` over the file, carrying over what the file it replaces says of the last
    /// successes (``MetricsReport``). A file that cannot be written is a failed report (exit 74).
    func write(_ metrics: RunMetrics) {
        guard let path = metricsFile else { return }
        OutputFiles.prepareParent(of: path)
        let previous: [PrometheusSample]
        if case .success(let bytes) = FileReader.read(path, limit: 16 << 20) { previous = PrometheusSample.read(bytes) } else { previous = [] }
        Reports.attempt("the metrics file '\(path)'") { try AtomicFile.write(MetricsReport.render(metrics, previous: previous), to: path) }
    }

    /// What the run's metrics will say, filled in as the command goes, and written at its end
    /// (``CommandRun/atEnd(_:)``); `nil` without `--metrics-file`.
    func collect(for run: CommandRun) -> MetricsCollector? {
        guard metricsFile != nil else { return nil }
        let collector = MetricsCollector()
        let started = ContinuousClock.now
        run.atEnd { end in
            var metrics = RunMetrics(command: run.command, runID: run.runID, endedAtMilliseconds: RunID.milliseconds())
            metrics.exitStatus = end.exitStatus
            metrics.stopReason = end.stopReason?.code
            metrics.duration = ContinuousClock.now - started
            collector.parts.withLock { parts in
                metrics.resources = parts.resources(metrics.endedAtMilliseconds)
                metrics.refusedCatalogs = parts.refusedCatalogs
                metrics.origins = parts.origins
            }
            write(metrics)
        }
        return collector
    }
}

/// The parts of a run's metrics that its command learns as it goes.
final class MetricsCollector: Sendable {
    struct Parts {
        /// The resources as they ended, given the time the run ended.
        var resources: @Sendable (Int64) -> [RunMetrics.Resource] = { _ in [] }
        var refusedCatalogs: [String] = []
        var origins: [OriginUsageReport] = []
    }

    let parts = Mutex(Parts())

    func refused(_ catalogs: [CatalogReport]) {
        parts.withLock { $0.refusedCatalogs = catalogs.filter { $0.state == .refused }.map(\.resource) }
    }
}
