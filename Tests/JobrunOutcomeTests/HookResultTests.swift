import JobrunCore
import Testing
@testable import JobrunManifest
@testable import JobrunOutcome

/// What a hook's end means for the run: only a failure under `on_hook_failure: fail` of this
/// run's own hook (not cut short by a stop) fails it, with the summary line's clause.
@Suite struct HookResultTests {
    static func end(
        exit: Int32? = 0, signal: Int32? = nil, timedOut: Bool = false, error: String? = nil, policy: HookFailurePolicy = .fail,
        redelivery: Bool = false, cut: Bool = false
    ) -> HookEnd {
        HookEnd(
            hook: HookRef(hook: "on_complete", resource: "a", eventRun: "run", isRedelivery: redelivery, argv: ["notify"]),
            exitStatus: exit, signal: signal, hasTimedOut: timedOut, launchError: error, duration: .milliseconds(5), outputTail: "",
            outputBytes: 0, policy: policy, wasCut: cut)
    }

    @Test func onlyAFailureUnderFailFailsTheRun() {
        #expect(!Self.end().hasFailed && !Self.end().failsRun)
        #expect(Self.end(exit: 3).failsRun)
        #expect(Self.end(exit: nil, signal: SIGKILL, timedOut: true).failsRun)
        #expect(Self.end(exit: nil, error: "No such file or directory").failsRun)
        #expect(Self.end(exit: 3, policy: .warn).hasFailed && !Self.end(exit: 3, policy: .warn).failsRun)
        #expect(!Self.end(exit: nil, signal: SIGTERM, cut: true).failsRun, "cut short by the run's stop: it stays due")
        // Past its timeout, exiting 0 on the SIGTERM is no success.
        #expect(Self.end(exit: 0, timedOut: true).failsRun && Self.end(exit: 0, timedOut: true).outcome == "exit status 0 after its timeout")
    }

    @Test func howItEndedInWords() {
        #expect(Self.end().outcome == "exit status 0")
        #expect(Self.end(exit: 3).outcome == "exit status 3")
        #expect(Self.end(exit: nil, signal: SIGKILL, timedOut: true).outcome == "killed by signal 9 after its timeout")
        #expect(Self.end(exit: nil, signal: SIGTERM, timedOut: true).outcome == "killed by SIGTERM after its timeout")
        #expect(Self.end(exit: nil, signal: SIGTERM, cut: true).outcome == "stopped by SIGTERM with the run")
        #expect(Self.end(exit: nil, error: "Permission denied").outcome == "could not start: Permission denied")
    }

    @Test func aFailedHookFailsACompleteRun() {
        var result = ApplyResult(entries: [ApplyResultTests.entry("a", [(.fetched, 10)])], stopReason: nil, elapsed: .zero)
        result.hooks = [Self.end(exit: 3, policy: .warn), Self.end()]
        #expect(result.exitStatus == .ok && result.isSuccess && result.summaryLine.hasPrefix("Apply complete!"))
        result.hooks.append(Self.end(exit: 1))
        #expect(result.exitStatus == .failure && !result.isSuccess && result.failedHookCount == 1)
        #expect(result.summaryLine == "Apply failed! Slices: 1 fetched (10 B), 0 resumed, 0 up to date, 0 failed, 0 deferred; 1 hook failed.")
        result.hooks.append(Self.end(exit: 2))
        #expect(result.summaryLine.hasSuffix("; 2 hooks failed."))
        // Before the clause of slices without a digest, which stays the line's end.
        var unverified = ApplyResult(entries: [ApplyResultTests.entry("a", [(.fetched, 10)], integrities: [.unverified])], stopReason: nil, elapsed: .zero)
        unverified.hooks = [Self.end(exit: 1)]
        #expect(unverified.summaryLine.hasSuffix(", 0 deferred; 1 hook failed; 1 without digests (0 size only, 1 unverified)."))
        // A signal's status stays the run's; the deadline's 75 gives way, as for a failed slice.
        result.stopReason = .signal(SIGINT)
        #expect(result.exitStatus == .interrupted)
        result.stopReason = .deadline
        #expect(result.exitStatus == .failure)
    }
}
