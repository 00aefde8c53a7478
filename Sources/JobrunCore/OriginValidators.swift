/// What an origin said identifies the version of a file it sent: its ETag and Last-Modified, as
/// sent, for a later conditional request (`If-None-Match`, `If-Modified-Since`).
public struct OriginValidators: Hashable, Sendable {
    /// A strong or weak ETag, quotes included; `If-None-Match` compares weakly.
    public var etag: String?
    /// An HTTP date.
    public var lastModified: String?
    /// The origin (`scheme://host[:port]`) that sent them: another origin's copy of the file may be
    /// of another version with an older date, so only this one is asked conditionally.
    public var origin: String?

    public init(etag: String? = nil, lastModified: String? = nil, origin: String? = nil) {
        self.etag = etag.flatMap { $0.isEmpty ? nil : $0 }
        self.lastModified = lastModified.flatMap { $0.isEmpty ? nil : $0 }
        self.origin = origin
    }

    /// Whether a request to `origin` may carry them: they came from it.
    public func isFrom(_ origin: String) -> Bool { !isEmpty && self.origin == origin }

    /// A validator as a response carried it, when it can be sent back as it is: at most 1 KiB of
    /// visible ASCII and spaces (anything else is dropped, never echoed to a server).
    public static func sendable(_ value: String?) -> String? {
        guard let value, !value.isEmpty, value.utf8.count <= 1024 else { return nil }
        return value.utf8.allSatisfy { $0 == 0x20 || $0 == 0x09 || (0x21...0x7E).contains($0) } ? value : nil
    }

    /// Neither was sent: a conditional request cannot be made.
    public var isEmpty: Bool { etag == nil && lastModified == nil }

    /// The headers of a conditional GET: `If-None-Match` with the ETag and `If-Modified-Since` with
    /// the date (a server that knows ETags judges by the first, RFC 9110 13.2.2).
    public var conditionalHeaders: [(name: String, value: String)] {
        var headers: [(name: String, value: String)] = []
        if let etag { headers.append(("If-None-Match", etag)) }
        if let lastModified { headers.append(("If-Modified-Since", lastModified)) }
        return headers
    }

    /// `ETag "abc"`, `Last-Modified Tue, 01 Dec 2026 …`, both, or `no validator`: as messages name them.
    public var description: String {
        switch (etag, lastModified) {
        case (let e?, let m?): "ETag \(e), Last-Modified \(m)"
        case (let e?, nil): "ETag \(e)"
        case (nil, let m?): "Last-Modified \(m)"
        case (nil, nil): "no validator"
        }
    }
}
