public import JobrunCore
public import JobrunManifest
public import JobrunSystem

/// A slice at its end, with its outcome.
public struct SettledSlice: Sendable {
    public var slice: SliceRef
    public var outcome: SliceOutcome
    public var integrity: SliceIntegrity
    /// One of many slices that ended together for one reason, told once by another event (an
    /// origin given up on, a full disk, a stopped run).
    public var isBulk: Bool
    /// The slice's position in its resource's slices, when known.
    public var index: Int?
    /// The identity of the file a fetch put in place, taken just after its rename (and only if
    /// it was then the file as the fetch closed it); `nil` for anything else.
    public var file: FileIdentity?

    public init(slice: SliceRef, outcome: SliceOutcome, integrity: SliceIntegrity, isBulk: Bool, index: Int? = nil, file: FileIdentity? = nil) {
        self.slice = slice
        self.outcome = outcome
        self.integrity = integrity
        self.isBulk = isBulk
        self.index = index
        self.file = file
    }
}
