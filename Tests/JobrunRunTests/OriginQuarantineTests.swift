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

    @Test func wrongAnswersForThreeSlicesQuarantineTheirOriginOnce() {
        var q = OriginQuarantine()
        // One slice answered wrong again and again (its digest out of date) is one slice.
        let same = [Self.mismatch, Self.short, Self.mismatch].map { q.wrongAnswer(at: "http://a", job: 7, $0) }
        #expect(same == [false, false, false] && !q.holds("http://a"))
        let others = [SliceID(8), SliceID(9), SliceID(10)].map { q.wrongAnswer(at: "http://a", job: $0, Self.mismatch) }
        #expect(others == [false, true, false], "the third slice quarantines it, told once")
        #expect(q.holds("http://a") && !q.holds("http://b") && !q.isEmpty)
        #expect(q.quarantined["http://a"] == "ChecksumMismatch: sha256 differs")
        #expect(!q.wrongAnswer(at: "http://b", job: 7, Self.mismatch) && !q.holds("http://b"), "each origin counts its own")
    }
}
