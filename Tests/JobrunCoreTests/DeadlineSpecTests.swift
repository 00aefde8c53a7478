import Testing
@testable import JobrunCore

@Suite struct DeadlineSpecTests {
    @Test(arguments: [
        ("1970-01-01T00:00:00Z", Int64(0)),
        ("2026-11-25T08:40:00.123Z", 1_795_596_000_123),
        ("2026-11-25t09:40:00.1+01:00", 1_795_596_000_100),
        ("2026-11-25 03:10:00.123456-05:30", 1_795_596_000_123),
        ("2024-02-29T00:00:00Z", 1_709_164_800_000),
    ])
    func rfc3339Instants(text: String, ms: Int64) {
        #expect(RFC3339.milliseconds(text) == ms)
    }

    @Test(arguments: [
        "2026-11-25T08:40:00", "2026-11-25T08:40Z", "2025-02-29T00:00:00Z", "2026-13-01T00:00:00Z",
        "2026-11-25T24:00:00Z", "2026-11-25T08:40:00.Z", "2026-11-25T08:40:00+0100", "2026-11-25T08:40:00Zjunk", "+2026-11-25T08:40:00Z",
    ])
    func notRFC3339(text: String) {
        #expect(RFC3339.milliseconds(text) == nil)
    }

    @Test func durationsInstantsAndAuto() {
        let now: Int64 = 1_000_000
        #expect(DeadlineSpec.resolve("45m", nowMilliseconds: now, environment: [:]) == .success(now + 45 * 60_000))
        #expect(DeadlineSpec.resolve("1970-01-01T00:00:10Z", nowMilliseconds: now, environment: [:]) == .success(10_000))
        let gitlab = ["CI_JOB_STARTED_AT": "2026-11-25T08:00:00Z", "CI_JOB_TIMEOUT": "3600"]
        #expect(DeadlineSpec.resolve("auto", nowMilliseconds: now, environment: gitlab) == .success(1_795_593_600_000 + 3_600_000))
        for env in [[:], ["CI_JOB_STARTED_AT": "yesterday", "CI_JOB_TIMEOUT": "3600"], ["CI_JOB_STARTED_AT": "2026-11-25T08:00:00Z", "CI_JOB_TIMEOUT": "1h"]] {
            guard case .failure = DeadlineSpec.resolve("auto", nowMilliseconds: now, environment: env) else {
                Issue.record("auto with \(env) resolved")
                continue
            }
        }
        for bad in ["0s", "soon", "", "-5m"] {
            guard case .failure(let e) = DeadlineSpec.resolve(bad, nowMilliseconds: now, environment: [:]) else {
                Issue.record("'\(bad)' resolved")
                continue
            }
            #expect(e.description.hasPrefix("'\(bad)': "))
        }
    }
}
