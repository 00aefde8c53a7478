import JobrunCore
import JobrunFetch
import JobrunPlan
import JobrunFiles

/// Which version of a slice's file a response is of, and how long that version is: what one
/// attempt learns and the next holds the server to.
struct Representation: Sendable, Hashable {
    /// A strong ETag, else Last-Modified; `nil` when the response has neither.
    var validator: Validator?
    /// The whole file's length as the response declared it (`Content-Length` of a 200, the total
    /// of a 206's `Content-Range`).
    var total: ByteCount?

    typealias Validator = PartialDownload.Validator

    /// The validator a response carries: its strong ETag, else its Last-Modified (a weak ETag
    /// proves nothing about the bytes).
    static func validator(of head: ResponseHead) -> Validator? {
        if let etag = head.value("etag"), !etag.hasPrefix("W/") { return Validator(value: etag, kind: .etag) }
        if let modified = head.value("last-modified") { return Validator(value: modified, kind: .lastModified) }
        return nil
    }
}
