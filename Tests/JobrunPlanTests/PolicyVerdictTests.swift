import JobrunConditions
import JobrunCore
import JobrunManifest
import JobrunTestSupport
import Testing
@testable import JobrunPlan

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
                            let context = "cellular \(cellular), discretionary \(discretionary), metered \(metered), AC \(onAC), busy \(String(describing: busy))"
                            switch verdict {
                            case .run(let overridden):
                                #expect(expected.isEmpty && overridden.isEmpty, "\(context)")
                            case .deferred(let deferral):
                                #expect(deferral.reasons == expected, "\(context)")
                                #expect(deferral.untilMilliseconds == nil, "\(context)")
                            }
                            #expect(policy.looksAtConditions == (!cellular || discretionary), "\(context)")
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
        #expect(d.message == "deferred: metered network (test yes); on battery (battery 'BAT0' discharging); machine busy (CPU pressure 80 % over the last minute, system)")
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
