public import JobrunCore

/// What the store remembers of one file beneath an output root, as a quick check and `status`
/// read it.
public struct ProvenFile: Sendable, Hashable {
    public var file: FileIdentity
    public var digests: ProvenDigests
    public var seenAtNanoseconds: Int64
    public var provenAtMilliseconds: Int64
    public var fetchedAtMilliseconds: Int64?

    public init(file: FileIdentity, digests: ProvenDigests, seenAtNanoseconds: Int64, provenAtMilliseconds: Int64, fetchedAtMilliseconds: Int64?) {
        self.file = file
        self.digests = digests
        self.seenAtNanoseconds = seenAtNanoseconds
        self.provenAtMilliseconds = provenAtMilliseconds
        self.fetchedAtMilliseconds = fetchedAtMilliseconds
    }

    public init(file: FileIdentity, digests: [Digest], seenAtNanoseconds: Int64, provenAtMilliseconds: Int64, fetchedAtMilliseconds: Int64?) {
        self.init(
            file: file, digests: ProvenDigests(digests), seenAtNanoseconds: seenAtNanoseconds, provenAtMilliseconds: provenAtMilliseconds,
            fetchedAtMilliseconds: fetchedAtMilliseconds)
    }

    /// The identity a file must still have to be taken as holding bytes of `size` with every one
    /// of `digests`, without being read; `nil` when this record cannot say so. A pure rule:
    ///
    /// | the record                                               | result            |
    /// |----------------------------------------------------------|-------------------|
    /// | proved every expected digest, of the expected size        | its identity      |
    /// | lacks an expected digest (the manifest asks for more)     | `nil`: hash       |
    /// | proved another value for a digest, or another size       | `nil`: hash       |
    /// | its identity was taken within a time step of a change    | `nil`: hash (``FileIdentity/isSettled(at:)``) |
    /// | nothing is expected (no digest)                          | `nil`: nothing to read anyway |
    public func identity(provingSize size: Int64?, digests expected: [Digest]) -> FileIdentity? {
        guard !expected.isEmpty, size.map({ $0 == file.size }) ?? true, file.isSettled(at: seenAtNanoseconds) else { return nil }
        for digest in expected where !digests.contains(digest) { return nil }
        return file
    }
}
