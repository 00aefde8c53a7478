import JobrunCore
import JobrunFetch
import JobrunOutcome
import Testing
@testable import JobrunRun

/// Lengths and positions in a response head are digits (RFC 9110 `1*DIGIT`): a signed, spaced or
/// overflowing number is no length. Found by the response-head fuzzer: a 200 with
/// `Content-Length: -922337` was accepted with a body ending before its start.
@Suite struct ResponseLengthTests {
    static func check(resume: ByteCount = 0, _ status: Int, _ headers: [(String, String)]) -> Result<ResponseCheck.Accepted, AttemptFailure> {
        let validator = Representation.Validator(value: "\"v1\"", kind: .etag)
        let head = ResponseHead(status: status, headers: headers.map { .init(name: $0.0, value: $0.1) })
        return ResponseCheck(resumeOffset: resume, resumeValidator: resume > 0 ? validator : nil, expectedSize: nil, cap: .max, learned: nil).check(head)
    }

    static let notLengths = ["-922337", "-1", "+5", "5 5", "0x10", "99999999999999999999", ""]

    @Test(arguments: notLengths)
    func a200WhoseContentLengthIsNoLengthIsRefused(value: String) throws {
        let result = Self.check(200, [("Content-Length", value)])
        guard case .failure(let failure) = result else {
            Issue.record("accepted: \(result)")
            return
        }
        #expect(failure.kind == .inconsistentResponse)
        #expect(failure.message == "the response's Content-Length is not a length: \(value)")
        #expect(failure.isTransient)
    }

    @Test(arguments: notLengths)
    func a206WhoseContentLengthIsNoLengthIsRefused(value: String) {
        let result = Self.check(resume: 10, 206, [("Content-Range", "bytes 10-19/20"), ("ETag", "\"v1\""), ("Content-Length", value)])
        guard case .failure(let failure) = result else {
            Issue.record("accepted: \(result)")
            return
        }
        #expect(failure.kind == .inconsistentResponse)
    }

    @Test func everyAcceptedBodyEndsAtOrAfterItsOffset() throws {
        let whole = try Self.check(200, [("Content-Length", "0")]).get()
        #expect(whole.offset == 0 && whole.end == 0)
        let rest = try Self.check(resume: 10, 206, [("Content-Range", "bytes 10-19/20"), ("ETag", "\"v1\""), ("Content-Length", "10")]).get()
        #expect(rest.offset == 10 && rest.end == 20)
    }

    /// A range at the very end of the counts (a resume from the largest offset) is refused, not
    /// a trap: the range's end and total are compared without adding to them.
    @Test func aRangeAtTheLargestCountIsRefused() {
        let max = String(Int64.max)
        let ranges = ["bytes \(max)-\(max)/\(max)", "bytes \(max)-\(max)/*"]
        for range in ranges {
            let result = Self.check(resume: .max, 206, [("Content-Range", range), ("ETag", "\"v1\""), ("Content-Length", max)])
            #expect(throws: AttemptFailure.self, "\(range)") { try result.get() }
        }
        let whole = Self.check(
            resume: ByteCount(Int64.max - 1), 206,
            [("Content-Range", "bytes \(Int64.max - 1)-\(Int64.max - 1)/\(max)"), ("ETag", "\"v1\""), ("Content-Length", max)])
        #expect(throws: AttemptFailure.self, "a length of the largest count for a one-byte range") { try whole.get() }
    }

    @Test(arguments: [
        "bytes +1-5/10", "bytes 1-+5/10", "bytes 1-5/+10", "bytes 1-5/-10", "bytes  1-5/10", "bytes 1 -5/10",
        "bytes 0-9/99999999999999999999", "bytes 0-99999999999999999999/*",
    ])
    func aContentRangeWithNumbersThatAreNotDigitsIsNoRange(text: String) {
        #expect(ContentRange(text) == nil)
    }
}
