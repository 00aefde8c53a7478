import JobrunCore
import JobrunFetch
import JobrunFiles
import JobrunOutcome

/// What a response's head means for its attempt, decided before a byte of the body is taken: a
/// redirect, a refusal, or a body and where it goes (a memory buffer or the partial file). Pure:
/// the sink (``BodySink``) carries the decision out on the engine thread.
struct ResponseGate {
    /// Whether a 200 or 206 starts the body the slice needs.
    let check: ResponseCheck
    /// The slice is large enough to keep a partial file's metadata for a resume.
    let keepsMetadata: Bool
    /// The body is hashed (digests declared, or the pinning SHA-256).
    let hashes: Bool

    /// Bodies up to this size are kept in memory until verified.
    static let memoryLimit = ByteCount(256 << 10)

    enum Decision: Equatable {
        /// A redirect to follow; its body is read and dropped.
        case redirect(location: String)
        /// An answer other than 200 or 206: a failure; its body is read and dropped (the
        /// connection stays usable).
        case status(AttemptFailure)
        /// A 200 or 206 that is not the body the slice needs: the transfer is aborted.
        case refused(AttemptFailure)
        /// A 304 to a conditional request (``ResponseCheck/isConditional``): the file in place
        /// is current; the validators the answer carried.
        case notModified(OriginValidators)
        /// The body, from `accepted.offset`, stored as `storage` says.
        case body(ResponseCheck.Accepted, Storage)
    }

    /// Where an accepted body goes.
    struct Storage: Equatable {
        /// The bytes of the memory buffer the body fits, when it does; otherwise, or when no
        /// buffer is to be had, the partial file.
        var memory: ByteCount?
        /// The partial file is continued (a resume).
        var appends: Bool
        /// The body is hashed as it is written, on the engine thread (from byte 0 only).
        var hashesInline: Bool
        /// The partial file gets its metadata (``PartialDownload``), so that it may be resumed.
        var writesMetadata: Bool
    }

    func decide(_ head: ResponseHead) -> Decision {
        let status = head.status
        if status == 304, check.isConditional { return .notModified(Self.validators(of: head)) }
        if (300...399).contains(status), let location = head.value("location") { return .redirect(location: location) }
        guard status == 200 || status == 206 else {
            return .status(
                AttemptFailure(
                    kind: .http, status: status, message: "HTTP \(status)", isTransient: AttemptFailure.isTransient(status: status),
                    coolsDownHost: status == 429 || status == 503))
        }
        let accepted: ResponseCheck.Accepted
        switch check.check(head) {
        case .success(let a): accepted = a
        case .failure(let failure): return .refused(failure)
        }
        let offset = accepted.offset
        // The length of a whole body (a 200); a 206's is the rest of the file.
        let length = offset == 0 ? accepted.end : nil
        var memory: ByteCount?
        if offset == 0, !keepsMetadata, let size = check.expectedSize ?? length, size <= Self.memoryLimit { memory = size }
        let writesMetadata = keepsMetadata || (check.expectedSize == nil && (length ?? 0).value >= PartialDownload.resumableSize)
        return .body(accepted, Storage(memory: memory, appends: offset > 0, hashesInline: offset == 0 && hashes, writesMetadata: writesMetadata))
    }

    /// The ETag and Last-Modified `head` carries, those that can be sent back as they are.
    static func validators(of head: ResponseHead) -> OriginValidators {
        OriginValidators(etag: OriginValidators.sendable(head.value("etag")), lastModified: OriginValidators.sendable(head.value("last-modified")))
    }
}
