import JobrunCore
import JobrunManifest
public import JobrunPlan
import JobrunState

/// Renders a ``MirrorStatus`` for people (a line per resource, the runs, the summary) and for
/// programs (JSON). Times are RFC 3339 in UTC; for people with their age beside them.
public enum StatusReports {
    /// The stable summary line:
    /// `Status: 13 of 16 slices proven (2 changed, 1 missing), oldest proof 2026-11-25T09:00:00Z.`
    /// The parenthesis lists the slices not proven, nonzero counts only, in the order changed,
    /// moved or restored, unproven, missing, errors; with a maximum age, `, 4 older than 1d` follows it (even when
    /// 0); the oldest proof clause is there when a slice is proven.
    public static func summaryLine(_ s: MirrorStatus) -> String {
        summaryLine(counts: s.counts, maxAgeMilliseconds: s.maxAgeMilliseconds, oldestProofAtMilliseconds: s.oldestProofAtMilliseconds)
    }

    static func summaryLine(counts c: StatusCounts, maxAgeMilliseconds: Int64?, oldestProofAtMilliseconds: Int64?) -> String {
        var line = "Status: \(c.proven) of \(c.slices) slice\(c.slices == 1 ? "" : "s") proven"
        let notProven = notProvenParts(c)
        if !notProven.isEmpty { line += " (\(notProven.joined(separator: ", ")))" }
        if let maxAge = maxAgeMilliseconds { line += ", \(c.olderThanMaxAge) older than \(DurationParser.format(milliseconds: maxAge))" }
        if let oldest = oldestProofAtMilliseconds { line += ", oldest proof \(timestamp(oldest))" }
        return line + "."
    }

    private static func notProvenParts(_ c: StatusCounts) -> [String] {
        var parts: [String] = []
        if c.changed > 0 { parts.append("\(c.changed) changed") }
        if c.moved > 0 { parts.append("\(c.moved) moved or restored") }
        if c.unproven > 0 { parts.append("\(c.unproven) unproven") }
        if c.stale > 0 { parts.append("\(c.stale) stale") }
        if c.missing > 0 { parts.append("\(c.missing) missing") }
        if c.errors > 0 { parts.append("\(c.errors) error\(c.errors == 1 ? "" : "s")") }
        return parts
    }

    /// A line per resource (`=` every slice proven and, with a maximum age, recently enough;
    /// `~` otherwise), the runs newest first, then the summary line; with `problemsOnly`, the `~`
    /// lines and the summary.
    public static func text(_ s: MirrorStatus, problemsOnly: Bool = false) -> String {
        var out = ""
        for entry in s.entries where !(problemsOnly && entry.isOK) {
            let c = entry.counts
            var parts: [String] = []
            if c.proven > 0 {
                let old =
                    s.maxAgeMilliseconds.map { c.olderThanMaxAge > 0 ? " (\(c.olderThanMaxAge) older than \(DurationParser.format(milliseconds: $0)))" : "" }
                    ?? ""
                parts.append("\(c.proven) proven\(old)")
            }
            if c.changed > 0 { parts.append("\(c.changed) changed") }
            if c.moved > 0 { parts.append("\(c.moved) moved or restored (not re-proven)") }
            if c.unproven > 0 { parts.append("\(c.unproven) unproven") }
            if c.stale > 0 { parts.append("\(c.stale) stale (their origin's word is older than their refresh max_age)") }
            if c.missing > 0 { parts.append("\(c.missing) missing\(c.resumable > 0 ? " (\(c.resumable) to resume)" : "")") }
            if c.errors > 0 { parts.append("\(c.errors) error\(c.errors == 1 ? "" : "s")") }
            if parts.isEmpty { parts.append("no slices") }
            var line = "\(entry.isOK ? "=" : "~") \(entry.resource.id) -> \(entry.resource.folderPath)/: \(parts.joined(separator: ", "))"
            if let proven = entry.fullyProvenAtMilliseconds { line += "; fully proven \(moment(proven, now: s.nowMilliseconds))" }
            if let fetched = entry.lastFetchedAtMilliseconds { line += "; last fetched \(moment(fetched, now: s.nowMilliseconds))" }
            out += line + "\n"
        }
        if !s.runs.isEmpty && !problemsOnly {
            out += "Last runs, newest first:\n"
            for run in s.runs { out += "  " + runLine(run, now: s.nowMilliseconds) + "\n" }
        }
        out += summaryLine(s) + "\n"
        return out
    }

    /// `ID apply: started 2026-11-25T09:00:00Z (3h ago), took 12.3s, exit 0; fetched=4 up_to_date=12`
    /// (the counts that are not 0); a run without an end says so instead.
    static func runLine(_ run: StateStore.Run, now: Int64) -> String {
        var line = "\(run.runID) \(run.command): started \(moment(run.startedAtMilliseconds, now: now))"
        guard let ended = run.endedAtMilliseconds else { return line + ", not ended (killed, or still running)" }
        line += ", took \(duration(milliseconds: ended - run.startedAtMilliseconds))"
        if let status = run.exitStatus { line += ", exit \(status)" }
        if let reason = run.stopReason { line += " (stopped: \(reason))" }
        // Nonzero only: the JSON has them all.
        let counts = run.counts.filter { $0.value != 0 }
        if !counts.isEmpty { line += "; " + counts.map { "\($0.name)=\($0.value)" }.joined(separator: " ") }
        return line
    }

    /// `2026-11-25T09:00:00Z (3h ago)`.
    static func moment(_ milliseconds: Int64, now: Int64) -> String {
        "\(timestamp(milliseconds)) (\(age(of: milliseconds, now: now)))"
    }

    /// RFC 3339 in UTC, to the second: `2026-11-25T09:00:00Z`.
    static func timestamp(_ milliseconds: Int64) -> String {
        let seconds = milliseconds >= 0 ? milliseconds / 1000 : (milliseconds - 999) / 1000
        return JUnitReport.Timestamp(secondsSince1970: seconds).description + "Z"
    }

    /// How long before `now` an instant was, in its largest whole unit up to days, rounded down:
    /// `42s ago`, `5m ago`, `3h ago` (up to 47h), `12d ago`; `in the future` for one after `now`
    /// (a clock set back, or a store written on another host).
    static func age(of milliseconds: Int64, now: Int64) -> String {
        let elapsed = now - milliseconds
        guard elapsed >= 0 else { return "in the future" }
        let seconds = elapsed / 1000
        switch seconds {
        case ..<60: return "\(seconds)s ago"
        case ..<3_600: return "\(seconds / 60)m ago"
        case ..<172_800: return "\(seconds / 3_600)h ago"
        default: return "\(seconds / 86_400)d ago"
        }
    }

    /// A run's length: `850ms`, `12.3s`, `4m05s`, `2h07m` (rounded down; 0 for a clock set back).
    static func duration(milliseconds: Int64) -> String {
        let ms = max(0, milliseconds)
        switch ms {
        case ..<1_000: return "\(ms)ms"
        case ..<60_000: return "\(ms / 1_000).\(ms % 1_000 / 100)s"
        case ..<3_600_000: return "\(ms / 60_000)m\(twoDigits(ms % 60_000 / 1_000))s"
        default: return "\(ms / 3_600_000)h\(twoDigits(ms % 3_600_000 / 60_000))m"
        }
    }

    private static func twoDigits(_ n: Int64) -> String { n < 10 ? "0\(n)" : "\(n)" }
}
