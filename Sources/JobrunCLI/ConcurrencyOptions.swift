import ArgumentParser
import JobrunManifest

/// `--concurrency N` and `--per-host N` of `plan` and `apply`: every resource's transfer limits,
/// whatever its manifest says (``ConcurrencyOverride``, applied as the manifests are read).
struct ConcurrencyOptions: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp(
            "Slots at once in all (a transfer, or an HTTP/2 connection of 'concurrency.streams' transfers), in place of every resource's 'concurrency.total' (1 to 1024).",
            valueName: "n"))
    var concurrency: Int?

    @Option(
        name: .customLong("per-host"),
        help: ArgumentHelp(
            "Slots at once per scheme://host:port, in place of every resource's 'concurrency.per_host' (1 to 256); fewer for a while at an origin that answers 429 or 503.",
            valueName: "n"))
    var perHost: Int?

    func validate() throws {
        if let concurrency, !ConcurrencyLimits.totalRange.contains(concurrency) {
            throw ValidationError("--concurrency must be a whole number from 1 to 1024, not \(concurrency)")
        }
        if let perHost, !ConcurrencyLimits.perHostRange.contains(perHost) {
            throw ValidationError("--per-host must be a whole number from 1 to 256, not \(perHost)")
        }
    }

    var override: ConcurrencyOverride { ConcurrencyOverride(total: concurrency, perHost: perHost) }
}
