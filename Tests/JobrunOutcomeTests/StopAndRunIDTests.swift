import JobrunCore
import Testing
@testable import JobrunManifest
@testable import JobrunOutcome

/// How a stopped run ends (its last line and exit status), and run ids.
@Suite struct StopAndRunIDTests {
    static func cut(kept: Bool) -> SliceOutcome {
        var o = SliceOutcome(
            status: .skipped, failure: AttemptFailure(kind: .interrupted, message: "interrupted in flight", isTransient: false),
            skipReason: "interrupted in flight", displayURL: "http://h/s")
        o.partial = kept ? .kept : nil
        return o
    }

    /// The deadline's line counts what was fetched, what was cut in flight (and kept) and what
    /// never started with its declared bytes; failures still exit 1, otherwise 75.
    @Test func theDeadlineLineSaysWhatRemains() {
        var entry = ApplyResultTests.entry(
            "a", [(.fetched, 100), (.skipped, 0), (.skipped, 0), (.skipped, 0), (.resumed, 20)],
            integrities: [.digest, .sizeOnly, .sizeOnly, .sizeOnly, .digest])
        entry.outcomes[1] = Self.cut(kept: true)
        entry.outcomes[2] = Self.cut(kept: false)
        entry.outcomes[3] = SliceOutcome(status: .skipped, skipReason: "not started: the run stopped at its deadline", displayURL: "http://h/s")
        let result = ApplyResult(entries: [entry], stopReason: .deadline, elapsed: .seconds(3))
        #expect(
            result.summaryLine
                == "Apply stopped at deadline: 2 fetched (120 B), 2 cut in flight (1 partial file kept to resume), 1 not started (10 B). Run the same command again to continue."
        )
        #expect(result.exitStatus == .locked && result.exitStatus.rawValue == 75)
        #expect(!result.isSuccess)

        var failed = entry
        failed.outcomes[0] = SliceOutcome(status: .failed, displayURL: "http://h/s")
        let withFailure = ApplyResult(entries: [failed], stopReason: .deadline, elapsed: .seconds(3))
        #expect(withFailure.exitStatus == .failure)
        #expect(withFailure.summaryLine.hasPrefix("Apply stopped at deadline: 1 fetched (20 B), 1 failed, 2 cut in flight"))
    }

    /// Undeclared sizes make the bytes not started a lower bound, or leave them out.
    @Test func unsizedSlicesNotStartedAreALowerBound() {
        var entry = ApplyResultTests.entry("a", [(.skipped, 0), (.skipped, 0)], integrities: [.unverified, .sizeOnly])
        entry.outcomes[0].skipReason = "not started"
        entry.outcomes[1].skipReason = "not started"
        #expect(ApplyResult(entries: [entry], stopReason: .deadline, elapsed: .zero).summaryLine.contains("2 not started (at least 10 B)."))
        entry.resource.slices.removeLast()
        entry.outcomes.removeLast()
        #expect(ApplyResult(entries: [entry], stopReason: .deadline, elapsed: .zero).summaryLine.contains("1 not started. Run"))
    }

    /// A signal's status wins over failures, as before there was a deadline.
    @Test(arguments: [(SIGINT, JobrunCore.ExitStatus.interrupted), (SIGTERM, .terminated)])
    func aSignalExitsWithItsStatus(signal: Int32, status: JobrunCore.ExitStatus) {
        let result = ApplyResult(entries: [ApplyResultTests.entry("a", [(.failed, 0)])], stopReason: .signal(signal), elapsed: .zero)
        #expect(result.exitStatus == status)
        #expect(StopReason.signal(signal).description == (signal == SIGINT ? "SIGINT" : "SIGTERM"))
    }

    @Test func exitStatusWithoutAStop() {
        #expect(ApplyResult(entries: [ApplyResultTests.entry("a", [(.fetched, 1), (.upToDate, 0)])], stopReason: nil, elapsed: .zero).exitStatus == .ok)
        #expect(ApplyResult(entries: [ApplyResultTests.entry("a", [(.fetched, 1), (.skipped, 0)])], stopReason: nil, elapsed: .zero).exitStatus == .failure)
    }

    /// A ULID is 26 Crockford base-32 digits: the milliseconds first (so ids sort by time), then
    /// the random bits.
    @Test func ulidsEncodeTimeThenRandomness() {
        let zero = RunID.ulid(milliseconds: 0, random: { 0 })
        #expect(zero == String(repeating: "0", count: 26))
        let ones = RunID.ulid(milliseconds: 0xFFFF_FFFF_FFFF, random: { .max })
        #expect(ones == "7" + String(repeating: "Z", count: 25))
        // The spec's example time prefix: 1469918176385 ms is 01ARYZ6S41.
        #expect(RunID.ulid(milliseconds: 1_469_918_176_385, random: { 0 }).hasPrefix("01ARYZ6S41"))
        let earlier = RunID.ulid(milliseconds: 1_700_000_000_000, random: { .max })
        let later = RunID.ulid(milliseconds: 1_700_000_000_001, random: { 0 })
        #expect(earlier < later)
        #expect(Set((0..<50).map { _ in RunID.ulid(milliseconds: 1, random: { UInt64.random(in: .min ... .max) }) }).count == 50)
    }

    @Test func theEnvironmentNamesTheRun() throws {
        #expect(try RunID.resolve(environment: ["JOBRUN_RUN_ID": "ci-1234.5:a_b"]) == "ci-1234.5:a_b")
        #expect(try RunID.resolve(environment: [:], now: { 0 }, random: { 0 }) == String(repeating: "0", count: 26))
        for bad in ["", "has space", "quote\"", "new\nline", String(repeating: "x", count: 129), "ünï"] {
            #expect(throws: RunIDError.self, "\(bad.debugDescription)") { try RunID.resolve(environment: ["JOBRUN_RUN_ID": bad]) }
        }
    }
}
