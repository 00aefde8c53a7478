/// Transfer limits given on the command line (`--concurrency`, `--per-host`): each one given
/// replaces that limit of every resource, whatever its manifest says.
public struct ConcurrencyOverride: Hashable, Sendable {
    /// Replaces `concurrency.total`.
    public var total: Int?
    /// Replaces `concurrency.per_host`.
    public var perHost: Int?

    public init(total: Int? = nil, perHost: Int? = nil) {
        self.total = total
        self.perHost = perHost
    }

    public var isEmpty: Bool { total == nil && perHost == nil }

    /// `self`, with `fallback`'s limits where `self` gives none.
    public func over(_ fallback: ConcurrencyOverride) -> ConcurrencyOverride {
        ConcurrencyOverride(total: total ?? fallback.total, perHost: perHost ?? fallback.perHost)
    }
}

extension ConcurrencyLimits {
    /// The values a manifest (and the command line) may give `total`.
    public static let totalRange = 1...1024
    /// The values a manifest (and the command line) may give `per_host`.
    public static let perHostRange = 1...256
    /// The values a manifest may give `streams`.
    public static let streamsRange = 1...1000

    /// These limits with `override`'s in place of those it gives.
    public func overridden(by override: ConcurrencyOverride) -> ConcurrencyLimits {
        var limits = self
        if let total = override.total { limits.total = total }
        if let perHost = override.perHost { limits.perHost = perHost }
        return limits
    }
}
