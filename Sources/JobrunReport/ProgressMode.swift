/// How a run shows its progress on stderr, as asked (`--progress`, `JOBRUN_PROGRESS`).
public enum ProgressMode: String, Sendable, CaseIterable {
    /// `tty` on a terminal a person watches, `plain` anywhere else (``ProgressOutput/choose(_:)``).
    case auto
    case tty
    case plain
    case none
}
