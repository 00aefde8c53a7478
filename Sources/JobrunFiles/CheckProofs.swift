public import JobrunState

/// How a plan or a verification found the present files correct, and what the mirror states
/// should learn from it.
public struct CheckProofs: Sendable {
    /// Files that passed by being read and hashed.
    public var hashed = 0
    /// Files that passed without being read: unchanged since their recorded proof.
    public var recognized = 0

    /// `; 12 proven by hashing, 176 unchanged since proven` for a summary line (before its
    /// period); empty when no file passed either way.
    public var summaryClause: String {
        switch (hashed, recognized) {
        case (0, 0): ""
        case (_, 0): "; \(hashed) proven by hashing"
        default: "; \(hashed) proven by hashing, \(recognized) unchanged since proven"
        }
    }
    /// What this check proved (hashed, or checked by size where no digest is declared), by output
    /// root: to record.
    public var proven: [String: [ProvenSlice]] = [:]
    /// Paths, by output root, whose record no longer describes the file there (it is missing,
    /// different, or not proven): to forget, before a run replaces them.
    public var stale: [String: [String]] = [:]

    public init() {}

    /// How many files passed by being read, counted from the checks alone (a check made without
    /// a ``MirrorMemory``, which reads every file it needs to).
    public static func hashedCount(_ expectations: [FileExpectation], _ checks: [FileCheck]) -> Int {
        zip(expectations, checks).reduce(0) { $0 + ($1.0.isHashed && $1.1.isOK ? 1 : 0) }
    }
}
