import JobrunConditions
import JobrunCore
import JobrunManifest
import JobrunTestSupport
import Testing
@testable import JobrunPlan
import JobrunSystem

@Suite struct PolicyVerdictTests {
    static func conditions(metered: MeteredState.Value, onAC: Bool, busy: Bool?) -> Conditions {
        Conditions(
            metered: MeteredState(value: metered, source: "test \(metered)"),
            power: PowerState(isOnAC: onAC, reason: onAC ? "'AC' online" : "battery 'BAT0' discharging"),
            busy: busy.map { BusyState(isBusy: $0, source: .system, reading: "CPU pressure \($0 ? 80 : 1) % over the last minute") })
    }

    /// Every combination of the policy and the conditions, judged against the rule table written
    /// out again here: metered defers what may not use a metered network or is discretionary;
    /// battery and busy defer discretionary work only; unknown readings defer nothing.
    @Test func conditionRulesOverEveryCombination() {
        for cellular in [true, false] {
            for discretionary in [true, false] {
                for metered in [MeteredState.Value.yes, .no, .unknown] {
                    for onAC in [true, false] {
                        for busy in [true, false, nil] as [Bool?] {
                            var policy = NetworkPolicy()
                            policy.allowsCellular = cellular
                            policy.isDiscretionary = discretionary
                            var expected: [DeferralReason] = []
                            if metered == .yes && (!cellular || discretionary) { expected.append(.metered) }
                            if discretionary && !onAC { expected.append(.battery) }
                            if discretionary && busy == true { expected.append(.busy) }
                            let verdict = policy.verdict(
                                conditions: Self.conditions(metered: metered, onAC: onAC, busy: busy), nowMilliseconds: 0, localZone: .utc,
                                firstDeferredMilliseconds: nil)
                            let context =
                                "cellular \(cellular), discretionary \(discretionary), metered \(metered), AC \(onAC), busy \(String(describing: busy))"
                            switch verdict {
                            case .run(let overridden):
                                #expect(expected.isEmpty && overridden.isEmpty, "\(context)")
                            case .deferred(let deferral):
                                #expect(deferral.reasons == expected, "\(context)")
                                #expect(deferral.untilMilliseconds == nil, "\(context)")
                            }
                            #expect(policy.defersForConditions == (!cellular || discretionary), "\(context)")
                        }
                    }
                }
            }
        }
    }

    @Test func theMessageNamesEveryCauseWithItsSource() {
        var policy = NetworkPolicy()
        policy.allowsCellular = false
        policy.isDiscretionary = true
        let verdict = policy.verdict(
            conditions: Self.conditions(metered: .yes, onAC: false, busy: true), nowMilliseconds: 0, localZone: .utc, firstDeferredMilliseconds: nil)
        guard case .deferred(let d) = verdict else {
            Issue.record("not deferred: \(verdict)")
            return
        }
        #expect(
            d.message
                == "deferred: metered network (test yes); on battery (battery 'BAT0' discharging); machine busy (CPU pressure 80 % over the last minute, system)"
        )
    }

    @Test func breakdownListsCausesInOrderAndLeavesOutNone() {
        #expect(DeferralReason.breakdown([:]) == "")
        #expect(DeferralReason.breakdown([.window: 4, .metered: 8, .dependency: 1]) == " (metered 8, window 4, dependency 1)")
        // The causes sort as the table names them, whatever order they were found in.
        let d = Deferral(causes: [Deferral.Cause(.dependency, "d"), Deferral.Cause(.busy, "b"), Deferral.Cause(.metered, "m")])
        #expect(d.reasons == [.metered, .busy, .dependency])
        #expect(DeferralReason.allCases.filter(\.isCondition) == [.metered, .battery, .busy])
    }
}

/// The time rules and `max_deferral`, with made-up instants.
@Suite struct PolicyTimeRulesTests {
    static let good = Conditions(metered: MeteredState(value: .no, source: "test"), power: PowerState(isOnAC: true, reason: "test"), busy: nil)
    static let metered = Conditions(metered: MeteredState(value: .yes, source: "test"), power: PowerState(isOnAC: true, reason: "test"), busy: nil)
    static let hour: Int64 = 3_600_000
    static let day = 24 * hour
    /// 2026-11-25T00:00:00Z.
    static let midnight: Int64 = 1_795_564_800_000
    static let cet = TimeZoneRules(posix: "CET-1CEST,M3.5.0,M10.5.0/3")

    static func policy(
        window: (Int, Int)? = nil, zone: TimeZoneRules? = nil, notBefore: Int64? = nil, maxDeferral: Duration? = nil, cellular: Bool = true
    ) -> NetworkPolicy {
        var p = NetworkPolicy()
        p.allowsCellular = cellular
        p.window = window.flatMap { DailyWindow(start: $0.0 * 60, end: $0.1 * 60) }
        p.timeZone = zone
        p.notBefore = notBefore.map { Date(timeIntervalSince1970: Double($0) / 1000) }
        p.maxDeferral = maxDeferral
        return p
    }

    static func deferral(_ verdict: PolicyVerdict) -> Deferral? {
        if case .deferred(let d) = verdict { return d }
        return nil
    }

    @Test func aWindowDefersOutsideItAndSaysWhenItOpens() throws {
        let policy = Self.policy(window: (1, 6))
        let early = try #require(
            Self.deferral(
                policy.verdict(conditions: Self.good, nowMilliseconds: Self.midnight + Self.hour / 2, localZone: .utc, firstDeferredMilliseconds: nil)))
        #expect(early.reasons == [.window])
        #expect(early.untilMilliseconds == Self.midnight + Self.hour)
        #expect(early.message == "deferred: outside the window 01:00-06:00 (UTC); it opens at 2026-11-25T01:00:00+00:00")
        #expect(
            policy.verdict(conditions: Self.good, nowMilliseconds: Self.midnight + 2 * Self.hour, localZone: .utc, firstDeferredMilliseconds: nil)
                == .run(overridden: []))
        // At its end it is closed again, until the next day.
        let late = try #require(
            Self.deferral(
                policy.verdict(conditions: Self.good, nowMilliseconds: Self.midnight + 6 * Self.hour, localZone: .utc, firstDeferredMilliseconds: nil)))
        #expect(late.untilMilliseconds == Self.midnight + Self.day + Self.hour)
    }

    /// The window is read in its own zone when it has one, else in the machine's.
    @Test func theWindowsZoneThenTheMachines() throws {
        let cet = try #require(Self.cet)
        // 22:00-06:00 Berlin time wraps midnight; at 12:00 UTC (13:00 in Berlin) it opens at 21:00 UTC.
        let noon = Self.midnight + 12 * Self.hour
        for policy in [Self.policy(window: (22, 6), zone: cet), Self.policy(window: (22, 6))] {
            let local = policy.timeZone == nil ? cet : .utc
            let d = try #require(Self.deferral(policy.verdict(conditions: Self.good, nowMilliseconds: noon, localZone: local, firstDeferredMilliseconds: nil)))
            #expect(d.untilMilliseconds == Self.midnight + 21 * Self.hour)
            #expect(d.message.hasSuffix("it opens at 2026-11-25T22:00:00+01:00"), "\(d.message)")
        }
        // The same window read in UTC is open at 23:30 UTC.
        #expect(
            Self.policy(window: (22, 6)).verdict(
                conditions: Self.good, nowMilliseconds: Self.midnight - Self.hour / 2, localZone: .utc, firstDeferredMilliseconds: nil) == .run(overridden: []))
    }

    @Test func notBeforeDefersUntilItsInstantAndTheLaterRuleWins() throws {
        let start = Self.midnight + 3 * Self.day
        let policy = Self.policy(notBefore: start)
        let d = try #require(
            Self.deferral(policy.verdict(conditions: Self.good, nowMilliseconds: Self.midnight, localZone: .utc, firstDeferredMilliseconds: nil)))
        #expect(d.reasons == [.notBefore] && d.untilMilliseconds == start)
        #expect(d.message == "deferred: not before 2026-11-28T00:00:00+00:00")
        #expect(policy.verdict(conditions: Self.good, nowMilliseconds: start, localZone: .utc, firstDeferredMilliseconds: nil) == .run(overridden: []))
        // Both rules: the work waits for the later of the two.
        let both = try #require(
            Self.deferral(
                Self.policy(window: (1, 6), notBefore: start).verdict(
                    conditions: Self.good, nowMilliseconds: Self.midnight + 7 * Self.hour, localZone: .utc, firstDeferredMilliseconds: nil)))
        #expect(both.reasons == [.window, .notBefore] && both.untilMilliseconds == start)
    }

    /// After `max_deferral` the conditions no longer defer (and are named as overridden); the
    /// time rules still do; before it, or never deferred before, the conditions defer as usual.
    @Test func maxDeferralLiftsConditionsNotTimeRules() throws {
        let week = Duration.seconds(7 * 86_400)
        let policy = Self.policy(maxDeferral: week, cellular: false)
        let now = Self.midnight + 10 * Self.day
        let weekAgo = now - 7 * Self.day
        #expect(
            Self.deferral(policy.verdict(conditions: Self.metered, nowMilliseconds: now, localZone: .utc, firstDeferredMilliseconds: nil))?.reasons == [
                .metered
            ])
        #expect(
            Self.deferral(policy.verdict(conditions: Self.metered, nowMilliseconds: now, localZone: .utc, firstDeferredMilliseconds: weekAgo + 1))?.reasons == [
                .metered
            ])
        #expect(
            policy.verdict(conditions: Self.metered, nowMilliseconds: now, localZone: .utc, firstDeferredMilliseconds: weekAgo)
                == .run(overridden: [Deferral.Cause(.metered, "metered network (test)")]))
        let windowed = Self.policy(window: (1, 6), maxDeferral: week, cellular: false)
        let d = try #require(
            Self.deferral(windowed.verdict(conditions: Self.metered, nowMilliseconds: now, localZone: .utc, firstDeferredMilliseconds: weekAgo)))
        #expect(d.reasons == [.window])
        // Without max_deferral, never lifted.
        #expect(
            Self.deferral(Self.policy(cellular: false).verdict(conditions: Self.metered, nowMilliseconds: now, localZone: .utc, firstDeferredMilliseconds: 0))?
                .reasons == [.metered])
    }
}
