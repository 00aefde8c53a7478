import JobrunCore
import JobrunFetch
import JobrunManifest
import JobrunOutcome
import JobrunFiles

/// What each ended attempt means for its slice — a body to verify, a redirect to follow, a
/// retry and when, a failure — and what one attempt hands the next: the redirect it is
/// following, what responses said of the slice's file, and the sizes of a resource's unsized
/// bodies so far. Told the attempt's report, the slice's facts and the time; it reads no clock
/// and touches no file.
struct AttemptReview {
    typealias Instant = ContinuousClock.Instant

    /// Where a redirect took an attempt: the URL and headers of its next request, how many it
    /// followed, and the origin the next request goes to.
    struct Hop {
        var url: String
        var headers: [HeaderField]
        /// Redirects followed in the attempt.
        var count: Int
        /// The origin of the next or running request, while it is the redirect's target.
        var origin: String?
    }

    /// Jobs whose attempt follows a redirect, until their next attempt or their end.
    private(set) var hops: [SliceID: Hop] = [:]
    /// What a failed attempt learned of its slice's file (``Representation``), by job: the next
    /// attempt's response must agree with it.
    private(set) var learned: [SliceID: Representation] = [:]
    /// What each resource's unsized bodies weighed so far, by plan entry.
    private var unsizedBodies: [Int: BodySizeEstimate] = [:]

    /// What an ended attempt comes to.
    enum Judgement: Equatable {
        /// A write, read-back or sync of the slice's own file failed.
        case writeFailed(WriteFailure)
        /// The origin redirects; ``redirect(_:location:ownURL:headers:)`` says whether to follow.
        case redirect(location: String)
        /// A 416 to a resume whose partial file already holds every declared byte: the partial
        /// is verified instead.
        case completePartial
        /// The attempt failed: its partial file is removed when `discardsPartial` (its bytes can
        /// never be continued), and a resume starts again from byte 0 when `restartsFromZero`.
        case failed(AttemptFailure, discardsPartial: Bool, restartsFromZero: Bool)
        /// A whole body, to verify.
        case body
        /// A 304 to a revalidation: the file in place is current.
        case notModified(OriginValidators)
    }

    /// What job `j`'s ended attempt comes to (a slice of `resource`, of `expectedSize` bytes when
    /// declared); `wallClock` (seconds since the epoch) is read only for a `Retry-After` date.
    mutating func judge(
        _ j: SliceID, resource: Int, _ report: AttemptReport, expectedSize: ByteCount?, backoff: Backoff, wallClock: @autoclosure () -> Int64
    ) -> Judgement {
        if let failure = report.writeFailure { return .writeFailed(failure) }
        switch report.verdict {
        case .redirect(let location):
            return .redirect(location: location)
        case .refused(var failure):
            if failure.status == 416, report.resumeOffset > 0 {
                if report.resumeOffset == expectedSize { return .completePartial }
                // Otherwise the partial file cannot be known whole (no declared size to hold it
                // to, or the server's file is now shorter; a 416 names no version), and failing
                // would leave it to get the same answer in every later run: it is discarded and
                // the slice starts again from byte 0.
                failure = ResponseCheck.rangeMismatch("HTTP 416 to a resume from byte \(report.resumeOffset.value): the partial file cannot be continued")
            }
            // A mismatched range or version, or a response refused for what it is: its bytes
            // were never the file's.
            let discards = Self.discardsPartial.contains(failure.kind)
            // What the partial file's metadata said of the file outlives it for this run.
            if discards, learned[j] == nil, let earlier = report.learned { learned[j] = earlier }
            if let value = report.retryAfter, let delay = RetryAfter.delay(value, now: wallClock()) {
                failure.retryAfter = backoff.clampRetryAfter(delay)
            }
            return .failed(failure, discardsPartial: discards, restartsFromZero: failure.kind == .rangeMismatch && report.resumeOffset > 0)
        case .notModified(let validators):
            // Its (empty) body was read to keep the connection; a transfer that broke meanwhile
            // still had the answer.
            return .notModified(validators)
        case .body:
            if expectedSize == nil, report.transport == nil { unsizedBodies[resource, default: BodySizeEstimate()].observe(report.written) }
            if let seen = report.representation, report.transport != nil || report.written != expectedSize ?? report.declaredEnd {
                // Held against the next attempt's response (only slices that need one keep it).
                learned[j] = seen
            }
            // File mode keeps what arrived for a resume; a memory body is dropped.
            if let transport = report.transport { return .failed(Self.failure(from: transport), discardsPartial: false, restartsFromZero: false) }
            if let expected = expectedSize, report.written != expected {
                let failure = AttemptFailure(
                    kind: .sizeMismatch, message: "received \(report.written.value) bytes, expected \(expected.value)", isTransient: true)
                return .failed(failure, discardsPartial: true, restartsFromZero: false)
            }
            if let end = report.declaredEnd, report.written != end {
                // The body stopped short of (or ran past) the length its own response declared.
                let failure = AttemptFailure(
                    kind: .truncated, message: "received \(report.written.value) bytes of the \(end.value) the response declared", isTransient: true)
                return .failed(failure, discardsPartial: true, restartsFromZero: false)
            }
            return .body
        case nil:
            let failure = Self.failure(from: report.transport ?? .other(code: -1, message: "the transfer ended without a response"))
            return .failed(failure, discardsPartial: false, restartsFromZero: false)
        }
    }

    /// Refusals whose partial file is removed.
    static let discardsPartial: Set<SliceErrorKind> = [.rangeMismatch, .inconsistentResponse, .tooLarge, .sizeMismatch, .contentEncoding, .transferEncoding]

    /// A body that failed its digest: the failure, and whether the slice starts again from byte
    /// 0 (a resume no validator vouched for: its bytes may be of another version).
    static func mismatch(expected: [Digest], actual: [Digest], isUnvalidatedResume: Bool) -> (failure: AttemptFailure, restartsFromZero: Bool) {
        var failure = AttemptFailure(kind: .checksumMismatch, message: Digest.mismatchDescription(expected: expected, actual: actual), isTransient: true)
        failure.actualDigests = actual
        guard isUnvalidatedResume else { return (failure, false) }
        failure.message += "; the resume had no validator, so its partial file is discarded and the slice fetched again from byte 0"
        return (failure, true)
    }

    // MARK: Retries

    enum Retry: Equatable {
        /// The slice fails with the attempt's failure.
        case fail
        /// Another attempt at `at`, `delay` from now; when `coolsDownOrigin`, the origin takes no
        /// request before then either (a 429 or 503).
        case retry(at: Instant, delay: Duration, coolsDownOrigin: Bool)
    }

    /// Whether job `j` gets another attempt after `failure`, its `attempts`-th: only a transient
    /// failure, while attempts are left, the run goes on, the origin has not been given up on
    /// and the retry would start before the resource timeout (from the slice's `firstStart`).
    /// The wait is the server's `Retry-After`, else the backoff's (`random` is drawn only then);
    /// `now` is read only when a retry is possible.
    /// A retry starts again at the slice's own URL, whatever a redirect said.
    mutating func retry(
        _ j: SliceID, after failure: AttemptFailure, attempts: Int, policy: RetryPolicy, resourceTimeout: Duration, firstStart: Instant?,
        now: @autoclosure () -> Instant, random: @autoclosure () -> Double, isStopping: Bool, originFailed: Bool
    ) -> Retry {
        guard failure.isTransient, attempts < policy.attempts, !isStopping, !originFailed else { return .fail }
        let delay = failure.retryAfter ?? policy.backoff.delay(afterAttempt: attempts, random: random())
        let now = now()
        if let firstStart, now + delay >= firstStart + resourceTimeout { return .fail }
        backToOwnOrigin(j)
        return .retry(at: now + delay, delay: delay, coolsDownOrigin: failure.coolsDownHost)
    }

    /// When job `j`'s next attempt must have ended: its resource timeout after its first start;
    /// `nil` when it has passed.
    static func attemptDeadline(firstStart: Instant, resourceTimeout: Duration, now: Instant) -> Instant? {
        let deadline = firstStart + resourceTimeout
        return now < deadline ? deadline : nil
    }

    static func failure(from transport: TransferResult.Failure) -> AttemptFailure {
        switch transport {
        case .resolve(let m): AttemptFailure(kind: .resolve, message: m, isTransient: true)
        case .connect(let m): AttemptFailure(kind: .connect, message: m, isTransient: true)
        case .timeout(let m), .connectTimeout(let m): AttemptFailure(kind: .timeout, message: m, isTransient: true)
        case .tls(let m): AttemptFailure(kind: .tls, message: m, isTransient: false)
        case .network(let m): AttemptFailure(kind: .network, message: m, isTransient: true)
        case .truncated(let m): AttemptFailure(kind: .truncated, message: m, isTransient: true)
        case .protocolRefused(let m): AttemptFailure(kind: .protocolRefused, message: m, isTransient: false)
        case .addressRefused(let m): AttemptFailure(kind: .addressRefused, message: m, isTransient: false)
        case .abortedBySink: AttemptFailure(kind: .other, message: "aborted", isTransient: false)
        case .cancelled: AttemptFailure(kind: .interrupted, message: "interrupted", isTransient: false)
        case .other(let code, let m): AttemptFailure(kind: .other, message: "\(m) (curl error \(code))", isTransient: false)
        }
    }

    // MARK: Redirects

    /// Whether job `j` follows its answer's `location`, and with which headers: the slice's own
    /// URL is `ownURL`, its headers `headers`; a redirect it already follows is where it stands.
    func redirect(_ j: SliceID, location: String, ownURL: String, headers: [HeaderField]) -> RedirectPolicy.Decision {
        let current = request(j, ownURL: ownURL, headers: headers)
        return RedirectPolicy.decide(
            location: location, current: current.url, original: ownURL, hops: hopCount(j), headers: current.headers)
    }

    /// Job `j`'s attempt goes on at `url` (a followed redirect, whose `origin` is worked out here
    /// when the caller has not), with `headers`.
    mutating func follow(_ j: SliceID, to url: String, origin: String? = nil, headers: [HeaderField]) {
        let origin = origin ?? (try? ParsedURL.parse(url).get())?.origin ?? url
        hops[j] = Hop(url: url, headers: headers, count: hopCount(j) + 1, origin: origin)
    }

    /// Redirects job `j`'s attempt has followed.
    private func hopCount(_ j: SliceID) -> Int {
        hops.isEmpty ? 0 : hops[j]?.count ?? 0
    }

    /// The URL and headers of job `j`'s next or running request: a redirect's, or the slice's own.
    func request(_ j: SliceID, ownURL: String, headers: @autoclosure () -> [HeaderField]) -> (url: String, headers: [HeaderField]) {
        if !hops.isEmpty, let hop = hops[j] { return (hop.url, hop.headers) }
        return (ownURL, headers())
    }

    /// The origin of job `j`'s next or running request when a redirect took it elsewhere.
    func redirectOrigin(_ j: SliceID) -> String? {
        hops.isEmpty ? nil : hops[j]?.origin
    }

    /// The URL a redirect took job `j` to, kept for its outcome until its next attempt.
    func redirectURL(_ j: SliceID) -> String? {
        hops.isEmpty ? nil : hops[j]?.url
    }

    /// Job `j`'s next request goes to its own origin (its redirect's URL stays for its outcome).
    mutating func backToOwnOrigin(_ j: SliceID) {
        if !hops.isEmpty { hops[j]?.origin = nil }
    }

    /// Job `j` starts a new attempt at its own URL, or has ended: its redirect is forgotten.
    mutating func forgetRedirect(_ j: SliceID) {
        if !hops.isEmpty { hops[j] = nil }
    }

    // MARK: What attempts hand on

    /// Job `j` goes to another of its URLs: what responses said of the file at the last one
    /// binds no other origin (mirrors may share a validator and differ in total).
    mutating func movedOrigin(_ j: SliceID) {
        if !learned.isEmpty { learned[j] = nil }
    }

    /// Job `j`'s attempt was given back (the network was gone): what its body's response said of
    /// the file holds for the next one.
    mutating func givenBack(_ j: SliceID, _ report: AttemptReport) {
        if case .body? = report.verdict, let seen = report.representation { learned[j] = seen }
    }

    /// The size a transfer of a slice of `resource` is planned by: its own, or the mean of its
    /// resource's unsized bodies so far.
    func plannedSize(resource: Int, declared: ByteCount?) -> ByteCount? {
        declared ?? unsizedBodies[resource]?.mean
    }
}
