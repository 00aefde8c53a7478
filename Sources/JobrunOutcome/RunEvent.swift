public import JobrunCore
public import JobrunManifest
public import JobrunPlan

/// What happened during a run, in the order it happened. Every output of a run — the human log,
/// the progress display, the event stream, the reports — consumes these (``RunObserver``).
public enum RunEvent: Sendable {
    /// The command began; always the first event.
    case runStarted(RunStart)
    /// The plan is made: what the run will do.
    case planned(PlanCounts)
    /// Another run holds an output root; this one waits for it up to `timeout`.
    case lockWaited(root: String, holder: String?, timeout: Duration)
    /// A resource's dependencies are complete: its slices may start.
    case resourceStarted(id: String)
    /// Every slice of the resource is verified and in place, durably.
    case resourceCompleted(id: String, counts: ApplyResult.Counts)
    case resourceFailed(id: String, counts: ApplyResult.Counts, cause: ResourceFailure)
    /// Not attempted: a dependency did not complete.
    case resourceSkipped(id: String, reason: String)
    /// A slice the run worked on reached its end: fetched, resumed, failed or skipped.
    case sliceSettled(SettledSlice)
    /// A slice's attempt failed and it will try again after `delay`.
    case sliceRetrying(SliceRef, failure: AttemptFailure, attempt: Int, delay: Duration)
    /// An origin's circuit breaker changed state (``OriginEvent``).
    case origin(String, OriginEvent)
    /// The run's counters, while transfers run (at most as often as an observer asks).
    case progress(RunProgress)
    /// The run stops starting slices and cancels those in flight.
    case stopRequested(StopReason)
    /// The command ends; always the last event.
    case runEnded(RunEnd)
}

/// Which slice an event is about, as it may be shown (no query, no secret).
public struct SliceRef: Sendable, Hashable {
    public var resource: String
    public var path: String
    /// The URL last used, without query and fragment.
    public var url: String

    public init(resource: String, path: String, url: String) {
        self.resource = resource
        self.path = path
        self.url = url
    }
}

/// A slice at its end, with its outcome.
public struct SettledSlice: Sendable {
    public var slice: SliceRef
    public var outcome: SliceOutcome
    public var integrity: SliceIntegrity
    /// One of many slices that ended together for one reason, told once by another event (an
    /// origin given up on, a full disk, a stopped run).
    public var isBulk: Bool

    public init(slice: SliceRef, outcome: SliceOutcome, integrity: SliceIntegrity, isBulk: Bool) {
        self.slice = slice
        self.outcome = outcome
        self.integrity = integrity
        self.isBulk = isBulk
    }
}

/// Why a resource did not complete.
public enum ResourceFailure: Sendable, Hashable {
    /// `count` of `total` slices failed.
    case slicesFailed(count: Int, total: Int)
    /// The run stopped before `count` of its `total` slices finished.
    case unfinished(count: Int, total: Int)
    /// Its slices are in place but the output folder could not be made durable.
    case syncFailed(message: String)
}

/// An origin's circuit breaker (``OriginBreaker`` in the run module) changing state.
public enum OriginEvent: Sendable, Hashable {
    /// `failures` attempts in a row failed: one probe at a time from now on.
    case tripped(failures: Int, last: String)
    /// A request succeeded again: requests resume.
    case recovered
    /// Its probes failed too: `slicesFailed` waiting slices fail without a request.
    case failing(failures: Int, last: String, slicesFailed: Int)
}

/// The first event's facts.
public struct RunStart: Sendable, Hashable {
    /// `plan`, `apply`, `verify`.
    public var command: String
    public var runID: String
    /// The command line with secrets replaced (``ArgumentRedaction``).
    public var arguments: [String]
    /// The SHA-256 of the manifests' bytes, in the order they were read.
    public var manifestsDigest: String?

    public init(command: String, runID: String, arguments: [String], manifestsDigest: String?) {
        self.command = command
        self.runID = runID
        self.arguments = arguments
        self.manifestsDigest = manifestsDigest
    }
}

/// The last event's facts.
public struct RunEnd: Sendable {
    public var exitStatus: Int32
    public var stopReason: StopReason?
    /// The command's counts, named as in its JSON summary (`fetched`, `failed`, …); empty when
    /// it ended on an error before its summary (a manifest error, a locked root).
    public var counts: [(name: String, value: Int64)]
    /// The command's last human line (`Apply complete! …`); `nil` when it ended on an error
    /// before it (the error went to stderr).
    public var summaryLine: String?
    public var elapsed: Duration

    public init(exitStatus: Int32, stopReason: StopReason?, counts: [(name: String, value: Int64)], summaryLine: String?, elapsed: Duration) {
        self.exitStatus = exitStatus
        self.stopReason = stopReason
        self.counts = counts
        self.summaryLine = summaryLine
        self.elapsed = elapsed
    }
}
