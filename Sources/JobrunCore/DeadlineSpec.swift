/// `--deadline` (or `JOBRUN_DEADLINE`): a duration from now (`45m`), an RFC 3339 instant, or
/// `auto`: GitLab's job start (`CI_JOB_STARTED_AT`) plus its timeout (`CI_JOB_TIMEOUT`, seconds).
public enum DeadlineSpec {
    /// The deadline in milliseconds since the epoch.
    public static func resolve(_ text: String, nowMilliseconds now: Int64, environment: [String: String]) -> Result<Int64, DeadlineError> {
        if text == "auto" {
            guard let started = environment["CI_JOB_STARTED_AT"], let timeout = environment["CI_JOB_TIMEOUT"] else {
                return .failure(
                    DeadlineError(
                        text: text, reason: "'auto' needs CI_JOB_STARTED_AT and CI_JOB_TIMEOUT (set by GitLab CI); give a duration or an RFC 3339 time instead")
                )
            }
            guard let start = RFC3339.milliseconds(started) else {
                return .failure(DeadlineError(text: text, reason: "CI_JOB_STARTED_AT is not an RFC 3339 time"))
            }
            guard let seconds = Int64(decimalDigits: timeout), seconds > 0, seconds <= 31 * 86_400 else {
                return .failure(DeadlineError(text: text, reason: "CI_JOB_TIMEOUT is not a number of seconds"))
            }
            return .success(start + seconds * 1000)
        }
        if let ms = try? DurationParser.milliseconds(text).get() {
            guard ms > 0 else { return .failure(DeadlineError(text: text, reason: "a duration must be positive")) }
            return .success(now + ms)
        }
        if let instant = RFC3339.milliseconds(text) { return .success(instant) }
        return .failure(DeadlineError(text: text, reason: "not a duration (45m, 1h30m), an RFC 3339 time (2026-11-25T18:00:00Z) or 'auto'"))
    }
}

/// A deadline jobrun cannot use.
public struct DeadlineError: Error, Sendable, Equatable, CustomStringConvertible {
    public var text: String
    public var reason: String
    public var description: String { "'\(text)': \(reason)" }
}
