/// Why the network policy holds a resource's work back, in the order reports name them.
public enum DeferralReason: String, Sendable, Hashable, CaseIterable, Comparable {
    /// The network is metered and the resource may not use such a network.
    case metered
    /// Discretionary work, and the machine runs on battery.
    case battery
    /// Discretionary work, and the machine is busy.
    case busy
    /// Outside the resource's daily window.
    case window
    /// Before the resource's earliest start.
    case notBefore = "not_before"
    /// A resource it depends on is deferred.
    case dependency

    /// Metered, battery, busy: what `max_deferral` overrides (the time rules it does not).
    public var isCondition: Bool {
        switch self {
        case .metered, .battery, .busy: true
        case .window, .notBefore, .dependency: false
        }
    }

    /// ` (metered 8, window 4)`: slices by cause in this order, causes with none left out;
    /// nothing when there are none.
    public static func breakdown(_ slices: [DeferralReason: Int]) -> String {
        let parts = allCases.compactMap { r in slices[r].map { "\(r.rawValue) \($0)" } }
        return parts.isEmpty ? "" : " (" + parts.joined(separator: ", ") + ")"
    }

    public static func < (a: DeferralReason, b: DeferralReason) -> Bool {
        allCases.firstIndex(of: a) ?? 0 < allCases.firstIndex(of: b) ?? 0
    }
}

/// A resource's work held back by its network policy, and why: never silent, every cause is
/// named with what decided it.
public struct Deferral: Sendable, Hashable {
    public struct Cause: Sendable, Hashable {
        public var reason: DeferralReason
        /// `metered network (NetworkManager Metered=GUESS_YES)`.
        public var detail: String

        public init(_ reason: DeferralReason, _ detail: String) {
            self.reason = reason
            self.detail = detail
        }
    }

    /// At least one, in ``DeferralReason`` order.
    public var causes: [Cause]
    /// When the time rules (window, not_before) allow the work again, in milliseconds since the
    /// epoch; nil when they do not defer it.
    public var untilMilliseconds: Int64?

    public init(causes: [Cause], untilMilliseconds: Int64? = nil) {
        self.causes = causes.sorted { $0.reason < $1.reason }
        self.untilMilliseconds = untilMilliseconds
    }

    public var reasons: [DeferralReason] { causes.map(\.reason) }

    /// `deferred: metered network (NetworkManager Metered=GUESS_YES); on battery (…)`: what a
    /// skipped test case, a slice's reason and the log say.
    public var message: String {
        "deferred: " + causes.map(\.detail).joined(separator: "; ")
    }
}
