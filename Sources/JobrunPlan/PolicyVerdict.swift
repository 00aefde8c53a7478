public import JobrunConditions
public import JobrunManifest
public import JobrunCore

/// What a resource's network policy says of its work now.
public enum PolicyVerdict: Sendable, Hashable {
    /// It may run. `overridden`: the conditions that would have deferred it, had it not been
    /// deferred for `max_deferral` already (each is a warning).
    case run(overridden: [Deferral.Cause])
    /// It waits, for these causes.
    case deferred(Deferral)
}

extension NetworkPolicy {
    /// Whether the conditions (metered, power, busy) can defer this policy's work: only then are
    /// they worth reading.
    public var looksAtConditions: Bool { !allowsCellular || isDiscretionary }

    /// The verdict of this policy under `conditions` at `nowMilliseconds` (since the epoch), for
    /// a resource first deferred at `firstDeferredMilliseconds`; `localZone` is the machine's
    /// zone, for a window without a `timezone`. A pure rule:
    ///
    /// | the policy                           | the moment                         | cause        |
    /// |--------------------------------------|------------------------------------|--------------|
    /// | `cellular: false` or `discretionary` | the network is metered             | `metered`    |
    /// | `discretionary: true`                | the machine runs on battery        | `battery`    |
    /// | `discretionary: true`                | the machine is busy                | `busy`       |
    ///
    /// Unknown readings defer nothing.
    public func verdict(conditions: Conditions, nowMilliseconds now: Int64, localZone: ZoneRules, firstDeferredMilliseconds: Int64?) -> PolicyVerdict {
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
        return held.isEmpty ? .run(overridden: []) : .deferred(Deferral(causes: held))
    }
}
