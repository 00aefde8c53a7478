public import JobrunCore
public import JobrunSystem

/// A range of local time repeated every day (`01:00-06:00`, or across midnight `22:00-06:00`):
/// when a resource's network policy lets it transfer.
///
/// Each local day D has one opening and one closing, found on the zone's local clock:
///
/// | | the instant |
/// |---|---|
/// | opens | the first at which the clock reads `start` on D, or later |
/// | closes | the first at which the clock reads `end` on D (on D+1 when the window wraps midnight), or later |
///
/// So a start or end that a change forward skips takes effect at the change (the next minute
/// that exists), one that a change back repeats takes effect at its first occurrence: a window
/// across a change back stays open without a break (an hour longer), one across a change forward
/// is an hour shorter, and one lying wholly inside a skipped hour does not open that day. The
/// functions are pure: they take the instant and the zone and read no clock.
public struct DailyWindow: Hashable, Sendable, CustomStringConvertible {
    /// Minutes after local midnight, 0…1439.
    public let start: Int
    /// Minutes after local midnight, 0…1440 (1440 is the midnight that ends the day); not `start`.
    public let end: Int

    /// `nil` unless `start` is 0…1439, `end` 0…1440, they differ, and they are not a whole day
    /// (0 to 1440, which is no window).
    public init?(start: Int, end: Int) {
        guard (0..<1440).contains(start), (0...1440).contains(end), start != end, !(start == 0 && end == 1440) else { return nil }
        self.start = start
        self.end = end
    }

    /// Whether it runs past midnight into the next day (`22:00-06:00`, and `22:00-00:00`).
    public var wrapsMidnight: Bool { end <= start }

    /// `01:00-06:00`, as a manifest writes it.
    public var description: String { Self.format(start) + "-" + Self.format(end) }

    static func format(_ minutes: Int) -> String {
        let h = minutes / 60, m = minutes % 60
        return (h < 10 ? "0" : "") + String(h) + ":" + (m < 10 ? "0" : "") + String(m)
    }

    /// Whether the window is open at `date` in `zone`.
    public func contains(_ date: Date, in zone: TimeZoneRules) -> Bool {
        let t = Self.seconds(date)
        var intervals = Intervals(window: self, zone: zone, around: t)
        while let interval = intervals.next(), interval.open <= t {
            if t < interval.close { return true }
        }
        return false
    }

    /// The first instant after `date` at which the window opens (after the current opening when
    /// it is open at `date`). `nil` only when it does not open within 400 days, which a valid
    /// window in a real zone always does.
    public func nextOpening(after date: Date, in zone: TimeZoneRules) -> Date? {
        firstEdge(after: date, in: zone) { $0.open }
    }

    /// The first instant after `date` at which the window closes (the end of the current opening
    /// when it is open at `date`). `nil` as for ``nextOpening(after:in:)``.
    public func nextClosing(after date: Date, in zone: TimeZoneRules) -> Date? {
        firstEdge(after: date, in: zone) { $0.close }
    }

    /// The first opening's or closing's instant (as `edge` picks) after `date`.
    private func firstEdge(after date: Date, in zone: TimeZoneRules, _ edge: (Interval) -> Int64) -> Date? {
        let t = Self.seconds(date)
        var intervals = Intervals(window: self, zone: zone, around: t)
        while let interval = intervals.next() {
            if edge(interval) > t { return Date(timeIntervalSince1970: Double(edge(interval))) }
        }
        return nil
    }

    /// Whole seconds since the epoch, rounded down: openings and closings are whole seconds, so
    /// comparing against the floor compares against the instant itself.
    static func seconds(_ date: Date) -> Int64 {
        let t = date.timeIntervalSince1970.rounded(.down)
        guard t.isFinite else { return t > 0 ? Self.farAway : -Self.farAway }
        return Int64(max(-Double(Self.farAway), min(Double(Self.farAway), t)))
    }

    /// About 35 million years: keeps day arithmetic far from overflow for any `Date`.
    static let farAway: Int64 = 1 << 50

    /// One opening: from `open` up to, not including, `close`.
    struct Interval {
        var open: Int64
        var close: Int64
    }

    /// The window's openings in time order, starting two local days before an instant; empty ones
    /// (a window inside a skipped hour) are left out and ones that touch (when a change forward
    /// skips both the end and the next start) are joined. An interval is given only once the next
    /// one is known not to touch it, so none past the horizon.
    struct Intervals: IteratorProtocol {
        let window: DailyWindow
        let zone: TimeZoneRules
        var day: Int64
        let lastDay: Int64
        var pending: Interval?

        init(window: DailyWindow, zone: TimeZoneRules, around t: Int64) {
            self.window = window
            self.zone = zone
            let local = zone.localSeconds(at: t)
            let today = local >= 0 ? local / 86_400 : (local - 86_399) / 86_400
            day = today - 2
            lastDay = today + 400
        }

        func interval(onDay d: Int64) -> Interval {
            let open = zone.firstInstant(reaching: d * 86_400 + Int64(window.start) * 60)
            let closeDay = window.wrapsMidnight ? d + 1 : d
            return Interval(open: open, close: zone.firstInstant(reaching: closeDay * 86_400 + Int64(window.end) * 60))
        }

        mutating func next() -> Interval? {
            while day <= lastDay {
                let next = interval(onDay: day)
                day += 1
                if next.close <= next.open { continue }
                guard let current = pending else {
                    pending = next
                    continue
                }
                if next.open <= current.close {
                    pending = Interval(open: current.open, close: max(current.close, next.close))
                    continue
                }
                pending = next
                return current
            }
            return nil
        }
    }
}
