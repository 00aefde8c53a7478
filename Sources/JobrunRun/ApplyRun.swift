import Dispatch
import JobrunCore
import JobrunManifest
public import JobrunPlan
public import JobrunFetch
import JobrunFiles
import Synchronization
public import JobrunOutcome
import JobrunSystem

/// One `apply` run of a plan: it starts the engines and the disk worker, and hands the plan to
/// the driver (``RunDriver``). One queue of every runnable slice in plan order, per-host and total limits,
/// retries with backoff, resume, verification and durable commits. One driver thread (the
/// caller of ``run()``) owns all state. It also drives the first curl engine, the one that moves
/// every plain-HTTP body under 64 KiB or of unknown size and every TLS body under 24 KiB, and
/// sleeps in that engine's poll: a
/// finished transfer is seen without waking another thread (what that saves is in
/// docs/performance.md). Other engines have threads of their own; they only stream
/// bytes and post completions.
public final class ApplyRun: Sendable {
    let plan: Plan
    let options: ApplyOptions
    /// The body bytes every engine's transfers have taken, as they arrive (the run's progress).
    let arrivals = ArrivalCounter()
    /// Events for the driver; only while it sleeps does a poster wake it.
    private let inbox = Mailbox<Event>()
    private let stopRequest = Mutex<StopReason?>(nil)
    /// The engine the driver runs while ``run()`` runs: it sleeps in that engine's poll,
    /// so waking it is a `curl_multi_wakeup`.
    private let drivenEngine = Mutex<CurlEngine?>(nil)

    private func wake() {
        drivenEngine.withLock { $0 }?.wake()
    }

    enum Event: Sendable {
        /// The transfer into `sink` ended (the job's state still holds `sink` unless a stop cut it).
        case transferDone(job: SliceID, sink: BodySink, result: TransferResult)
        /// A file-mode body has `written` bytes on disk: they can be hashed.
        case bodyProgress(job: SliceID, sink: BodySink, written: ByteCount)
        /// The ``DiskWorker`` finished a memory body or performed a commit.
        case stored(DiskWorker.Report)
    }

    public init(plan: Plan, options: ApplyOptions) {
        self.plan = plan
        self.options = options
    }

    /// Asks the run to stop: no new slices start, transfers are aborted, and their partial files
    /// kept when they can be resumed.
    /// Safe from any thread (a signal source, say); the first reason given is the run's.
    public func requestStop(_ reason: StopReason) {
        stopRequest.withLock { if $0 == nil { $0 = reason } }
        wake()
    }

    /// Queues an event without waking the driver: a threaded engine calls
    /// ``wakeIfSleeping()`` once per turn of its loop (`CurlEngine(afterCallbacks:)`), so a turn
    /// that finished ten transfers costs one wakeup, not ten; the driven engine's completions
    /// run on the driver's thread and need none.
    func post(_ event: Event) {
        inbox.post(event, claimingWake: false)
    }

    /// Wakes the driver when it sleeps and events wait.
    func wakeIfSleeping() {
        if inbox.claimWake() { wake() }
    }

    func takeEvents() -> [Event] {
        inbox.take()
    }

    var stopReason: StopReason? { stopRequest.withLock { $0 } }

    /// Starts loading and initializing libcurl, and OpenSSL's digests, on a thread of their own,
    /// so that this work (loading libcurl and its libraries, OpenSSL reading its configuration;
    /// see docs/performance.md) overlaps reading and planning the manifests instead
    /// of preceding them. While `dlopen` runs, a thread the main thread creates waits for it
    /// (glibc's `pthread_create` takes the loader's TLS lock): whatever the main thread does
    /// before its first new thread is what overlaps. Both steps sit behind once-guards, so
    /// an engine or digester created meanwhile waits for them to finish. The main thread may use
    /// OpenSSL at the same time (a saved plan's fingerprints): OpenSSL 3 initializes itself
    /// once, thread-safely, and libcurl 7.88 as Debian builds it has `CURL_VERSION_THREADSAFE`.
    /// Without a thread, nothing happens here and the work is done on first use.
    ///
    /// The caller must `wait()` on the result before the process exits, on every path: `exit`
    /// runs OpenSSL's clean-up handlers, which crash (SIGSEGV, seen in the exit-status tests) when
    /// they meet an initialization still running on the other thread.
    ///
    /// Once per process: a second call returns the first's preparation, so that `main` may start
    /// it before the command line is parsed.
    public static func startPreparingLibraries() -> LibraryPreparation {
        startedPreparation.withLock { started in
            if let started { return started }
            let preparation = LibraryPreparation()
            let failed = DetachedThread.start(name: "jobrun-init") {
                CurlEngine.initializeLibrary()
                Digester.prepareImplementations()
                preparation.finished.signal()
            }
            if failed != nil { preparation.finished.signal() }  // no thread: nothing to wait for
            started = preparation
            return preparation
        }
    }

    private static let startedPreparation = Mutex<LibraryPreparation?>(nil)

    /// Returns once the libraries' preparation, if one was started, has finished: before the
    /// process exits on any path.
    public static func waitForPreparedLibraries() {
        startedPreparation.withLock { $0 }?.wait()
    }

    /// Runs to completion (or until stopped) on the calling thread, which is where `events` go.
    public func run(events: RunEvents) throws(EngineError) -> ApplyResult {
        var engines: [CurlEngine] = []
        defer { for engine in engines { engine.shutdown() } }
        // One budget for every engine: the limit is the run's, not a transfer's or an engine's.
        let budget = options.rateLimit.map { SharedRateBudget(bytesPerSecond: $0.bytesPerSecond) }
        // A connection's streams: the most any resource allows (the scheduler keeps an origin's
        // slots to the fewest of its resources').
        let limits = plan.entries.map(\.resource.settings.concurrency)
        let streams = limits.map(\.streams).max() ?? ConcurrencyLimits().streams
        // An origin's own `per_host` may be the largest.
        let origins = plan.entries.flatMap { entry in
            entry.resource.origins.compactMap { o in
                o.perHost.map {
                    ConcurrencyLimits(total: entry.resource.settings.concurrency.total, perHost: $0, streams: entry.resource.settings.concurrency.streams)
                }
            }
        }
        let connections = HostConnections.limit(for: limits + origins, environment: ProcessEnvironment.value)
        let driven = try CurlEngine.driven(sharing: budget, counting: arrivals, streams: streams, connectionsPerHost: connections)
        engines.append(driven)
        drivenEngine.withLock { $0 = driven }
        defer { drivenEngine.withLock { $0 = nil } }
        for _ in 1..<Self.engineCount {
            engines.append(
                try CurlEngine(
                    sharing: budget, counting: arrivals, streams: streams, connectionsPerHost: connections,
                    afterCallbacks: { [weak self] in self?.wakeIfSleeping() }))
        }
        let disk = try DiskWorker { [weak self] batch in
            guard let self else { return }
            for report in batch { self.post(.stored(report)) }
            self.wakeIfSleeping()
        }
        defer { disk.shutdown() }
        var driver = RunDriver(applyRun: self, events: events, engines: engines, disk: disk)
        return driver.run()
    }

    /// Engines: the driven one moves every plain-HTTP body under 64 KiB or of unknown size and
    /// every TLS body under 24 KiB; larger bodies (whose bytes, not their requests, are the work;
    /// decryption is per byte too) and unsized TLS ones are spread over all of them
    /// (`TransferPlacement.takesTurns`), so that work uses more than one core. Two on a machine with
    /// more than one core (a third, for the shared work alone, measured no faster).
    static let engineCount = ProcessInfo.processInfo.activeProcessorCount > 1 ? 2 : 1

    /// Moves the driven engine's transfers, and sleeps in its poll until a socket is ready, an
    /// event is posted, an interruption arrives or `deadline` passes (at most a second); does
    /// not sleep when events already wait.
    func wait(until deadline: ContinuousClock.Instant?) {
        guard let engine = drivenEngine.withLock({ $0 }) else { return }
        var timeout: Int32 = 1000
        if let deadline {
            let remaining = deadline - ContinuousClock.now
            // Rounded up: waking a millisecond early would only turn the loop for nothing.
            timeout = remaining <= .zero ? 0 : Int32(min(remaining.wholeMilliseconds + 1, 1000))
        }
        engine.turn(
            timeoutMilliseconds: timeout,
            mayPoll: { inbox.mayWait() }, didPoll: { inbox.didWait() })
    }
}
