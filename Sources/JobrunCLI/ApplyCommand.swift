import ArgumentParser
import Dispatch
import Synchronization
import JobrunCore
import JobrunManifest
import JobrunPlan
import JobrunReport
import JobrunOutcome
import JobrunRun


struct ApplyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "apply",
        abstract: "Fetch every slice the plan says is missing or wrong, verify it, and commit it atomically.",
        discussion: """
            Takes manifests, or a plan saved with 'jobrun plan --out FILE' (refused
            when stale unless --refresh). Slices stream into a partial file beside
            their destination, are checked against their size and digests, and
            are renamed into place; a final path holds a verified file or nothing.
            The last line is stable: 'Apply complete!' (every slice verified),
            'Apply failed!' (some failed) or 'Apply interrupted!' (a signal), then
            the same counts, for example:
              Apply complete! Slices: 412 fetched (26.3 MiB), 3 resumed,
              188 up to date, 0 failed, 0 deferred.
            When slices that passed declare no digest ('size only' or
            'unverified'), a clause goes before the period:
              ...; 6 without digests (2 size only, 4 unverified).
            What was fetched for them is hashed anyway: --json reports its
            SHA-256 ('computed_digests'), and --record-sums FILE pins every
            file in place for later runs (use the list as 'slices_from').
            One apply at a time per output root: while another holds it, apply
            exits 75 before planning or fetching anything (--lock-timeout waits).
            Before any request, the known sizes to fetch are checked against the
            free space of each output root's file system, less a margin (1%, at
            least 64 MiB, at most a tenth of it): exit 74 when they do not fit.
            Exit status 0 when every slice is verified, 1 when any failed.
            """)

    @OptionGroup var manifestOptions: ManifestOptions

    @Flag(name: .long, help: "Apply a stale saved plan anyway, re-planning against the current manifests and mirror.")
    var refresh = false

    @Option(name: .long, help: ArgumentHelp("Trust the CA certificates in this PEM file too (private CAs).", valueName: "file"))
    var cacert: String?

    @Flag(name: .long, help: "Write a versioned JSON summary, one record per slice, to stdout.")
    var json = false

    @Flag(name: .customLong("no-space-check"), help: "Start even when the known sizes to fetch exceed the free space (less a margin).")
    var noSpaceCheck = false

    @Option(name: .long, help: ArgumentHelp("Write a JUnit XML report: a test suite per resource, a test case per slice.", valueName: "file"))
    var junit: String?

    @Flag(name: .customLong("require-digests"), help: ArgumentHelp.requireDigests)
    var requireDigests = false

    @Option(name: .customLong("record-sums"), help: RecordSums.help)
    var recordSums: String?

    @Option(name: .customLong("lock-timeout"), help: ArgumentHelp(
        "How long to wait while another apply holds an output root (30s, 5m, 1h30m); without it, exit 75 at once.",
        valueName: "duration"))
    var lockTimeout: String?

    /// `--lock-timeout` as a duration: zero without the option, `nil` when it is not a duration.
    var lockWait: Duration? {
        guard let lockTimeout else { return .zero }
        return try? Duration.milliseconds(DurationParser.milliseconds(lockTimeout).get())
    }

    @Option(name: .customLong("limit-rate"), help: ArgumentHelp(
        "Cap the whole run's download rate, all transfers together (500K, 1M, 2.5MiB/s: bytes per second; K, M, G are powers of 1024).",
        valueName: "rate"))
    var limitRate: String?

    /// `--limit-rate` as a rate; `nil` without the option (`validate()` refuses anything else).
    var rateLimit: ByteRate? { limitRate.flatMap { try? ByteRate.parse($0).get() } }

    func validate() throws {
        if recordSums?.isEmpty == true { throw ValidationError("--record-sums needs a file name") }
        if let lockTimeout, lockWait == nil {
            throw ValidationError("--lock-timeout: '\(lockTimeout)' is not a duration (for example 30s, 5m, 1h30m)")
        }
        if let limitRate, case .failure(let error) = ByteRate.parse(limitRate) {
            throw ValidationError("--limit-rate: '\(limitRate)' is not a rate: \(error) (bytes per second, for example 500K, 1M, 2.5MiB/s; K, M, G are powers of 1024)")
        }
    }

    func run() throws {
        let preparation = Executor.startPreparingLibraries()
        // Before any exit, error or not (see `startPreparingLibraries`).
        defer { preparation.wait() }
        var stderr = StandardError()
        let manifest: Manifest
        let saved = try SavedPlan.loadIfPlanFile(manifestOptions.manifests)
        if let saved {
            var options = manifestOptions
            options.manifests = saved.manifestPaths
            options.output = saved.outputOverride
            options.allowFileURLs = saved.allowFileURLs
            manifest = try options.load(fingerprinting: true, requiringDigests: requireDigests)
        } else {
            manifest = try manifestOptions.load(requiringDigests: requireDigests)
        }
        let sums = recordSums.map(RecordSums.init(template:))
        try sums?.check(manifest)
        // Before planning: what another run is writing would be planned against otherwise.
        let lock = try lockOutputRoots(of: manifest)
        defer { lock.release() }
        let plan = Planner.plan(for: manifest)
        if let saved, let staleness = saved.staleness(against: manifest, plan: plan), !refresh {
            print("jobrun: error: the saved plan is stale: \(staleness); run 'jobrun plan' again, or apply with --refresh", to: &stderr)
            throw ExitCode(ExitStatus.failure.rawValue)
        }
        for warning in plan.warnings { print("jobrun: warning: \(warning)", to: &stderr) }
        if !noSpaceCheck { try refuseUnlessItFits(plan) }

        var options = ApplyOptions()
        options.caFile = cacert
        options.allowsFileURLs = manifestOptions.allowFileURLs
        options.rateLimit = rateLimit
        let quietStdout = json
        options.output = { line in
            if quietStdout { StandardError.write(line) } else { StandardOutput.write(line) }
        }
        options.progress = { line in StandardError.write(line) }
        let started = Date()
        let executor = Executor(plan: plan, options: options)
        let signals = SignalHandling.install { signal in executor.interrupt(signal: signal) }
        defer { signals.cancel() }
        var result: ApplyResult
        do {
            result = try executor.run()
        } catch {
            print("jobrun: error: \(error)", to: &stderr)
            throw ExitCode(ExitStatus.ioError.rawValue)
        }
        if sums != nil {
            // Before the reports, which then show these digests too.
            for problem in result.computeMissingSHA256() { print("jobrun: warning: \(problem)", to: &stderr) }
        }
        if let junit {
            OutputFiles.prepareParent(of: junit)
            do {
                try ReportClock.finish(ApplyReports.junit(result, timestamp: ReportClock.timestamp(started), hostname: ReportClock.hostname)).write(to: junit)
            } catch {
                print("jobrun: error: cannot write the JUnit report: \(error)", to: &stderr)
                throw ExitCode(ExitStatus.ioError.rawValue)
            }
        }
        try sums?.write(result.checksumLists)
        let skipped = result.counts.skipped
        if skipped > 0 {
            options.output("Skipped: \(skipped) slice\(skipped == 1 ? "" : "s") not attempted (a dependency failed, or the run was interrupted).\n")
        }
        if json {
            StandardOutput.write(bytes: ApplyReports.json(result))
            StandardError.write(result.summaryLine + "\n")
        } else {
            StandardOutput.write(result.summaryLine + "\n")
        }
        if let signal = result.interruptedBy {
            throw ExitCode(signal == SIGTERM ? ExitStatus.terminated.rawValue : ExitStatus.interrupted.rawValue)
        }
        if !result.isSuccess { throw ExitCode(ExitStatus.failure.rawValue) }
    }
}

extension ApplyCommand {
    /// A pre-flight step: the known sizes to fetch must fit each output file system's free space
    /// less its margin (``SpaceCheck``), before the first request.
    /// - Throws: `ExitCode` 74, after a line per file system that lacks room.
    func refuseUnlessItFits(_ plan: Plan) throws {
        let shortages = plan.space.compactMap(\.shortage)
        guard !shortages.isEmpty else { return }
        for shortage in shortages {
            StandardError.write("jobrun: error: \(shortage); nothing was requested (--no-space-check skips this check)\n")
        }
        throw ExitCode(ExitStatus.ioError.rawValue)
    }

    /// Locks every output root the manifests write to (``OutputLock``), waiting up to
    /// `--lock-timeout`.
    /// - Throws: `ExitCode` 75 when a root stays locked.
    func lockOutputRoots(of manifest: Manifest) throws -> OutputLock {
        let timeout = lockWait ?? .zero  // `validate()` refused anything else
        let roots = manifest.resources.map(\.outputRoot)
        do {
            let lock = try OutputLock.acquire(roots: roots, timeout: timeout) { root, holder in
                StandardError.write("jobrun: waiting up to \(lockTimeout ?? "") for the output root '\(root)', locked by \(holder?.description ?? "another process")\n")
            }
            for warning in lock.warnings { StandardError.write("jobrun: warning: \(warning)\n") }
            return lock
        } catch {
            let hint = timeout == .zero ? " (--lock-timeout DURATION waits for it)" : ""
            StandardError.write("jobrun: error: \(error.message); nothing was planned or fetched\(hint)\n")
            throw ExitCode(ExitStatus.locked.rawValue)
        }
    }
}

/// SIGINT and SIGTERM stop a run cleanly (partials kept, reports written, exit 130/143); a second
/// signal exits at once.
enum SignalHandling {
    /// Dispatch sources are thread-safe; they are only cancelled, once, at the end of the run.
    final class Sources: @unchecked Sendable {
        let sources: [any DispatchSourceSignal]
        init(_ s: [any DispatchSourceSignal]) { sources = s }
        func cancel() { for s in sources { s.cancel() } }
    }

    static func install(_ handler: @escaping @Sendable (Int32) -> Void) -> Sources {
        let queue = DispatchQueue(label: "jobrun-signals")
        var sources: [any DispatchSourceSignal] = []
        for sig in [SIGINT, SIGTERM] {
            signal(sig, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: sig, queue: queue)
            let count = SignalCounter()
            source.setEventHandler {
                if count.increment() > 1 { _exit(sig == SIGTERM ? 143 : 130) }
                StandardError.write("jobrun: stopping (signal \(sig)); partial files are kept; a second signal exits at once\n")
                handler(sig)
            }
            source.resume()
            sources.append(source)
        }
        return Sources(sources)
    }
}

final class SignalCounter: Sendable {
    private let count = Mutex(0)
    func increment() -> Int {
        count.withLock { value in
            value += 1
            return value
        }
    }
}
