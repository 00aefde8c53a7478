extension StateStore {
    /// An origin quarantined for wrong bytes by a run, as the store remembers it.
    public struct QuarantinedOrigin: Sendable, Hashable {
        public var origin: String
        /// Until when, in milliseconds since the epoch.
        public var untilMilliseconds: Int64
        /// Its last wrong answer.
        public var reason: String

        /// How long a quarantine is remembered after the run that made it: a day, so that the
        /// next runs of a daily or hourly job start elsewhere, and a mirror that was repaired is
        /// tried again within a day.
        public static let rememberedFor: Int64 = 24 * 3_600_000

        public init(origin: String, untilMilliseconds: Int64, reason: String) {
            self.origin = origin
            self.untilMilliseconds = untilMilliseconds
            self.reason = reason
        }
    }

    /// The origins quarantined until after `nowMilliseconds`, by origin.
    public func quarantinedOrigins(atMilliseconds now: Int64) throws(StateError) -> [String: QuarantinedOrigin] {
        var found: [String: QuarantinedOrigin] = [:]
        guard hasQuarantine else { return found }
        for row in try db.query("SELECT origin, until_ms, reason FROM origin_quarantine WHERE until_ms > ?", [.integer(now)]) {
            guard row.count == 3, case .text(let origin) = row[0], case .integer(let until) = row[1], case .text(let reason) = row[2] else { continue }
            found[origin] = QuarantinedOrigin(origin: origin, untilMilliseconds: until, reason: reason)
        }
        return found
    }

    /// Records that `origin` is quarantined until `untilMilliseconds` for `reason` (a later
    /// quarantine replaces an earlier one); quarantines past at `nowMilliseconds` are dropped.
    public func recordQuarantined(_ q: QuarantinedOrigin, atMilliseconds now: Int64) throws(StateError) {
        try db.transaction { () throws(StateError) in
            try db.query("DELETE FROM origin_quarantine WHERE until_ms <= ?", [.integer(now)])
            try db.query(
                """
                INSERT INTO origin_quarantine (origin, until_ms, reason) VALUES (?, ?, ?)
                    ON CONFLICT (origin) DO UPDATE SET until_ms = max(until_ms, excluded.until_ms), reason = excluded.reason
                """,
                [.text(q.origin), .integer(q.untilMilliseconds), .text(q.reason)])
        }
    }
}
