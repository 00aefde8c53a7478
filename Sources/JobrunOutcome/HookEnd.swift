public import JobrunManifest

/// How a hook ended.
public struct HookEnd: Sendable, Hashable {
    public var hook: HookRef
    /// Its exit status, when it exited; `nil` when a signal ended it or it never started.
    public var exitStatus: Int32?
    /// The signal that ended it, when one did.
    public var signal: Int32?
    /// It outlived its timeout: its process group got SIGTERM, then SIGKILL after a grace period.
    public var hasTimedOut: Bool
    /// Why it could not be started (no such program, not executable), when it could not.
    public var launchError: String?
    public var duration: Duration
    /// The end (at most ``HookEnd/tailLimit`` bytes) of what it wrote to stdout and stderr, which
    /// share one pipe; invalid UTF-8 is replaced.
    public var outputTail: String
    /// Every byte it wrote to stdout and stderr, kept in the tail or not.
    public var outputBytes: Int64
    /// What its failure does to the run: a redelivery's is always a warning (its run is over).
    public var policy: HookFailurePolicy
    /// Cut short by jobrun's own stop (a signal): it stays due, and runs again on the next apply.
    public var wasCut: Bool

    public static let tailLimit = 4_096

    public init(
        hook: HookRef, exitStatus: Int32?, signal: Int32?, hasTimedOut: Bool, launchError: String?, duration: Duration,
        outputTail: String, outputBytes: Int64, policy: HookFailurePolicy, wasCut: Bool
    ) {
        self.hook = hook
        self.exitStatus = exitStatus
        self.signal = signal
        self.hasTimedOut = hasTimedOut
        self.launchError = launchError
        self.duration = duration
        self.outputTail = outputTail
        self.outputBytes = outputBytes
        self.policy = policy
        self.wasCut = wasCut
    }

    /// It did not exit with status 0 in its time: a hook that outlived its timeout failed, even
    /// when it then exited 0 on the SIGTERM.
    public var hasFailed: Bool { exitStatus != 0 || hasTimedOut }

    /// A failure that fails the run (``HookFailurePolicy/fail``).
    public var failsRun: Bool { hasFailed && policy == .fail && !wasCut }

    /// `exit status 3`, `killed by SIGKILL after its timeout`, `exit status 0 after its timeout`,
    /// `could not start: …`.
    public var outcome: String {
        if let launchError { return "could not start: \(launchError)" }
        if let exitStatus { return "exit status \(exitStatus)" + (hasTimedOut ? " after its timeout" : "") }
        let name = signal.map(StopReason.signalName) ?? "a signal"
        if hasTimedOut { return "killed by \(name) after its timeout" }
        return wasCut ? "stopped by \(name) with the run" : "killed by \(name)"
    }
}
