import ArgumentParser
import JobrunCore

/// How `apply` transfers, besides the concurrency (``ConcurrencyOptions``): trust, rate, the wait
/// for another run's lock and the free-space check.
struct TransferOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("Trust the CA certificates in this PEM file too (private CAs).", valueName: "file"))
    var cacert: String?

    @Option(
        name: .customLong("limit-rate"),
        help: ArgumentHelp(
            "Cap the whole run's download rate, all transfers together (500K, 1M, 2.5MiB/s: bytes per second; K, M, G are powers of 1024).",
            valueName: "rate"))
    var limitRate: String?

    @Option(
        name: .customLong("lock-timeout"),
        help: ArgumentHelp(
            "How long to wait while another apply holds an output root (30s, 5m, 1h30m); without it, exit 75 at once.",
            valueName: "duration"))
    var lockTimeout: String?

    @Flag(name: .customLong("no-space-check"), help: "Start even when the known sizes to fetch exceed the free space (less a margin).")
    var noSpaceCheck = false

    /// `--lock-timeout` as a duration: zero without the option, `nil` when it is not a duration.
    var lockWait: Duration? {
        guard let lockTimeout else { return .zero }
        return try? Duration.milliseconds(DurationParser.milliseconds(lockTimeout).get())
    }

    /// `--limit-rate` as a rate; `nil` without the option (`validate()` refuses anything else).
    var rateLimit: ByteRate? { limitRate.flatMap { try? ByteRate.parse($0).get() } }

    func validate() throws {
        if let lockTimeout, lockWait == nil {
            throw ValidationError("--lock-timeout: '\(lockTimeout)' is not a duration (for example 30s, 5m, 1h30m)")
        }
        if let limitRate, case .failure(let error) = ByteRate.parse(limitRate) {
            throw ValidationError(
                "--limit-rate: '\(limitRate)' is not a rate: \(error) (bytes per second, for example 500K, 1M, 2.5MiB/s; K, M, G are powers of 1024)")
        }
    }
}
