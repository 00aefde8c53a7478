/// How a child process ended and what it printed.
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

    public init(status: Int32, stdout: String, stderr: String, signal: Int32? = nil, hasTimedOut: Bool = false) {
        self.status = status
        self.stdout = stdout
        self.stderr = stderr
        self.signal = signal
        self.hasTimedOut = hasTimedOut
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
