public import JobrunConditions
public import JobrunManifest
public import JobrunCore
public import JobrunSystem

/// What a resource's network policy says of its work now.
public enum PolicyVerdict: Sendable, Hashable {
    /// It may run. `overridden`: the conditions that would have deferred it, had it not been
    /// deferred for `max_deferral` already (each is a warning).
    case run(overridden: [Deferral.Cause])
    /// It waits, for these causes.
    case deferred(Deferral)
}

extension NetworkPolicy {
    /// The verdict of this policy under `conditions` at `nowMilliseconds` (since the epoch), for
    /// a resource first deferred at `firstDeferredMilliseconds`; `localZone` is the machine's
    /// zone, for a window without a `timezone`. A pure rule:
    ///
    /// | the policy                           | the moment                         | cause        |
    /// |--------------------------------------|------------------------------------|--------------|
    /// | `cellular: false` or `discretionary` | the network is metered             | `metered`    |
    /// | `discretionary: true`                | the machine runs on battery        | `battery`    |
    /// | `discretionary: true`                | the machine is busy                | `busy`       |
    /// | `window`                             | outside it (in its zone)           | `window`     |
    /// | `not_before`                         | before it                          | `not_before` |
    ///
    /// Unknown readings defer nothing. Deferred for `max_deferral` or longer, the first three no
    /// longer defer (the verdict names them as overridden); the time rules always do.
    public func verdict(conditions: Conditions, nowMilliseconds now: Int64, localZone: TimeZoneRules, firstDeferredMilliseconds: Int64?) -> PolicyVerdict {
        var held: [Deferral.Cause] = []
        if (!allowsCellular || isDiscretionary) && conditions.metered.isMetered {
            held.append(Deferral.Cause(.metered, "metered network (\(conditions.metered.source))"))
        }
        if isDiscretionary && !conditions.power.isOnAC {
            held.append(Deferral.Cause(.battery, "on battery (\(conditions.power.reason))"))
        }
        if isDiscretionary, let busy = conditions.busy, busy.isBusy {
            held.append(Deferral.Cause(.busy, "machine busy (\(busy.reading), \(busy.source.description))"))
        }
        var timed: [Deferral.Cause] = []
        var until: Int64?
        let zone = timeZone ?? localZone
        if let window {
            let date = Date(timeIntervalSince1970: Double(now) / 1000)
            if !window.contains(date, in: zone) {
                let opens = window.nextOpening(after: date, in: zone).map { Int64(($0.timeIntervalSince1970 * 1000).rounded(.up)) }
                until = opens
                let when = opens.map { "; it opens at \(zone.rfc3339(second: CivilDate.floorDivide($0, 1000)))" } ?? ""
                timed.append(Deferral.Cause(.window, "outside the window \(window) (\(zone.identifier))\(when)"))
            }
        }
        if let notBefore {
            let start = Int64((notBefore.timeIntervalSince1970 * 1000).rounded(.up))
            if now < start {
                until = max(until ?? start, start)
                timed.append(Deferral.Cause(.notBefore, "not before \(zone.rfc3339(second: CivilDate.floorDivide(start, 1000)))"))
            }
        }
        var overridden: [Deferral.Cause] = []
        if !held.isEmpty, let maxDeferral, let first = firstDeferredMilliseconds, now - first >= maxDeferral.wholeMilliseconds {
            overridden = held
            held = []
        }
        let causes = held + timed
        guard !causes.isEmpty else { return .run(overridden: overridden) }
        return .deferred(Deferral(causes: causes, untilMilliseconds: timed.isEmpty ? nil : until))
    }
}
