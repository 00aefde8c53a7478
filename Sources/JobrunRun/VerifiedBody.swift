import JobrunCore

/// A body that verified, on its way to its final name: its closed partial file, which a
/// ``CommitBatch`` renames on the disk worker's thread, and what the slice's outcome will say
/// of it once the rename is durable. Immutable, so it crosses threads as it is.
final class VerifiedBody: Sendable {
    let file: PartialFile
    let digests: [Digest]
    /// When it verified: where the slice's own time ends.
    let verifiedAt: ContinuousClock.Instant
    /// The file's size.
    let size: ByteCount
    /// `1.1`, `2`, … as the transfer negotiated.
    let httpVersion: String?
    /// Only the connection's close marked where the body ended.
    let hadUndeclaredLength: Bool
    /// The response's ETag and Last-Modified.
    let validators: OriginValidators
    /// The slice's file was in place and this body answers its revalidation: it takes the file's
    /// name only if its bytes differ (``CommitBatch``).
    let replacesOnlyIfDifferent: Bool

    init(
        file: PartialFile, digests: [Digest], verifiedAt: ContinuousClock.Instant, size: ByteCount, httpVersion: String?, hadUndeclaredLength: Bool,
        validators: OriginValidators = OriginValidators(), replacesOnlyIfDifferent: Bool = false
    ) {
        self.file = file
        self.digests = digests
        self.verifiedAt = verifiedAt
        self.size = size
        self.httpVersion = httpVersion
        self.hadUndeclaredLength = hadUndeclaredLength
        self.validators = validators
        self.replacesOnlyIfDifferent = replacesOnlyIfDifferent
    }

    /// The body `sink` took, once its file is closed (the commit holds the file to the identity
    /// it had then). `size`: the file's, when the sink took no body (a whole partial file
    /// verified in its place).
    convenience init(
        sink: BodySink, digests: [Digest], verifiedAt: ContinuousClock.Instant, httpVersion: String?, size: ByteCount? = nil, revalidates: Bool = false
    ) {
        assert(!sink.file.isOpen, "a body verified before its file was closed")
        self.init(
            file: sink.file, digests: digests, verifiedAt: verifiedAt, size: size ?? sink.written, httpVersion: httpVersion,
            hadUndeclaredLength: !sink.hasDelimitedBody, validators: sink.validators, replacesOnlyIfDifferent: revalidates)
    }
}
