public import JobrunPlan
public import JobrunFiles

/// What became of a slice's partial file in a run: kept for the next attempt or run to resume,
/// or removed, and why.
public enum PartialFate: Sendable, Hashable {
    case kept
    case discarded(Reason)

    public enum Reason: Sendable, Hashable, CustomStringConvertible {
        /// An attempt ended with a partial file that nothing could resume.
        case unresumable(PartialDownload.Obstacle)
        /// A resume without a validator failed the slice's digest; the slice was fetched again
        /// from byte 0.
        case failedDigest

        public var description: String {
            switch self {
            case .unresumable(let obstacle): obstacle.description
            case .failedDigest: "resumed without a validator, it failed the digest"
            }
        }
    }
}
