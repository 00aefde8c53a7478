/// What asking the origin again (`refresh:`) came to for a slice whose file was in place.
public enum RevalidationResult: String, Sendable, Hashable, CaseIterable {
    /// A 304 to the conditional request: the file is the origin's current version; no body came.
    case notModified = "not_modified"
    /// A body came (the origin sent no validator, `refresh: always`, or another validator) and
    /// its bytes are the file's: the file stays as it was.
    case sameBytes = "same_bytes"
    /// A body came whose bytes differ: it replaced the file, atomically.
    case replaced

    /// The file in place was kept.
    public var isUnchanged: Bool { self != .replaced }
}
