/// How many slices are in each ``SliceStatus``.
public struct StatusCounts: Sendable, Hashable {
    public var proven = 0
    public var changed = 0
    public var moved = 0
    public var unproven = 0
    /// Files proven whose origin's word is older than their `refresh:` `max_age`.
    public var stale = 0
    public var missing = 0
    public var errors = 0
    /// Of the missing slices, those with a partial download `apply` would continue.
    public var resumable = 0
    /// Of the proven slices, those proven longer ago than the maximum age asked for (`--max-age`).
    public var olderThanMaxAge = 0

    public init() {}

    public var slices: Int { proven + changed + moved + unproven + stale + missing + errors }

    /// Every slice is proven (true when there is none).
    public var isAllProven: Bool { proven == slices }

    public mutating func add(_ status: SliceStatus) {
        switch status {
        case .proven: proven += 1
        case .changed: changed += 1
        case .moved: moved += 1
        case .unproven: unproven += 1
        case .stale: stale += 1
        case .missing: missing += 1
        case .error: errors += 1
        }
    }

    public static func += (lhs: inout StatusCounts, rhs: StatusCounts) {
        lhs.proven += rhs.proven
        lhs.changed += rhs.changed
        lhs.moved += rhs.moved
        lhs.unproven += rhs.unproven
        lhs.stale += rhs.stale
        lhs.missing += rhs.missing
        lhs.errors += rhs.errors
        lhs.resumable += rhs.resumable
        lhs.olderThanMaxAge += rhs.olderThanMaxAge
    }
}
