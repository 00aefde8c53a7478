/// The UTC offsets of one time zone through time, as the system's time zone database (TZif
/// files, RFC 8536) gives them: what local time it is at an instant, and at which instant a local
/// time is first reached.
///
/// jobrun reads the database itself: FoundationEssentials knows no zone but UTC without ICU,
/// which it does not link (see Platform.swift). Instants are seconds since the epoch, offsets
/// seconds east of UTC; every offset lies within ±26 hours (a file with others is refused).
public struct TimeZoneRules: Hashable, Sendable {
    /// The name it was loaded by (`Europe/Berlin`), or the `TZ` string or file it came from.
    public let identifier: String
    /// Instants at which the offset changes, strictly ascending.
    let transitions: [Int64]
    /// The offset from each transition on.
    let offsetsAfter: [Int64]
    /// The offset before the first transition.
    let initialOffset: Int64
    /// The offsets after the last transition (or at all times when there is none); `nil` keeps
    /// the last one.
    let rule: POSIXTimeZoneRule?

    /// Offsets must stay within this many seconds of UTC, which ``firstInstant(reaching:)`` relies on.
    static let offsetLimit: Int64 = 26 * 3_600

    init(identifier: String, transitions: [Int64], offsetsAfter: [Int64], initialOffset: Int64, rule: POSIXTimeZoneRule?) {
        self.identifier = identifier
        self.transitions = transitions
        self.offsetsAfter = offsetsAfter
        self.initialOffset = initialOffset
        self.rule = rule
    }

    /// UTC, which needs no database.
    public static let utc = TimeZoneRules(identifier: "UTC", transitions: [], offsetsAfter: [], initialOffset: 0, rule: nil)

    /// A zone given as a POSIX `TZ` string (`CET-1CEST,M3.5.0,M10.5.0/3`, `<+0530>-5:30`), with
    /// the string as its identifier; `nil` when `text` is not one.
    public init?(posix text: String) {
        guard let rule = POSIXTimeZoneRule(text) else { return nil }
        self.init(identifier: text, transitions: [], offsetsAfter: [], initialOffset: rule.standardOffset, rule: rule)
    }

    /// Seconds east of UTC at `instant`.
    public func offset(at instant: Int64) -> Int64 {
        guard let first = transitions.first, instant >= first else {
            return transitions.isEmpty ? (rule?.offset(at: instant) ?? initialOffset) : initialOffset
        }
        let i = lastTransitionIndex(atOrBefore: instant)
        if i == transitions.count - 1, let rule { return rule.offset(at: instant) }
        return offsetsAfter[i]
    }

    /// The local clock at `instant`, as seconds since 1970-01-01 00:00 local time: local days are
    /// whole multiples of 86 400.
    public func localSeconds(at instant: Int64) -> Int64 {
        instant + offset(at: instant)
    }

    /// The earliest instant at which the local clock reads `local` (seconds since 1970-01-01
    /// 00:00 local time) or later.
    ///
    /// | `local` is | the result is |
    /// |---|---|
    /// | read once | that instant |
    /// | skipped by a change forward (02:30 when 02:00 becomes 03:00) | the change's instant: the next local time that exists |
    /// | read twice, a change back repeating it | its first occurrence |
    public func firstInstant(reaching local: Int64) -> Int64 {
        // Every offset is within ±26 h, so the answer lies within 26 h of `local` read as UTC.
        let lower = local - 2 * 86_400, upper = local + 2 * 86_400
        let pieces = offsetPieces(from: lower, to: upper)
        for (k, piece) in pieces.enumerated() {
            let candidate = max(piece.start, local - piece.offset)
            if k == pieces.count - 1 || candidate < pieces[k + 1].start { return candidate }
        }
        return local - offset(at: local)
    }

    /// The offsets in effect from `lower` up to `upper`: the first piece starts at `lower`, each
    /// next one at a transition, in time order.
    func offsetPieces(from lower: Int64, to upper: Int64) -> [(start: Int64, offset: Int64)] {
        var starts: [Int64] = []
        if !transitions.isEmpty {
            var i = lastTransitionIndex(atOrBefore: lower) + 1
            while i < transitions.count, transitions[i] < upper {
                starts.append(transitions[i])
                i += 1
            }
        }
        if let rule, rule.daylight != nil, upper > transitions.last ?? Int64.min {
            let after = transitions.last ?? Int64.min
            let first = CivilDate.date(daysSince1970: CivilDate.floorDivide(lower, 86_400)).year - 1
            let last = CivilDate.date(daysSince1970: CivilDate.floorDivide(upper, 86_400)).year + 1
            for t in rule.transitions(inYears: first...last) where t.instant > lower && t.instant < upper && t.instant > after {
                starts.append(t.instant)
            }
        }
        starts.sort()
        var pieces = [(start: lower, offset: offset(at: lower))]
        for s in starts where s > pieces[pieces.count - 1].start {
            pieces.append((s, offset(at: s)))
        }
        return pieces
    }

    /// The index of the last transition at or before `instant`, -1 when there is none.
    func lastTransitionIndex(atOrBefore instant: Int64) -> Int {
        var low = 0, high = transitions.count
        while low < high {
            let mid = (low + high) / 2
            if transitions[mid] <= instant { low = mid + 1 } else { high = mid }
        }
        return low - 1
    }
}
