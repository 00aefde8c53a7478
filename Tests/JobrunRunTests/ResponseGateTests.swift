import JobrunCore
import JobrunFetch
import JobrunFiles
import JobrunOutcome
import Testing
@testable import JobrunRun

/// What a response's head means, decided before its body: a redirect, a status or a refusal,
/// or the body and where it goes.
@Suite struct ResponseGateTests {
    static func gate(resume: ByteCount = 0, size: ByteCount? = nil, keepsMetadata: Bool = false, hashes: Bool = true) -> ResponseGate {
        let validator = resume > 0 ? ResponseCheckTests.etag : nil
        return ResponseGate(
            check: ResponseCheck(resumeOffset: resume, resumeValidator: validator, expectedSize: size, cap: ByteCount(1 << 40), learned: nil),
            keepsMetadata: keepsMetadata, hashes: hashes)
    }

    static func storage(_ decision: ResponseGate.Decision) -> ResponseGate.Storage? {
        if case .body(_, let storage) = decision { return storage }
        return nil
    }

    /// A 304 answers a conditional request (the file in place is current) with the validators
    /// it carried; to any other request it is a failure like other statuses.
    @Test func a304AnswersOnlyAConditionalRequest() {
        var check = ResponseCheck(resumeOffset: 0, resumeValidator: nil, expectedSize: nil, cap: ByteCount(1 << 40), learned: nil)
        check.isConditional = true
        let conditional = ResponseGate(check: check, keepsMetadata: false, hashes: true)
        let head = ResponseCheckTests.head(304, [("ETag", "\"v2\""), ("Last-Modified", "Tue, 01 Dec 2026 10:00:00 GMT")])
        #expect(conditional.decide(head) == .notModified(OriginValidators(etag: "\"v2\"", lastModified: "Tue, 01 Dec 2026 10:00:00 GMT")))
        #expect(conditional.decide(ResponseCheckTests.head(304, [("ETag", "\"a\r\"")])) == .notModified(OriginValidators()))
        guard case .status = Self.gate().decide(head) else {
            Issue.record("a 304 to an unconditional request is a status")
            return
        }
        // A 200 to a conditional request is a body, as any other.
        #expect(Self.storage(conditional.decide(ResponseCheckTests.head(200, [("Content-Length", "5")]))) != nil)
    }

    /// A 3xx with a Location is a redirect, one without is a failure like any other status; a
    /// 429 or 503 cools its origin down, and a 404 is final.
    @Test func statusesOtherThan200Or206() {
        let gate = Self.gate()
        #expect(gate.decide(ResponseCheckTests.head(302, [("Location", "/b")])) == .redirect(location: "/b"))
        guard case .status(let moved) = gate.decide(ResponseCheckTests.head(304, [])) else {
            Issue.record("a 304 without Location is a status")
            return
        }
        #expect(moved.status == 304 && !moved.isTransient)
        guard case .status(let busy) = gate.decide(ResponseCheckTests.head(429, [])), case .status(let gone) = gate.decide(ResponseCheckTests.head(404, []))
        else {
            Issue.record("statuses")
            return
        }
        #expect(busy.isTransient && busy.coolsDownHost && !gone.isTransient && !gone.coolsDownHost)
    }

    /// A 200 or 206 the check refuses aborts the transfer (its bytes are never the file's).
    @Test func aRefused200IsNotABody() {
        guard case .refused(let failure) = Self.gate(size: 10).decide(ResponseCheckTests.head(200, [("Content-Length", "11")])) else {
            Issue.record("a body of another size is refused")
            return
        }
        #expect(failure.kind == .sizeMismatch)
    }

    /// A small whole body goes to memory (by the declared size, else the response's length); a
    /// large one, one worth resuming or one of unknown length goes to the partial file, hashed
    /// as written; a resume continues the file and is hashed from the file.
    @Test func whereTheBodyGoes() {
        let small = ResponseCheckTests.head(200, [("Content-Length", "1000")])
        #expect(
            Self.storage(Self.gate(size: 1000).decide(small))
                == .init(memory: 1000, appends: false, hashesInline: true, writesMetadata: false))
        #expect(Self.storage(Self.gate().decide(small))?.memory == 1000, "the response's length when none is declared")
        let limit = ResponseGate.memoryLimit
        let large = ResponseCheckTests.head(200, [("Content-Length", "\((limit + 1).value)")])
        #expect(
            Self.storage(Self.gate(size: limit + 1).decide(large))
                == .init(memory: nil, appends: false, hashesInline: true, writesMetadata: false))
        #expect(Self.storage(Self.gate().decide(ResponseCheckTests.head(200, [])))?.memory == nil, "no length: the file")
        #expect(
            Self.storage(Self.gate(size: 1000, keepsMetadata: true, hashes: false).decide(small))
                == .init(memory: nil, appends: false, hashesInline: false, writesMetadata: true))
        let resumable = PartialDownload.resumableSize
        #expect(
            Self.storage(Self.gate().decide(ResponseCheckTests.head(200, [("Content-Length", "\(resumable)")])))?.writesMetadata == true,
            "an unsized body worth resuming keeps its metadata")
        let rest = ResponseCheckTests.head(
            206, [("Content-Range", "bytes 100-1999/2000"), ("Content-Length", "1900"), ("ETag", ResponseCheckTests.etag.value)])
        guard case .body(let accepted, let storage) = Self.gate(resume: 100, size: 2000).decide(rest) else {
            Issue.record("the rest of the partial file is a body")
            return
        }
        #expect(accepted.offset == 100 && storage == .init(memory: nil, appends: true, hashesInline: false, writesMetadata: false))
    }
}
