public import JobrunCore

/// Why a run stopped before its end: the slices it had not finished are left for the next run.
public enum StopReason: Sendable, Hashable {
    /// SIGINT or SIGTERM.
    case signal(Int32)
    /// The run's deadline (`--deadline`) came, or was too close to start more.
    case deadline
    /// The network stayed gone for `--offline-wait`: no origin with work answered.
    case offline

    /// 130 for SIGINT, 143 for SIGTERM (as a shell reports a process killed by them), 75 for the
    /// deadline and for the network staying offline (temporary: the same command continues the
    /// work).
    public var exitStatus: ExitStatus {
        switch self {
        case .signal(let s): s == SIGTERM ? .terminated : .interrupted
        case .deadline, .offline: .locked
        }
    }

    /// `signal`, `deadline`, `offline`: the stop reason's name in JSON and events.
    public var code: String {
        switch self {
        case .signal: "signal"
        case .deadline: "deadline"
        case .offline: "offline"
        }
    }

    /// `SIGINT`, `SIGTERM`, `signal 1`, `the deadline`, `the network staying offline`: as a
    /// sentence names it.
    public var description: String {
        switch self {
        case .signal(let s): Self.signalName(s)
        case .deadline: "the deadline"
        case .offline: "the network staying offline"
        }
    }

    public static func signalName(_ signal: Int32) -> String {
        signal == SIGTERM ? "SIGTERM" : signal == SIGINT ? "SIGINT" : "signal \(signal)"
    }

    /// The signal, when one stopped the run.
    public var signal: Int32? {
        if case .signal(let s) = self { return s }
        return nil
    }
}
