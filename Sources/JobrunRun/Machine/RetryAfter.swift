import JobrunCore

/// A `Retry-After` header's wait (RFC 9110 §10.2.3): delay-seconds (digits only) or an
/// HTTP-date. A value that is neither — negative, fractional, words, too many digits to be a
/// sane delay — is absent, so the normal backoff applies instead of an immediate retry.
///
/// | value                            | wait                       |
/// |----------------------------------|----------------------------|
/// | `120`                            | 120 s                      |
/// | `0`                              | none (the server says now) |
/// | `Wed, 21 Oct 2026 07:28:00 GMT`  | until then; none if past   |
/// | `-5`, `1.5`, `soon`, `99…9` (20) | absent: backoff            |
enum RetryAfter {
    /// More digits than this is no delay a server means (over 31 years).
    static let maximumDigits = 9

    /// The wait `value` asks for, `now` being the wall clock in seconds since the epoch (read
    /// only for a date).
    static func delay(_ value: String, now: @autoclosure () -> Int64) -> Duration? {
        let t = value.trimmingASCII()
        if let seconds = Int64(decimalDigits: t) {
            return t.utf8.count <= maximumDigits ? .seconds(seconds) : nil
        }
        guard let date = HTTPDate.parse(t) else { return nil }
        return .seconds(max(0, date - now()))
    }
}
