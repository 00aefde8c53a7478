/// jobrun's exit statuses: a public contract, documented in the README and tested end to end.
public enum ExitStatus: Int32, Sendable, CaseIterable {
    /// Everything ok, or nothing to do.
    case ok = 0
    /// Failures: a digest or size mismatch, a missing file, failed slices.
    case failure = 1
    /// The plan has changes (only with `--detailed-exitcode`).
    case changesPresent = 2
    /// Bad command line (EX_USAGE).
    case usage = 64
    /// A manifest is invalid (EX_DATAERR).
    case manifestInvalid = 65
    /// A manifest is missing or unreadable (EX_NOINPUT).
    case manifestUnreadable = 66
    /// An I/O error outside the manifests (EX_IOERR).
    case ioError = 74
    /// Another run holds an output root's lock; try again later (EX_TEMPFAIL).
    case locked = 75
    /// Interrupted by SIGINT.
    case interrupted = 130
    /// Terminated by SIGTERM.
    case terminated = 143
}
