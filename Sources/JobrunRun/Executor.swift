import JobrunCore
import JobrunManifest
public import JobrunPlan
import Foundation
public import JobrunFetch
import JobrunVerify
import Synchronization

/// Options of one `apply` run.
public struct ApplyOptions: Sendable {
    /// Extra trust anchors for TLS (`--cacert`).
    public var caFile: String?
    /// `file://` URLs were allowed when the manifests were read.
    public var allowsFileURLs = false
    /// How often a progress line is written on long runs (`nil`: never).
    public var progressInterval: Duration? = .seconds(5)
    /// Random numbers in `[0, 1)` for backoff jitter.
    public var random: @Sendable () -> Double = { Double.random(in: 0..<1) }
    /// Where resource and failure lines go (stdout) and progress lines go (stderr).
    public var output: @Sendable (String) -> Void = { _ in }
    public var progress: @Sendable (String) -> Void = { _ in }

    public init() {}
}

/// Runs a plan: one queue of every runnable slice in plan order, per-host and total limits,
/// retries with backoff, resume, verification and durable commits. One coordinator thread (the
/// caller of ``run()``) owns all state; the curl engine's thread only streams bytes into files and
/// posts completions.
public final class Executor: Sendable {
    let plan: Plan
    let options: ApplyOptions
    private let events = Mutex<[Event]>([])
    private let wakeup = DispatchSemaphore(value: 0)
    private let interruption = Mutex<Int32?>(nil)

    enum Event: Sendable {
        case transferDone(job: Int, token: UInt64, result: TransferResult)
    }

    public init(plan: Plan, options: ApplyOptions) {
        self.plan = plan
        self.options = options
    }

    /// Asks the run to stop: no new slices start, transfers are aborted, partial files are kept.
    /// Safe from any thread (a signal source, say).
    public func interrupt(signal: Int32) {
        interruption.withLock { if $0 == nil { $0 = signal } }
        wakeup.signal()
    }

    func post(_ event: Event) {
        events.withLock { $0.append(event) }
        wakeup.signal()
    }

    func takeEvents() -> [Event] {
        events.withLock { list in
            let taken = list
            list = []
            return taken
        }
    }

    var interruptedBy: Int32? { interruption.withLock { $0 } }

    /// Runs to completion (or interruption) on the calling thread.
    public func run() throws(EngineError) -> ApplyResult {
        let engine = try CurlEngine()
        defer { engine.shutdown() }
        var coordinator = Coordinator(executor: self, engine: engine)
        return coordinator.run()
    }

    func wait(until deadline: ContinuousClock.Instant?) {
        guard let deadline else {
            wakeup.wait()
            return
        }
        let remaining = deadline - ContinuousClock.now
        if remaining <= .zero { return }
        let (s, atto) = remaining.components
        let nanos = Int(min(s, 3600)) * 1_000_000_000 + Int(atto / 1_000_000_000)
        _ = wakeup.wait(timeout: .now() + .nanoseconds(nanos))
    }
}
