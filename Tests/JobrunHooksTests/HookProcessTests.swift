import Foundation
import JobrunCore
import JobrunTestSupport
import Testing
@testable import JobrunHooks

/// A hook process from start to end: what it gets (stdin, environment, no descriptor of
/// jobrun's), what is kept of its output, and its time limit (SIGTERM to its group, SIGKILL
/// after the grace period, grandchildren included).
@Suite struct HookProcessTests {
    static let path = ["PATH=/usr/bin:/bin"]

    /// `/bin/sh -c script` as a hook, in `directory` (`$D` in the script).
    static func shell(
        _ script: String, in directory: TemporaryDirectory? = nil, input: String = "", environment: [String] = path,
        timeout: Duration = .seconds(20), grace: Duration = .seconds(20), stop: HookStop = HookStop()
    ) -> HookProcess.Outcome {
        let folder = directory.map { ["D=\($0.path)"] } ?? []
        return HookProcess.run(
            executable: "/bin/sh", argv: ["sh", "-c", script], environment: environment + folder, input: Array(input.utf8),
            timeout: timeout, grace: grace, stop: stop)
    }

    /// Gone, or a zombie nobody has reaped yet: it runs no more.
    static func hasEnded(_ pid: Int32) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return true }
        return stat[stat.index(close, offsetBy: 2)] == "Z"
    }

    @Test func theEventIsOnStdinAndTheExitStatusComesBack() {
        let outcome = Self.shell("cat; exit 7", input: "{\"v\":1}\n")
        #expect(outcome.exitStatus == 7 && outcome.signal == nil && !outcome.hasTimedOut && outcome.launchError == nil)
        #expect(outcome.outputTail == "{\"v\":1}\n")
    }

    /// A hook that never reads its stdin exits normally: the event was in the pipe before it
    /// started, so nothing waits on it and nothing gets EPIPE.
    @Test func aHookThatIgnoresItsStdinIsFine() {
        let outcome = Self.shell("exit 0", input: String(repeating: "x", count: 8_000) + "\n")
        #expect(outcome.exitStatus == 0 && outcome.launchError == nil, "\(outcome)")
    }

    /// Exactly the environment given: nothing of the test process's own.
    @Test func theEnvironmentIsExactlyTheOneGiven() {
        setenv("JOBRUN_HOOK_TEST_SECRET", "s3cret", 1)
        defer { unsetenv("JOBRUN_HOOK_TEST_SECRET") }
        let outcome = HookProcess.run(
            executable: "/usr/bin/env", argv: ["env"], environment: ["PATH=/usr/bin:/bin", "JOBRUN_HOOK=on_complete", "LANG=C.UTF-8"],
            input: [], timeout: .seconds(20), grace: .seconds(1), stop: HookStop())
        #expect(outcome.exitStatus == 0)
        #expect(outcome.outputTail == "PATH=/usr/bin:/bin\nJOBRUN_HOOK=on_complete\nLANG=C.UTF-8\n")
    }

    /// A descriptor of jobrun's, even one without close-on-exec, is not open in the hook: only
    /// 0, 1 and 2 are.
    @Test func noDescriptorButTheStandardOnesReachesTheHook() throws {
        // Not close-on-exec, as a careless open elsewhere in jobrun would leave it (its number
        // is whatever is free: another test's descriptor is never taken over).
        let opened = open("/dev/null", O_RDONLY)
        try #require(opened >= 0)
        defer { close(opened) }
        // The glob's own descriptor to /proc is closed by the time the loop runs.
        let outcome = Self.shell("for f in /proc/$$/fd/*; do [ -e \"$f\" ] && echo \"${f##*/}\"; done; true")
        #expect(outcome.exitStatus == 0)
        #expect(outcome.outputTail.split(separator: "\n").sorted() == ["0", "1", "2"], "\(outcome.outputTail)")
    }

    /// stdout and stderr share the pipe; the last 4 KiB are kept, a character cut at the start
    /// is dropped, and every byte is counted.
    @Test func theTailIsTheLastFourKibibytes() {
        let outcome = Self.shell("head -c 10000 /dev/zero | tr '\\0' 'a'; printf 'é'; echo END >&2")
        #expect(outcome.exitStatus == 0)
        #expect(outcome.outputBytes == 10_000 + 2 + 4)
        // 4096 bytes from the end: 4090 'a', the two bytes of 'é', then "END\n".
        #expect(outcome.outputTail == String(repeating: "a", count: 4_090) + "éEND\n")
        let cut = Self.shell("printf 'é'; head -c 4095 /dev/zero | tr '\\0' 'b'")
        #expect(cut.outputTail == String(repeating: "b", count: 4_095), "the half of 'é' in the tail is dropped")
    }

    @Test func aProgramThatCannotStartIsALaunchError() {
        let outcome = HookProcess.run(
            executable: "/nonexistent/hook", argv: ["hook"], environment: Self.path, input: [], timeout: .seconds(5), grace: .seconds(1),
            stop: HookStop())
        #expect(outcome.launchError == "No such file or directory" && outcome.exitStatus == nil)
    }

    /// Past its timeout a hook that dies of SIGTERM is not waited on for the grace period.
    @Test func aTimeoutSendsSIGTERM() {
        let started = ContinuousClock.now
        let outcome = Self.shell("exec sleep 30", timeout: .milliseconds(200), grace: .seconds(30))
        #expect(outcome.hasTimedOut && outcome.signal == SIGTERM && outcome.exitStatus == nil, "\(outcome)")
        #expect(ContinuousClock.now - started < .seconds(15))
    }

    /// A hook that answers its timeout's SIGTERM by exiting 0 has still timed out.
    @Test func aHookThatExitsZeroOnItsTimeoutHasTimedOut() {
        let outcome = Self.shell("trap 'exit 0' TERM; while :; do sleep 0.05; done", timeout: .milliseconds(200), grace: .seconds(30))
        #expect(outcome.hasTimedOut && outcome.exitStatus == 0, "\(outcome)")
    }

    /// A hook that writes without pause is still held to its timeout.
    @Test func aChattyHookIsHeldToItsTimeout() {
        let started = ContinuousClock.now
        let outcome = Self.shell("exec yes", timeout: .milliseconds(300), grace: .seconds(30))
        #expect(outcome.hasTimedOut && outcome.signal == SIGTERM && outcome.outputBytes > 0, "\(outcome)")
        #expect(ContinuousClock.now - started < .seconds(15))
    }

    /// A hook and its grandchild that both ignore SIGTERM: SIGTERM first (the hook says it got
    /// it), SIGKILL to the whole group after the grace period.
    @Test func aGroupThatIgnoresSIGTERMIsKilled() async throws {
        let directory = try TemporaryDirectory(prefix: "jobrun-hook")
        defer { directory.remove() }
        let script = """
            trap 'echo got TERM' TERM
            sh -c 'trap "" TERM; echo $$ > "$D/grandchild"; exec sleep 60' &
            while :; do sleep 0.05; done
            """
        let started = ContinuousClock.now
        let outcome = Self.shell(script, in: directory, timeout: .milliseconds(500), grace: .milliseconds(700))
        let elapsed = ContinuousClock.now - started
        #expect(outcome.hasTimedOut && outcome.signal == SIGKILL, "\(outcome)")
        #expect(outcome.outputTail.contains("got TERM"), "SIGTERM came first: \(outcome.outputTail)")
        #expect(elapsed >= .milliseconds(1_200), "SIGKILL only after the grace period: \(elapsed)")
        let grandchild = try #require(Int32(directory.contents(of: "grandchild")?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""))
        #expect(await Poll.until(timeout: .seconds(60)) { Self.hasEnded(grandchild) }, "the grandchild \(grandchild) survived")
    }

    /// A hook that exits on its own leaves what it started in the background alone.
    @Test func aBackgroundProcessOfAHookThatExitedIsLeftAlone() async throws {
        let directory = try TemporaryDirectory(prefix: "jobrun-hook")
        defer { directory.remove() }
        let outcome = Self.shell("sleep 60 >/dev/null 2>&1 & echo $! > \"$D/background\"; exit 0", in: directory)
        #expect(outcome.exitStatus == 0)
        let background = try #require(Int32(directory.contents(of: "background")?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""))
        defer { kill(background, SIGKILL) }
        // A kill would have landed by now: the hook's end waited for the pipe's end or drainTime.
        #expect(!Self.hasEnded(background))
    }

    /// jobrun's stop cuts a hook short the same way, and says so.
    @Test func aStopCutsTheHookShort() {
        let stop = HookStop()
        stop.stop()
        let outcome = Self.shell("exec sleep 30", timeout: .seconds(60), grace: .seconds(30), stop: stop)
        #expect(outcome.wasCut && !outcome.hasTimedOut && outcome.signal == SIGTERM, "\(outcome)")
    }
}
