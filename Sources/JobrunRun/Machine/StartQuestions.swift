import JobrunCore
/// What the scheduler asks the rest of the run's machine about a slice it would start.
protocol StartQuestions {
    /// Whether `origin` may be sent a request now (its breaker, the offline pause).
    func mayStart(at origin: String) -> Bool
    /// Job `job`'s bytes still to fetch, when known (asked only by gates).
    func expectedBytes(_ job: SliceID) -> ByteCount?
    /// Whether job `job`'s start continues an attempt the gates already admitted (a redirect's
    /// next request), which they are not asked about again.
    func continuesAttempt(_ job: SliceID) -> Bool
}
