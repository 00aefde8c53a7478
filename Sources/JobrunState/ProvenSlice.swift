/// A slice's file as it was when its bytes were last proven (hashed, or fetched and verified):
/// its identity on disk (device, inode, size, times) is what a later quick check compares.
public struct ProvenSlice: Sendable, Hashable {
    /// Relative to the output root.
    public var path: String
    public var identity: String
    public var resource: String
    public var size: Int64
    /// `algorithm:hex` of every digest it was proven against.
    public var digests: [String]
    public var device: UInt64
    public var inode: UInt64
    public var mtimeNanoseconds: Int64
    public var ctimeNanoseconds: Int64
    public var provenAtMilliseconds: Int64
    /// Proven by a fetch (true) or by hashing what was on disk (false).
    public var fetched: Bool
    public var runID: String

    public init(
        path: String, identity: String, resource: String, size: Int64, digests: [String], device: UInt64, inode: UInt64,
        mtimeNanoseconds: Int64, ctimeNanoseconds: Int64, provenAtMilliseconds: Int64, fetched: Bool, runID: String
    ) {
        self.path = path
        self.identity = identity
        self.resource = resource
        self.size = size
        self.digests = digests
        self.device = device
        self.inode = inode
        self.mtimeNanoseconds = mtimeNanoseconds
        self.ctimeNanoseconds = ctimeNanoseconds
        self.provenAtMilliseconds = provenAtMilliseconds
        self.fetched = fetched
        self.runID = runID
    }
}
