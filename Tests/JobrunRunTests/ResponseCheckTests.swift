import JobrunCore
import JobrunFetch
import JobrunOutcome
import Testing
@testable import JobrunRun

@Suite struct ResponseCheckTests {
    typealias V = Representation.Validator
    static let etag = V(value: "\"v1\"", kind: .etag)
    static let modified = V(value: "Mon, 01 Jan 2024 00:00:00 GMT", kind: .lastModified)

    static func head(_ status: Int, _ headers: [(String, String)]) -> ResponseHead {
        ResponseHead(status: status, headers: headers.map { .init(name: $0.0, value: $0.1) })
    }

    static func check(
        resume: ByteCount = 0, validator: V? = nil, size: ByteCount? = nil, learned: Representation? = nil, _ head: ResponseHead
    ) -> Result<ResponseCheck.Accepted, AttemptFailure> {
        ResponseCheck(resumeOffset: resume, resumeValidator: validator, expectedSize: size, cap: ByteCount(1 << 30), learned: learned).check(head)
    }

    static func kind(_ result: Result<ResponseCheck.Accepted, AttemptFailure>) -> SliceErrorKind? {
        if case .failure(let f) = result { return f.kind }
        return nil
    }

    @Test func aWhole200IsAcceptedWithItsLengthAndValidator() throws {
        let accepted = try Self.check(Self.head(200, [("Content-Length", "5000"), ("ETag", "\"v1\"")])).get()
        #expect(accepted == .init(offset: 0, end: 5000, representation: .init(validator: Self.etag, total: 5000)))
        // A weak ETag proves nothing: Last-Modified is the validator then.
        let weak = try Self.check(Self.head(200, [("ETag", "W/\"v1\""), ("Last-Modified", Self.modified.value)])).get()
        #expect(weak.representation.validator == Self.modified && weak.end == nil)
    }

    @Test func a206ContinuesOnlyItsOwnVersionToTheEnd() throws {
        let ok = Self.head(206, [("Content-Range", "bytes 1000-4999/5000"), ("Content-Length", "4000"), ("ETag", "\"v1\"")])
        #expect(
            try Self.check(resume: 1000, validator: Self.etag, ok).get()
                == .init(offset: 1000, end: 5000, representation: .init(validator: Self.etag, total: 5000)))
        let cases: [(ResponseHead, SliceErrorKind)] = [
            (Self.head(206, [("Content-Range", "bytes 1000-4999/5000"), ("ETag", "\"v2\"")]), .rangeMismatch),
            (Self.head(206, [("Content-Range", "bytes 1000-4999/5000")]), .rangeMismatch),
            (Self.head(206, [("Content-Range", "bytes 1000-4999/5000"), ("ETag", "W/\"v1\"")]), .rangeMismatch),
            (Self.head(206, [("Content-Range", "bytes 1001-4999/5000"), ("ETag", "\"v1\"")]), .rangeMismatch),
            (Self.head(206, [("Content-Range", "bytes 1000-3999/5000"), ("ETag", "\"v1\"")]), .rangeMismatch),
            (Self.head(206, [("Content-Range", "bytes 1000-4999/*"), ("ETag", "\"v1\"")]), .rangeMismatch),
            (Self.head(206, [("ETag", "\"v1\"")]), .rangeMismatch),
            (Self.head(206, [("Content-Range", "bytes 1000-4999/5000"), ("Content-Length", "10"), ("ETag", "\"v1\"")]), .inconsistentResponse),
        ]
        for (head, kind) in cases {
            #expect(Self.kind(Self.check(resume: 1000, validator: Self.etag, head)) == kind, "\(head)")
        }
        // No partial asked for: a 206 is never the whole file.
        #expect(Self.kind(Self.check(Self.head(206, [("Content-Range", "bytes 0-4999/5000"), ("ETag", "\"v1\"")]))) == .rangeMismatch)
    }

    /// With Last-Modified as the partial's validator, a 206's ETag does not matter, its date does.
    @Test func lastModifiedIsComparedWhenItWasTheValidator() {
        let same = Self.head(206, [("Content-Range", "bytes 10-19/20"), ("ETag", "\"new\""), ("Last-Modified", Self.modified.value)])
        #expect(Self.kind(Self.check(resume: 10, validator: Self.modified, same)) == nil)
        let other = Self.head(206, [("Content-Range", "bytes 10-19/20"), ("Last-Modified", "Tue, 02 Jan 2024 00:00:00 GMT")])
        #expect(Self.kind(Self.check(resume: 10, validator: Self.modified, other)) == .rangeMismatch)
    }

    /// Only chunked framing is taken off a body: any other transfer coding, or a content coding,
    /// would store bytes other than those sent, and is refused by name.
    @Test func aCodingOtherThanChunkedIsRefusedByName() throws {
        for codings in ["gzip, chunked", "gzip", "deflate,chunked", "chunked, identity"] {
            let result = Self.check(Self.head(200, [("Transfer-Encoding", codings), ("ETag", "\"v1\"")]))
            guard case .failure(let failure) = result else {
                Issue.record("accepted Transfer-Encoding: \(codings)")
                continue
            }
            #expect(failure.kind == .transferEncoding && !failure.isTransient && failure.message.contains("Transfer-Encoding: \(codings)"), "\(failure)")
        }
        for codings in ["chunked", "Chunked", " chunked "] {
            #expect(Self.kind(Self.check(Self.head(200, [("Transfer-Encoding", codings)]))) == nil, "\(codings)")
        }
        let ranged = Self.head(206, [("Content-Range", "bytes 10-19/20"), ("Transfer-Encoding", "gzip, chunked"), ("ETag", "\"v1\"")])
        #expect(Self.kind(Self.check(resume: 10, validator: Self.etag, ranged)) == .transferEncoding)
        #expect(Self.kind(Self.check(Self.head(200, [("Content-Encoding", "gzip"), ("Content-Length", "10")]))) == .contentEncoding)
        #expect(Self.kind(Self.check(Self.head(200, [("Content-Encoding", "identity"), ("Content-Length", "10")]))) == nil)
    }

    @Test func a200IsTheWholeFileOrRefused() {
        #expect(Self.kind(Self.check(Self.head(200, [("Content-Range", "bytes 0-999/5000"), ("Content-Length", "1000")]))) == .inconsistentResponse)
        #expect(Self.kind(Self.check(size: 5000, Self.head(200, [("Content-Length", "4999")]))) == .sizeMismatch)
        let capped = ResponseCheck(resumeOffset: 0, resumeValidator: nil, expectedSize: nil, cap: 100, learned: nil).check(
            Self.head(200, [("Content-Length", "101")]))
        #expect(Self.kind(capped) == .tooLarge)
    }

    /// One version has one length: another total under the same validator is refused; a new
    /// validator (or none to compare) is a new version, whose length is its own.
    @Test func theSameVersionCannotChangeItsLength() {
        let learned = Representation(validator: Self.etag, total: 5000)
        #expect(Self.kind(Self.check(learned: learned, Self.head(200, [("Content-Length", "1000"), ("ETag", "\"v1\"")]))) == .inconsistentResponse)
        #expect(Self.kind(Self.check(learned: learned, Self.head(200, [("Content-Length", "5000"), ("ETag", "\"v1\"")]))) == nil)
        #expect(Self.kind(Self.check(learned: learned, Self.head(200, [("Content-Length", "1000"), ("ETag", "\"v2\"")]))) == nil)
        #expect(Self.kind(Self.check(learned: learned, Self.head(200, [("Content-Length", "1000")]))) == nil)
        let range = Self.head(206, [("Content-Range", "bytes 10-999/1000"), ("ETag", "\"v1\"")])
        #expect(Self.kind(Self.check(resume: 10, validator: Self.etag, learned: learned, range)) == .inconsistentResponse)
    }
}
