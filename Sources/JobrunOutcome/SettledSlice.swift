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
    /// What the origin said identifies the version it sent or confirmed (ETag, Last-Modified),
    /// for a slice fetched or revalidated.
    public var validators: OriginValidators {
        get { word?.validators ?? OriginValidators() }
        set { word = newValue.isEmpty && confirmed == nil ? nil : OriginsWord(validators: newValue, confirmed: confirmed) }
    }
    /// For a 304 to a revalidation: the recorded identity of the file it confirmed (the mirror
    /// state's record is renewed only while it still has it).
    public var confirmed: FileIdentity? {
        get { word?.confirmed }
        set { word = validators.isEmpty && newValue == nil ? nil : OriginsWord(validators: validators, confirmed: newValue) }
    }
    /// Boxed: only slices without a digest carry it, and every observer copies the event.
    private var word: OriginsWord?

    private final class OriginsWord: Sendable {
        let validators: OriginValidators
        let confirmed: FileIdentity?
        init(validators: OriginValidators, confirmed: FileIdentity?) {
            self.validators = validators
            self.confirmed = confirmed
        }
    }

    public init(slice: SliceRef, outcome: SliceOutcome, integrity: SliceIntegrity, isBulk: Bool, index: Int? = nil, file: FileIdentity? = nil) {
        self.slice = slice
        self.outcome = outcome
        self.integrity = integrity
        self.isBulk = isBulk
        self.index = index
        self.file = file
    }
}
