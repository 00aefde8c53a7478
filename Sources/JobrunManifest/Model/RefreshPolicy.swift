public import JobrunCore

/// Whether and when a slice that declares no digest is asked of its origin again once its file is
/// in place (`refresh:`): a digest proves a file for good, but nothing proves that a file without
/// one is still the origin's current version but the origin.
public struct RefreshPolicy: Hashable, Sendable {
    public enum Mode: String, Hashable, Sendable, CaseIterable {
        /// A file in place is never asked for again (without a digest, only its size is checked).
        case never
        /// A conditional GET with the validators (ETag, Last-Modified) recorded when the file was
        /// fetched: a 304 proves it current without a body; a body replaces it when its bytes differ.
        case conditional
        /// A whole GET every time; the body replaces the file when its bytes differ.
        case always
    }

    public var mode: Mode = .never
    /// Asked again only once the origin's last word on the file (its fetch, or a revalidation) is
    /// older than this; `nil`: at every run.
    public var maxAge: Duration?

    public init(mode: Mode = .never, maxAge: Duration? = nil) {
        self.mode = mode
        self.maxAge = maxAge
    }

    public static let never = RefreshPolicy()

    /// Whether a slice under this policy is revalidated at all (one with digests never is).
    public func applies(toDigests digests: [Digest]) -> Bool { mode != .never && digests.isEmpty }

    /// Whether a file the origin last vouched for at `confirmedAt` (ms since the epoch) is due for
    /// another word at `now`: always without a `max_age` or a confirmation; once it is that old
    /// otherwise (a confirmation in the future, from a clock set back, is due too).
    public func isDue(confirmedAt: Int64?, now: Int64) -> Bool {
        guard let maxAge, let confirmedAt, confirmedAt <= now else { return true }
        return now - confirmedAt >= maxAge.wholeMilliseconds
    }
}
