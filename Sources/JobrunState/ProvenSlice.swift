public import JobrunCore
public import JobrunSystem

/// A slice's file as it was when its bytes were last proven (hashed, or fetched and verified):
/// what the store records, and what a later quick check compares the file with.
public struct ProvenSlice: Sendable, Hashable {
    /// Relative to the output root.
    public var path: String
    public var resource: String
    /// Every digest the bytes were proven against (none for a slice that declares none).
    public var digests: [Digest]
    /// The file's identity (its size included) when it was proven.
    public var file: FileIdentity
    /// When `file` was taken (wall clock, ns since the epoch).
    public var seenAtNanoseconds: Int64
    /// Whether any later write would have changed `file`, as it was seen
    /// (``FileIdentity/isSettled(seen:)``): only then may a quick check trust it.
    public var isSettled: Bool
    public var provenAtMilliseconds: Int64
    /// Set when this proof followed a fetch; a later proof by hashing keeps it while the file
    /// stays the same (device and inode) or holds the same bytes (size and digests).
    public var fetchedAtMilliseconds: Int64?
    /// What the origin said identifies the version (``ProvenFile/validators``).
    public var validators = OriginValidators()
    /// When the origin last vouched for these bytes: set by a fetch or a revalidation, `nil` for a
    /// proof by hashing (which keeps the record's while the file is the same).
    public var confirmedAtMilliseconds: Int64?

    public init(
        path: String, resource: String, digests: [Digest], file: FileIdentity, seenAtNanoseconds: Int64, settled: Bool? = nil,
        provenAtMilliseconds: Int64, fetchedAtMilliseconds: Int64?
    ) {
        self.path = path
        self.resource = resource
        self.digests = digests
        self.file = file
        self.seenAtNanoseconds = seenAtNanoseconds
        // Without a judgement made at the look, the wall clock's step judges.
        isSettled = settled ?? file.isSettled(at: seenAtNanoseconds)
        self.provenAtMilliseconds = provenAtMilliseconds
        self.fetchedAtMilliseconds = fetchedAtMilliseconds
    }
}
