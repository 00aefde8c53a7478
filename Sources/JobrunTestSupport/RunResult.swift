/// How a child process ended and what it printed. Equal results ended and printed the same;
/// what was measured of the run (``cpuTime``, ``exitTime``) is not compared.
public struct RunResult: Hashable, Sendable, CustomStringConvertible {
    /// The exit status, or 128 + the signal number when a signal ended the process (as shells
    /// do); -1 if the status could not be collected (explained at the end of ``stderr``).
    public var status: Int32
    public var stdout: String
    public var stderr: String
    /// The signal that ended the process, if one did.
    public var signal: Int32?
    /// The process outlived its timeout and was killed.
    public var hasTimedOut: Bool
    /// The CPU time the process used, user and system (its `wait4` usage); `nil` when not known.
    public var cpuTime: Duration?
    /// When its exit was collected, in seconds on `CLOCK_MONOTONIC`: the fault server's clock
    /// (``LoggedRequest/time``), so a test can time what the server saw against the client's end.
    public var exitTime: Double?

    public init(status: Int32, stdout: String, stderr: String, signal: Int32? = nil, hasTimedOut: Bool = false) {
        self.status = status
        self.stdout = stdout
        self.stderr = stderr
        self.signal = signal
        self.hasTimedOut = hasTimedOut
    }

    public static func == (a: RunResult, b: RunResult) -> Bool {
        (a.status, a.stdout, a.stderr, a.signal, a.hasTimedOut) == (b.status, b.stdout, b.stderr, b.signal, b.hasTimedOut)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(status)
        hasher.combine(stdout)
        hasher.combine(stderr)
        hasher.combine(signal)
        hasher.combine(hasTimedOut)
    }

    /// Everything, for a test failure message.
    public var description: String {
        var head = "exit status \(status)"
        if let signal { head += " (signal \(signal))" }
        if hasTimedOut { head += " (killed after timeout)" }
        return "\(head)\n--- stdout ---\n\(stdout)\n--- stderr ---\n\(stderr)"
    }
}

/// A child process could not be started.
public struct ProcessLaunchError: Error, Sendable, CustomStringConvertible {
    public var executable: String
    public var message: String

    public var description: String { "cannot run \(executable): \(message)" }
}
