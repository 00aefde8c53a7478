import JobrunCore
import JobrunManifest
import JobrunOutcome
import Testing
@testable import JobrunRun

/// What an ended attempt comes to, decided by the machine part from the attempt's report at
/// made-up instants: retries and their waits, a server's Retry-After and cooldown, a 416 to a
/// whole partial, bodies judged by their sizes, redirects and their limit.
@Suite struct AttemptReviewTests {
    static let t0 = ContinuousClock.now
    static func at(_ seconds: Int) -> ContinuousClock.Instant { t0 + .seconds(seconds) }
    static let policy: RetryPolicy = {
        var p = RetryPolicy()
        p.attempts = 3
        p.backoff.initial = .seconds(1)
        p.backoff.maximum = .seconds(8)
        return p
    }()
    static let http500 = AttemptFailure(kind: .http, status: 500, message: "HTTP 500", isTransient: true)

    static func refused(_ status: Int) -> ResponseVerdict {
        .refused(
            AttemptFailure(
                kind: .http, status: status, message: "HTTP \(status)", isTransient: AttemptFailure.isTransient(status: status),
                coolsDownHost: status == 429 || status == 503))
    }

    func retry(
        _ review: inout AttemptReview, _ failure: AttemptFailure, attempts: Int, now: Int = 0, firstStart: Int? = 0, random: Double = 1,
        isStopping: Bool = false, originFailed: Bool = false
    ) -> AttemptReview.Retry {
        review.retry(
            0, after: failure, attempts: attempts, policy: Self.policy, resourceTimeout: .seconds(30), firstStart: firstStart.map(Self.at), now: Self.at(now),
            random: random, isStopping: isStopping, originFailed: originFailed)
    }

    /// A transient failure waits one backoff step more each time, until the attempts run out; a
    /// final failure, a stopping run or a given-up origin ends the slice at once.
    @Test func transientFailuresAreRetriedWithBackoffUntilAttemptsRunOut() {
        var review = AttemptReview()
        #expect(retry(&review, Self.http500, attempts: 1) == .retry(at: Self.at(1), delay: .seconds(1), coolsDownOrigin: false))
        #expect(retry(&review, Self.http500, attempts: 2, now: 5) == .retry(at: Self.at(7), delay: .seconds(2), coolsDownOrigin: false))
        #expect(retry(&review, Self.http500, attempts: 2, now: 5, random: 0) == .retry(at: Self.at(6), delay: .seconds(1), coolsDownOrigin: false))
        #expect(retry(&review, Self.http500, attempts: 3) == .fail, "three attempts were allowed")
        var final = Self.http500
        final.isTransient = false
        #expect(retry(&review, final, attempts: 1) == .fail)
        #expect(retry(&review, Self.http500, attempts: 1, isStopping: true) == .fail)
        #expect(retry(&review, Self.http500, attempts: 1, originFailed: true) == .fail)
    }

    /// A retry that would start at or after the resource timeout (from the slice's first start)
    /// is no retry; an attempt may not start once the timeout has passed.
    @Test func theResourceTimeoutEndsRetries() {
        var review = AttemptReview()
        #expect(retry(&review, Self.http500, attempts: 2, now: 27, random: 0) == .retry(at: Self.at(28), delay: .seconds(1), coolsDownOrigin: false))
        #expect(retry(&review, Self.http500, attempts: 2, now: 29, random: 0) == .fail)
        #expect(AttemptReview.attemptDeadline(firstStart: Self.at(0), resourceTimeout: .seconds(30), now: Self.at(29)) == Self.at(30))
        #expect(AttemptReview.attemptDeadline(firstStart: Self.at(0), resourceTimeout: .seconds(30), now: Self.at(30)) == nil)
    }

    /// A server's Retry-After replaces the backoff (no random number drawn), clamped to the
    /// backoff's maximum; an HTTP date is read against the wall clock, which is read only then.
    /// A 429 or 503 cools its origin down until the retry; a 500 does not.
    @Test func retryAfterReplacesTheBackoffAndA429CoolsDownItsOrigin() throws {
        var review = AttemptReview()
        var clockReads = 0
        func wall() -> Int64 {
            clockReads += 1
            return 1_000_000_000
        }
        func judge(_ status: Int, retryAfter: String?) -> AttemptFailure? {
            let report = AttemptReport(verdict: Self.refused(status), retryAfter: retryAfter)
            guard
                case .failed(let failure, false, false) = review.judge(
                    0, resource: 0, report, expectedSize: nil, backoff: Self.policy.backoff, wallClock: wall())
            else { return nil }
            return failure
        }
        let tooMany = try #require(judge(429, retryAfter: "3"))
        #expect(tooMany.retryAfter == .seconds(3) && clockReads == 0)
        var draws = 0
        func draw() -> Double {
            draws += 1
            return 1
        }
        let cooled = review.retry(
            0, after: tooMany, attempts: 1, policy: Self.policy, resourceTimeout: .seconds(30), firstStart: Self.t0, now: Self.at(0), random: draw(),
            isStopping: false, originFailed: false)
        #expect(cooled == .retry(at: Self.at(3), delay: .seconds(3), coolsDownOrigin: true) && draws == 0)
        #expect(try #require(judge(503, retryAfter: "3600")).retryAfter == .seconds(8), "clamped to the backoff's maximum")
        // 1,000,000,005 seconds after the epoch.
        #expect(try #require(judge(503, retryAfter: "Sun, 09 Sep 2001 01:46:45 GMT")).retryAfter == .seconds(5) && clockReads == 1)
        #expect(try #require(judge(503, retryAfter: "soon")).retryAfter == nil)
        let plain = try #require(judge(500, retryAfter: nil))
        #expect(retry(&review, plain, attempts: 1) == .retry(at: Self.at(1), delay: .seconds(1), coolsDownOrigin: false))
    }

    /// A garbage `Retry-After` is no instruction: the backoff applies, never an immediate retry
    /// (libcurl reads such values as "now").
    @Test(arguments: ["-5", "soon", "1.5", "99999999999999999999", "Mon, 32 Foo 2026 99:00:00 GMT"])
    func aGarbageRetryAfterFallsBackToTheBackoff(value: String) {
        var review = AttemptReview()
        guard
            case .failed(let failure, _, _) = review.judge(
                0, resource: 0, AttemptReport(verdict: Self.refused(503), retryAfter: value), expectedSize: nil, backoff: Self.policy.backoff,
                wallClock: 1_000_000_000)
        else {
            Issue.record("a 503 is a failure")
            return
        }
        #expect(failure.retryAfter == nil)
        #expect(retry(&review, failure, attempts: 1, random: 1) == .retry(at: Self.at(1), delay: .seconds(1), coolsDownOrigin: true))
    }

    /// A 416 to a resume whose partial file holds every declared byte verifies that file; one
    /// that cannot be known whole is discarded and the slice starts again from byte 0; a 416 to
    /// a request from byte 0 is a plain refusal.
    @Test func a416ToAWholePartialVerifiesIt() {
        var review = AttemptReview()
        func judge(resumeOffset: ByteCount, expectedSize: ByteCount?) -> AttemptReview.Judgement {
            review.judge(
                0, resource: 0, AttemptReport(verdict: Self.refused(416), resumeOffset: resumeOffset), expectedSize: expectedSize,
                backoff: Self.policy.backoff, wallClock: 0)
        }
        #expect(judge(resumeOffset: 100, expectedSize: 100) == .completePartial)
        guard case .failed(let failure, true, true) = judge(resumeOffset: 100, expectedSize: nil) else {
            Issue.record("an unsized partial answered 416 is discarded and restarted")
            return
        }
        #expect(failure.kind == .rangeMismatch && failure.isTransient)
        guard case .failed(let plain, false, false) = judge(resumeOffset: 0, expectedSize: 100) else {
            Issue.record("a 416 from byte 0 is a refusal")
            return
        }
        #expect(plain.status == 416 && !plain.isTransient)
    }

    /// A body is whole only when it has the declared size and the length its response declared;
    /// otherwise its partial file goes and the slice is retried. A broken transfer keeps its
    /// partial file and what its response said of the file for the next attempt. A write failure
    /// decides before anything else.
    @Test func aBodyIsJudgedByItsSizes() {
        var review = AttemptReview()
        let seen = Representation(validator: .init(value: "\"v1\"", kind: .etag), total: 100)
        func judge(_ report: AttemptReport, expectedSize: ByteCount? = 100) -> AttemptReview.Judgement {
            review.judge(3, resource: 0, report, expectedSize: expectedSize, backoff: Self.policy.backoff, wallClock: 0)
        }
        #expect(judge(AttemptReport(verdict: .body, written: 100, declaredEnd: 100, representation: seen)) == .body)
        #expect(review.learned.isEmpty, "a whole body hands nothing on")
        guard case .failed(let short, true, false) = judge(AttemptReport(verdict: .body, written: 90, declaredEnd: 100)) else {
            Issue.record("a body short of its declared size is refused")
            return
        }
        #expect(short.kind == .sizeMismatch && short.isTransient)
        guard case .failed(let truncated, true, false) = judge(AttemptReport(verdict: .body, written: 90, declaredEnd: 100), expectedSize: nil) else {
            Issue.record("a body short of its response's length is refused")
            return
        }
        #expect(truncated.kind == .truncated)
        guard case .failed(let broken, false, false) = judge(AttemptReport(verdict: .body, transport: .network("reset"), written: 40, representation: seen))
        else {
            Issue.record("a broken body keeps its partial file")
            return
        }
        #expect(broken.kind == .network && review.learned[3] == seen)
        let full = WriteFailure(path: "a", operation: "write", errno: 28)
        #expect(judge(AttemptReport(verdict: .body, written: 100, writeFailure: full)) == .writeFailed(full))
        guard case .failed(let none, false, false) = judge(AttemptReport(verdict: nil, transport: .connect("refused"), hasHead: false)) else {
            Issue.record("no response is a transport failure")
            return
        }
        #expect(none.kind == .connect && none.isTransient)
    }

    /// An unsized slice is planned by the mean of its resource's unsized bodies so far, and a
    /// sized one by its size.
    @Test func unsizedBodiesSetThePlannedSize() {
        var review = AttemptReview()
        #expect(review.plannedSize(resource: 1, declared: nil) == nil)
        for written: ByteCount in [100, 300] {
            _ = review.judge(0, resource: 1, AttemptReport(verdict: .body, written: written), expectedSize: nil, backoff: Self.policy.backoff, wallClock: 0)
        }
        #expect(review.plannedSize(resource: 1, declared: nil) == 200)
        #expect(review.plannedSize(resource: 1, declared: 7) == 7 && review.plannedSize(resource: 2, declared: nil) == nil)
    }

    /// A body that fails its digest is retried; after a resume no validator vouched for, its
    /// slice starts again from byte 0 and says why.
    @Test func aDigestMismatchAfterAnUnvalidatedResumeRestartsFromZero() throws {
        let expected = [try #require(Digest(algorithm: .sha256, hex: String(repeating: "a", count: 64)))]
        let actual = [try #require(Digest(algorithm: .sha256, hex: String(repeating: "b", count: 64)))]
        let validated = AttemptReview.mismatch(expected: expected, actual: actual, isUnvalidatedResume: false)
        #expect(validated.failure.kind == .checksumMismatch && validated.failure.actualDigests == actual && !validated.restartsFromZero)
        let unvalidated = AttemptReview.mismatch(expected: expected, actual: actual, isUnvalidatedResume: true)
        #expect(unvalidated.restartsFromZero && unvalidated.failure.message.hasSuffix("fetched again from byte 0"))
    }

    /// A redirect is followed to its target's origin with the headers that may go there; each
    /// hop counts, and past ten the next is refused. A retry goes back to the slice's own
    /// origin but keeps the redirect's URL for its outcome until the next attempt.
    @Test func redirectsAreFollowedUpToTheirLimit() {
        var review = AttemptReview()
        let own = "https://a.example/f"
        let headers = [HeaderField(name: "Authorization", value: "secret", isSecret: true), HeaderField(name: "Accept", value: "*/*", isSecret: false)]
        guard case .follow(let url, let kept) = review.redirect(0, location: "https://b.example/g", ownURL: own, headers: headers) else {
            Issue.record("a redirect to https is followed")
            return
        }
        #expect(url == "https://b.example/g" && kept.map(\.name) == ["Accept"], "a secret stays with its origin")
        review.follow(0, to: url, headers: kept)
        #expect(review.redirectOrigin(0) == "https://b.example" && review.request(0, ownURL: own, headers: headers).url == url)
        #expect(review.redirectOrigin(1) == nil && review.request(1, ownURL: own, headers: headers).url == own)
        for n in 2...10 {
            guard case .follow(let next, let h) = review.redirect(0, location: "/g\(n)", ownURL: own, headers: headers) else {
                Issue.record("hop \(n) is followed")
                return
            }
            review.follow(0, to: next, headers: h)
        }
        #expect(review.redirect(0, location: "/g11", ownURL: own, headers: headers) == .refuse("more than 10 redirects"))
        #expect(review.redirect(0, location: "http://b.example/g", ownURL: own, headers: headers) == .refuse("more than 10 redirects"))
        #expect(retry(&review, Self.http500, attempts: 1) != .fail)
        #expect(review.redirectOrigin(0) == nil && review.redirectURL(0) == "https://b.example/g10")
        review.forgetRedirect(0)
        #expect(review.redirectURL(0) == nil && review.hops.isEmpty)
        #expect(review.redirect(0, location: "http://b.example/g", ownURL: own, headers: headers) == .refuse("redirect from https to http refused"))
    }

    /// What an attempt says of the network and of its origin: no connection is unreachable, a
    /// broken one lost, any response an answer; a write failing before the head says nothing.
    @Test func aReportSaysWhatTheAttemptShowedOfItsOrigin() {
        let unreachable = AttemptReport(verdict: nil, transport: .connect("refused"), hasHead: false)
        #expect(unreachable.reach.isTransportFailure && unreachable.originReading != .healthy)
        #expect(AttemptReport(verdict: .body, transport: .network("reset"), written: 5).reach == .lost)
        let refusal = AttemptReport(verdict: Self.refused(503))
        #expect(refusal.reach == .answered && refusal.originReading == .failed(Self.refused503))
        #expect(AttemptReport(verdict: Self.refused(404)).originReading == .healthy, "a 404 is the slice's, not the origin's")
        let localBeforeHead = AttemptReport(verdict: nil, hasHead: false, writeFailure: WriteFailure(path: "a", operation: "open", errno: 13))
        #expect(localBeforeHead.reach == .unknown && localBeforeHead.originReading == .unknown)
        #expect(AttemptReport(verdict: .body, written: 1).isCleanBody && !refusal.isCleanBody)
    }

    static let refused503: AttemptFailure = {
        guard case .refused(let failure) = refused(503) else { return http500 }
        return failure
    }()
}
