import JobrunCore
import JobrunFetch
import JobrunPlan
import JobrunOutcome

/// Whether the head of a 200 or 206 starts the body a slice needs: the whole file (200), or
/// exactly the rest of the partial file's own version (206). Pure; the rules, each a refusal:
///
/// | response | refused when                                                              | kind                 |
/// |----------|---------------------------------------------------------------------------|----------------------|
/// | both     | `Content-Encoding` other than identity (jobrun asks for none)              | ContentEncoding      |
/// | both     | `Transfer-Encoding` with a coding other than chunked (`gzip, chunked`)     | TransferEncoding     |
/// | 206      | no partial was asked for, or `Content-Range` does not start at its end     | RangeMismatch        |
/// | 206      | its validator differs from the partial's, or it carries none               | RangeMismatch        |
/// | 206      | it does not run to the end of the file, or gives no total                  | RangeMismatch        |
/// | both     | `Content-Length` is not digits (a sign, a space) or too large for Int64    | InconsistentResponse |
/// | 206      | `Content-Length` differs from the range's length                           | InconsistentResponse |
/// | 200      | it carries `Content-Range` (a part presented as the whole)                 | InconsistentResponse |
/// | both     | its total differs from the declared size                                   | SizeMismatch (final) |
/// | both     | same validator as an earlier response, another total                       | InconsistentResponse |
/// | 200      | `Content-Length` over the slice's cap                                      | TooLarge (final)     |
///
/// A `RangeMismatch` after a resume discards the partial file and starts again from byte 0.
struct ResponseCheck {
    /// Where the body goes: from `offset` in the partial file, ending at `end` when the response
    /// declared it (the total length the body must reach for the file to be whole).
    struct Accepted: Equatable {
        var offset: ByteCount
        var end: ByteCount?
        var representation: Representation
    }

    /// Bytes already in the partial file (0 when not resuming).
    var resumeOffset: ByteCount
    /// The partial file's validator, sent as `If-Range`.
    var resumeValidator: Representation.Validator?
    /// The slice's declared size.
    var expectedSize: ByteCount?
    var cap: ByteCount
    /// What earlier responses for this slice said (this run's attempts, or the partial file's
    /// metadata).
    var learned: Representation?
    /// The request carries `If-None-Match` / `If-Modified-Since`: a 304 is an answer, not a failure.
    var isConditional = false

    func check(_ head: ResponseHead) -> Result<Accepted, AttemptFailure> {
        if let refused = Self.refusedCoding(head) { return .failure(refused) }
        let seen = Representation.validator(of: head)
        var length: ByteCount?
        if let text = head.value("content-length") {
            guard let n = Int64(decimalDigits: text) else {
                return .failure(Self.inconsistent("the response's Content-Length is not a length: \(text)"))
            }
            length = ByteCount(n)
        }
        let total: ByteCount?
        let offset: ByteCount
        if head.status == 206 {
            guard resumeOffset > .zero, let range = head.value("content-range").flatMap(ContentRange.init), range.start == resumeOffset else {
                return .failure(Self.rangeMismatch("the 206 response does not continue the partial file at byte \(resumeOffset.value)"))
            }
            if let stored = resumeValidator {
                let what = stored.kind == .etag ? "ETag" : "Last-Modified"
                let sent = head.value(stored.kind == .etag ? "etag" : "last-modified")
                if sent != stored.value {
                    let got = sent.map { "\(what) \($0)" } ?? "no \(what)"
                    return .failure(Self.rangeMismatch("the 206 response is of another version (\(got); the partial file's is \(stored.value))"))
                }
            }
            guard let rangeTotal = range.total, rangeTotal > range.end, rangeTotal - range.end == 1 else {
                return .failure(
                    Self.rangeMismatch(
                        "the 206 response covers bytes \(range.start.value)-\(range.end.value) of \(range.total.map { String($0.value) } ?? "an unknown total"), not the rest of the file"
                    ))
            }
            if let length, length - range.end + range.start != 1 {
                return .failure(Self.inconsistent("the 206 response declares \(length.value) bytes for the range \(range.start.value)-\(range.end.value)"))
            }
            total = rangeTotal
            offset = resumeOffset
        } else {
            if let range = head.value("content-range") {
                return .failure(Self.inconsistent("a 200 response carried Content-Range: \(range); it is not the whole file"))
            }
            total = length
            offset = 0
        }
        if let total, let expectedSize, total != expectedSize {
            return .failure(
                AttemptFailure(kind: .sizeMismatch, message: "the server's file is \(total.value) bytes, expected \(expectedSize.value)", isTransient: false))
        }
        if let total, let learned, let earlier = learned.total, learned.validator != nil, learned.validator == seen, earlier != total {
            return .failure(
                Self.inconsistent(
                    "the server's file is \(total.value) bytes, but an earlier response with the same \(seen?.kind == .etag ? "ETag" : "Last-Modified") said \(earlier.value)"
                ))
        }
        if let total, offset == 0, total > cap {
            return .failure(
                AttemptFailure(kind: .tooLarge, message: "the server's file is \(total.value) bytes, over the \(cap.value)-byte limit", isTransient: false))
        }
        return .success(Accepted(offset: offset, end: total, representation: Representation(validator: seen, total: total)))
    }

    /// A coding the body would have to be decoded from: digests and sizes are declared for the
    /// bytes stored, and a decoded body can be any size (a small gzip body, gigabytes stored).
    static func refusedCoding(_ head: ResponseHead) -> AttemptFailure? {
        if let encoding = head.value("content-encoding"), encoding.trimmingASCII().lowercased() != "identity" {
            return AttemptFailure(
                kind: .contentEncoding,
                message: "the server sent Content-Encoding: \(encoding), which jobrun did not ask for (digests are over the stored bytes)", isTransient: false)
        }
        if let codings = head.value("transfer-encoding"),
            codings.split(separator: ",").contains(where: { $0.trimmingASCII().lowercased() != "chunked" })
        {
            return AttemptFailure(
                kind: .transferEncoding,
                message:
                    "the server sent Transfer-Encoding: \(codings); jobrun decodes only chunked (digests are over the bytes as sent), so the body is refused",
                isTransient: false)
        }
        return nil
    }

    static func rangeMismatch(_ message: String) -> AttemptFailure {
        AttemptFailure(kind: .rangeMismatch, message: message, isTransient: true)
    }

    static func inconsistent(_ message: String) -> AttemptFailure {
        AttemptFailure(kind: .inconsistentResponse, message: message, isTransient: true)
    }
}
