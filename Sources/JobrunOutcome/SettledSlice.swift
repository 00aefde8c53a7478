public import JobrunManifest

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
