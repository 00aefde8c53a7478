@testable import JobrunConditions
import Testing

@Suite struct MeteredSettingTests {
    @Test func theOptionBeatsTheEnvironmentWhichBeatsAuto() throws {
        let cases: [(MeteredSetting?, [String: String], MeteredSetting, String)] = [
            (.no, ["JOBRUN_METERED": "yes"], .no, "--metered no"),
            (nil, ["JOBRUN_METERED": "YES"], .yes, "JOBRUN_METERED=yes"),
            (nil, ["JOBRUN_METERED": ""], .auto, ""),
            (nil, [:], .auto, ""),
        ]
        for (option, environment, setting, source) in cases {
            let resolved = try MeteredSetting.resolve(option: option, environment: environment)
            #expect(resolved.setting == setting && resolved.source == source, "\(environment)")
        }
    }

    @Test func aTypoInTheEnvironmentIsAnErrorNotAuto() {
        #expect(throws: MeteredSetting.InvalidValue(text: "maybe")) {
            try MeteredSetting.resolve(option: nil, environment: ["JOBRUN_METERED": "maybe"])
        }
        #expect("\(MeteredSetting.InvalidValue(text: "1"))" == "JOBRUN_METERED=1 is not one of yes, no, auto")
    }

    @Test func saidStatesCarryTheirSourceAndAutoProbes() {
        var probed = 0
        let probe = { () -> MeteredState in
            probed += 1
            return MeteredState(value: .unknown, source: "no NetworkManager")
        }
        #expect(MeteredSetting.yes.state(source: "--metered yes", probe: probe) == MeteredState(value: .yes, source: "--metered yes"))
        #expect(MeteredSetting.no.state(source: "JOBRUN_METERED=no", probe: probe) == MeteredState(value: .no, source: "JOBRUN_METERED=no"))
        #expect(probed == 0)
        #expect(MeteredSetting.auto.state(source: "", probe: probe) == MeteredState(value: .unknown, source: "no NetworkManager"))
        #expect(probed == 1)
    }

    /// Only what is known to be bad holds discretionary work back; every reading keeps its source.
    @Test func conditionsReadingsAndTheirVerdict() {
        let good = Conditions(
            metered: MeteredState(value: .unknown, source: "no NetworkManager"), power: PowerState(isOnAC: true, reason: "no power supply"), busy: nil)
        #expect(good.allowDiscretionaryWork)
        #expect(
            good.readings.map { "\($0.name)=\($0.value) (\($0.source))" } == [
                "metered=unknown (no NetworkManager)", "power=ac (no power supply)", "busy=unknown (neither CPU pressure nor the load average can be read)",
            ])
        for bad in [
            Conditions(metered: MeteredState(value: .yes, source: "x"), power: good.power, busy: nil),
            Conditions(metered: good.metered, power: PowerState(isOnAC: false, reason: "x"), busy: nil),
            Conditions(metered: good.metered, power: good.power, busy: BusyState(isBusy: true, source: .controlGroup("/a"), reading: "x")),
        ] {
            #expect(!bad.allowDiscretionaryWork)
            #expect(bad.readings.filter(\.isBad).count == 1)
        }
        #expect(Conditions.notRead.readings.allSatisfy { !$0.isBad })
    }
}
