public import JobrunCore
public import JobrunSystem

/// What the store remembers of one file beneath an output root, as a quick check and `status`
/// read it.
public struct ProvenFile: Sendable, Hashable {
    public var file: FileIdentity
    public var digests: ProvenDigests
    public var seenAtNanoseconds: Int64
    /// Whether its identity was taken late enough after the file's change that a later write
    /// would have changed it (``FileIdentity/isSettled(seen:)``, judged at the look; a record
    /// without that judgement, the wall clock's step judges).
    public var isSettled: Bool
    public var provenAtMilliseconds: Int64
    public var fetchedAtMilliseconds: Int64?
    /// What the origin said identifies the version it sent (empty when it said nothing, or the
    /// file was not fetched by jobrun).
    public var validators = OriginValidators()
    /// When the origin last vouched for these bytes (their fetch, or a revalidation); `nil`
    /// when it never did (a file proven by hashing only, a record made before schema 5).
    public var confirmedAtMilliseconds: Int64?

    public init(
        file: FileIdentity, digests: ProvenDigests, seenAtNanoseconds: Int64, settled: Bool? = nil, provenAtMilliseconds: Int64,
        fetchedAtMilliseconds: Int64?
    ) {
        self.file = file
        self.digests = digests
        self.seenAtNanoseconds = seenAtNanoseconds
        isSettled = settled ?? file.isSettled(at: seenAtNanoseconds)
        self.provenAtMilliseconds = provenAtMilliseconds
        self.fetchedAtMilliseconds = fetchedAtMilliseconds
    }

    public init(
        file: FileIdentity, digests: [Digest], seenAtNanoseconds: Int64, settled: Bool? = nil, provenAtMilliseconds: Int64,
        fetchedAtMilliseconds: Int64?
    ) {
        self.init(
            file: file, digests: ProvenDigests(digests), seenAtNanoseconds: seenAtNanoseconds, settled: settled,
            provenAtMilliseconds: provenAtMilliseconds, fetchedAtMilliseconds: fetchedAtMilliseconds)
    }

    /// The identity a file must still have to be taken as holding bytes of `size` with every one
    /// of `digests`, without being read; `nil` when this record cannot say so. A pure rule:
    ///
    /// | the record                                               | result            |
    /// |----------------------------------------------------------|-------------------|
    /// | proved every expected digest, of the expected size        | its identity      |
    /// | lacks an expected digest (the manifest asks for more)     | `nil`: hash       |
    /// | proved another value for a digest, or another size       | `nil`: hash       |
    /// | its identity was taken before a later write had to change it | `nil`: hash (``isSettled``) |
    /// | nothing is expected (no digest)                          | `nil`: nothing to read anyway |
    public func identity(provingSize size: Int64?, digests expected: [Digest]) -> FileIdentity? {
        guard !expected.isEmpty, isSettled, proves(size: size, digests: expected) else { return nil }
        return file
    }

    /// Whether the bytes it proved had `size` (when one is expected) and every one of `digests`.
    public func proves(size: Int64?, digests expected: [Digest]) -> Bool {
        guard size.map({ $0 == file.size }) ?? true else { return false }
        return expected.allSatisfy { digests.contains($0) }
    }

}
