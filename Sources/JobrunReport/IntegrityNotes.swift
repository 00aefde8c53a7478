public import JobrunCore
public import JobrunManifest
public import JobrunOutcome

/// What the JUnit reports of `verify` and `apply` say of slices that passed without a digest,
/// and of slices that passed at one of their URLs after failing at others.
///
/// The Ant schema allows nothing but `<failure>`, `<error>` or `<skipped>` inside a
/// `<testcase>`, so a passed test case cannot carry a note of its own: the suite's
/// `<system-out>` lists them instead, a line per slice, named as its test case is.
public struct IntegrityNotes: Sendable {
    private var text = ""

    public init() {}

    /// Notes `path` when `integrity` is not `.digest`; `sha256` is the file's, when known;
    /// `lengthUndeclared`: its response declared no length (so nothing at all bounded it).
    public mutating func note(_ path: String, _ integrity: SliceIntegrity, sha256: Digest? = nil, lengthUndeclared: Bool = false) {
        guard integrity != .digest else { return }
        let why = lengthUndeclared && integrity == .unverified ? "\(integrity.explanation), and the response declared no length" : integrity.explanation
        text += "\(integrity.word) (\(why)): \(path)"
        if let sha256 { text += ", sha256 \(sha256.hex)" }
        text += "\n"
    }

    /// Notes `path`, served by `url`, when attempts at its other URLs failed first (`failedAt`,
    /// a line each: ``ApplyReports/failedAtLine(url:type:message:)``).
    public mutating func note(_ path: String, servedBy url: String, after failedAt: [String]) {
        guard !failedAt.isEmpty else { return }
        text += "served by \(url) after \(failedAt.count) failed \(failedAt.count == 1 ? "attempt" : "attempts"): \(path)\n"
        for line in failedAt { text += "  failed at: \(line)\n" }
    }

    /// Notes `path`, asked of its origin again (`refresh:`), and what that came to.
    public mutating func note(_ path: String, revalidated: RevalidationResult) {
        let what =
            switch revalidated {
            case .notModified: "unchanged (304 Not Modified)"
            case .sameBytes: "unchanged (the same bytes came again)"
            case .replaced: "replaced by the origin's new version"
            }
        text += "revalidated, \(what): \(path)\n"
    }

    /// Notes a file the run's prune moved to the trash.
    public mutating func note(pruned file: PruneReport.File) {
        guard let trash = file.trashPath else { return }
        text += "pruned\(file.planned.isForeign ? " (not jobrun's)" : ""): \(file.planned.path), to \(trash)\n"
    }

    /// The suite's `<system-out>` text, `nil` when nothing was noted.
    public var systemOut: String? { text.isEmpty ? nil : text }
}
