import JobrunCore
import JobrunOutcome
import JobrunJSON

extension JSONWriter {
    /// What an origin carried (`apply --json`'s `origins`, the `origin_usage` event):
    /// `origin`, `requests`, `connections`, `in_flight_mean` (two decimals), `in_flight_peak`,
    /// `streams`, `adaptive`, `bytes` (body bytes received), `failures` (attempts failed there),
    /// `wrong_answers` (bodies of the wrong size or digest), `quarantined`, and `limit_path`, its limit of requests in flight as
    /// `[{"at_ms": 0, "limit": 4}, …]` (a point where it changed).
    mutating func originUsageFields(_ o: OriginUsageReport) {
        key("origin"); string(o.origin)
        key("requests"); int(Int64(o.requests))
        key("connections"); int(Int64(o.connections))
        key("in_flight_mean"); double((o.meanInFlight * 100).rounded() / 100)
        key("in_flight_peak"); int(Int64(o.peakInFlight))
        key("streams"); int(Int64(o.streams))
        key("adaptive"); bool(o.adaptive)
        key("bytes"); int(o.bytes)
        key("failures"); int(Int64(o.failures))
        key("wrong_answers"); int(Int64(o.wrongAnswers))
        key("quarantined"); bool(o.quarantined)
        key("limit_path")
        beginArray()
        for point in o.limitPath {
            beginObject()
            key("at_ms"); int(point.at.wholeMilliseconds)
            key("limit"); int(Int64(point.limit))
            endObject()
        }
        endArray()
    }
}

extension JSONWriter {
    /// Where a slice was last fetched from: the origin (`scheme://host[:port]`) of its shown URL.
    mutating func sliceOrigin(of url: String) {
        key("origin"); string(Self.origin(ofShown: url))
    }

    /// The `scheme://host[:port]` of a URL as reports show it (an identity, or a redirect's
    /// target without its query: already canonical), without parsing it again.
    static func origin(ofShown url: String) -> String {
        let bytes = url.utf8
        // After `scheme://`, the origin ends at the path's first `/`.
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")), bytes[colon...].starts(with: "://".utf8) else { return url }
        let hostStart = bytes.index(colon, offsetBy: 3)
        let end = bytes[hostStart...].firstIndex(of: UInt8(ascii: "/")) ?? bytes.endIndex
        return String(url[..<end])
    }

    /// `{"type":"HTTP503","message":"503 Service Unavailable","http_status":503}`: `type` as in
    /// `apply --json`'s `error.type` and JUnit's error type (the events' `error`, `failed_at`'s).
    mutating func attemptFailure(_ failure: AttemptFailure) {
        beginObject()
        key("type"); string(failure.typeName)
        key("message"); string(failure.message)
        key("http_status"); if let status = failure.status { int(Int64(status)) } else { null() }
        endObject()
    }

    /// A slice's failed attempts at its URLs (`failed_at`), in order:
    /// `[{"url": …, "error": {"type": …, "message": …, "http_status": …}}, …]`.
    mutating func failedAt(_ failures: [OriginFailure]) {
        key("failed_at")
        beginArray()
        for f in failures {
            beginObject()
            key("url"); string(f.url)
            key("error"); attemptFailure(f.failure)
            endObject()
        }
        endArray()
    }
}
