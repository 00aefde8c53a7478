import JobrunCore
import JobrunManifest
import JobrunTestSupport
import Testing
@testable import JobrunReport
import JobrunJSON

/// A resource's `settings.network` in plan JSON: the manifest's keys, `null` when not given.
@Suite struct PlanJSONNetworkTests {
    static func network(_ settings: ResourceSettings) -> String {
        var w = JSONWriter(pretty: false)
        PlanJSON.writeSettings(settings, into: &w)
        let text = String(decoding: w.finish(), as: UTF8.self)
        guard let start = text.range(of: #""network":"#), let end = text[start.upperBound...].firstIndex(of: "}") else { return text }
        return String(text[start.upperBound...end])
    }

    @Test func absentKeysAreNull() {
        #expect(
            Self.network(ResourceSettings())
                == #"{"cellular":true,"discretionary":false,"window":null,"timezone":null,"not_before":null,"max_deferral_ms":null}"#)
    }

    @Test func givenKeysAsTheManifestWritesThem() throws {
        var settings = ResourceSettings()
        settings.network.allowsCellular = false
        settings.network.isDiscretionary = true
        settings.network.window = DailyWindow(start: 22 * 60, end: 6 * 60)
        settings.network.timeZone = try ZoneInfoFixture.rules("Europe/Berlin")
        settings.network.notBefore = Date(timeIntervalSince1970: 1_796_090_400)
        settings.network.maxDeferral = .seconds(7 * 86_400)
        #expect(
            Self.network(settings)
                == #"{"cellular":false,"discretionary":true,"window":"22:00-06:00","timezone":"Europe/Berlin","not_before":"2026-12-01T02:00:00.000Z","max_deferral_ms":604800000}"#
        )
    }
}
