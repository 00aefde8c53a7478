import JobrunOutcome
import Testing
@testable import JobrunRun

/// Origins quarantined for wrong bytes: counted per origin, quarantined once at the threshold.
@Suite struct OriginQuarantineTests {
    static let mismatch = AttemptFailure(kind: .checksumMismatch, message: "sha256 differs", isTransient: true)
    static let short = AttemptFailure(kind: .sizeMismatch, message: "received 3 bytes, expected 4", isTransient: true)

    @Test func onlyAWholeBodyOfTheWrongSizeOrDigestIsAWrongAnswer() {
        #expect(OriginQuarantine.isWrongAnswer(Self.mismatch) && OriginQuarantine.isWrongAnswer(Self.short))
        let others: [SliceErrorKind] = [.http, .truncated, .network, .timeout, .rangeMismatch, .inconsistentResponse, .io]
        #expect(others.allSatisfy { !OriginQuarantine.isWrongAnswer(AttemptFailure(kind: $0, message: "", isTransient: true)) })
    }

    @Test func theThirdWrongAnswerQuarantinesItsOriginOnce() {
        var q = OriginQuarantine()
        let answers = [Self.mismatch, Self.short, Self.mismatch, Self.mismatch].map { q.wrongAnswer(at: "http://a", $0) }
        #expect(answers == [false, false, true, false], "told once")
        #expect(q.holds("http://a") && !q.holds("http://b") && !q.isEmpty)
        #expect(q.quarantined["http://a"] == "ChecksumMismatch: sha256 differs")
        #expect(!q.wrongAnswer(at: "http://b", Self.mismatch) && !q.holds("http://b"), "each origin counts its own")
    }
}
