/// Counts of slices without a digest, for the clause every summary line adds when there are any.
public struct IntegrityCounts: Sendable, Hashable {
    public var sizeOnly = 0
    public var unverified = 0

    public init() {}

    public var withoutDigests: Int { sizeOnly + unverified }

    /// Counts `integrity` (a slice with a digest counts nowhere).
    public mutating func add(_ integrity: SliceIntegrity) {
        switch integrity {
        case .digest: break
        case .sizeOnly: sizeOnly += 1
        case .unverified: unverified += 1
        }
    }

    public static func += (lhs: inout IntegrityCounts, rhs: IntegrityCounts) {
        lhs.sizeOnly += rhs.sizeOnly
        lhs.unverified += rhs.unverified
    }

    /// The clause the plan, apply and verify summary lines put before their final period, a
    /// stable contract: `; 6 without digests (2 size only, 4 unverified)`, always with both
    /// counts, so one pattern parses it; empty when every slice has a digest, so those lines
    /// stay as they were.
    public var summaryClause: String {
        withoutDigests == 0 ? "" : "; \(withoutDigests) without digests (\(sizeOnly) size only, \(unverified) unverified)"
    }
}
