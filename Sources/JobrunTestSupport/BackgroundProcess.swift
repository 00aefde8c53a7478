import Foundation
import JobrunCore
import Synchronization

import JobrunSystem
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A child process that runs while the test goes on: the test watches what it does (a server's
/// log, files appearing), signals it (SIGTERM, SIGINT, SIGKILL mid-transfer) and then waits for
/// its exit status.
///
///     let apply = try BinaryRunner.jobrun().start(["apply", "site.yaml"], workingDirectory: dir.path)
///     defer { apply.kill() }
///     #expect(await Poll.until(timeout: .seconds(20)) { dir.exists("mirror/a/.x.jobrun-part") })
///     apply.signal(SIGTERM)
///     let result = try #require(await apply.wait(timeout: .seconds(20)))
///     #expect(result.status == 143)
///
/// Spawned like ``ProcessRunner`` does it (`posix_spawn`, an empty signal mask, default signal
/// dispositions, its own process group, stdin `/dev/null`), so the child reacts to signals as it
/// would under a shell. stdout and stderr go to two files in a private temporary directory (a
/// pipe nobody reads while the test polls would fill up and stall the child).
public final class BackgroundProcess: Sendable {
    /// The child's process id (also its process group).
    public let pid: Int32
    private let outputDirectory: TemporaryDirectory
    /// The raw `waitpid` status once reaped.
    private let exitStatus = Mutex<Int32?>(nil)

    /// Starts `executable` with `arguments`; `environment` is its whole environment.
    /// - Throws: ``ProcessLaunchError`` when it cannot be started.
    public init(
        executable: String, arguments: [String], environment: [String: String], workingDirectory: String?
    ) throws(ProcessLaunchError) {
        let fail = { (message: String) in ProcessLaunchError(executable: executable, message: message) }
        let directory: TemporaryDirectory
        do {
            directory = try TemporaryDirectory(prefix: "background")
        } catch {
            throw fail("cannot create a temporary directory: \(error)")
        }
        let out = open(directory.path("stdout"), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        let err = open(directory.path("stderr"), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        defer {
            if out >= 0 { close(out) }
            if err >= 0 { close(err) }
        }
        guard out >= 0, err >= 0 else {
            directory.remove()
            throw fail("cannot open output files: \(CleanSpawn.errnoText())")
        }
        let spawned = CleanSpawn.spawn(
            executable, arguments: arguments, environment: environment, workingDirectory: workingDirectory, stdout: out, stderr: err)
        switch spawned {
        case .success(let child):
            pid = child
            outputDirectory = directory
        case .failure(let failure):
            directory.remove()
            throw fail(failure.description)
        }
    }

    /// Kills whatever is left of the process group and removes the output files.
    deinit {
        kill()
        outputDirectory.remove()
    }

    /// Sends `signal` to the process (not its group: the process decides what its children get).
    public func signal(_ signal: Int32) {
        guard isRunning else { return }
        _ = sendSignal(pid, signal)
    }

    /// SIGKILL to the whole process group, then reaps it. Idempotent.
    public func kill() {
        guard isRunning else { return }
        _ = sendSignal(-pid, SIGKILL)
        exitStatus.withLock { status in
            guard status == nil else { return }
            var raw: Int32 = 0
            while waitpid(pid, &raw, 0) < 0, errno == EINTR {}
            status = raw
        }
    }

    /// Whether the process has not exited yet (reaps it when it has).
    public var isRunning: Bool {
        exitStatus.withLock { status in
            if status != nil { return false }
            var raw: Int32 = 0
            var result = waitpid(pid, &raw, WNOHANG)
            while result < 0, errno == EINTR { result = waitpid(pid, &raw, WNOHANG) }
            if result == pid {
                status = raw
                return false
            }
            // ECHILD: not ours any more; nothing to wait for.
            return result == 0
        }
    }

    /// What the process wrote to stdout so far.
    public var stdout: String { outputDirectory.contents(of: "stdout") ?? "" }
    /// What the process wrote to stderr so far.
    public var stderr: String { outputDirectory.contents(of: "stderr") ?? "" }

    /// Polls until the process exits and returns how it ended, or `nil` when `timeout` passes
    /// first (the process is left running; ``kill()`` or `deinit` ends it).
    public func wait(timeout: Duration) async -> RunResult? {
        let exited = await Poll.until(timeout: timeout, interval: .milliseconds(20)) { !isRunning }
        guard exited, let raw = exitStatus.withLock({ $0 }) else { return nil }
        let (exitStatus, signal) = ProcessSpawn.termination(raw)
        return RunResult(status: exitStatus ?? 128 + (signal ?? 0), stdout: stdout, stderr: stderr, signal: signal)
    }
}

/// `kill(2)`, under a name the methods above do not shadow.
private func sendSignal(_ pid: pid_t, _ signal: Int32) -> Int32 { kill(pid, signal) }

extension BinaryRunner {
    /// Starts the executable in the background; see ``BackgroundProcess``.
    /// - Parameters: as for ``run(_:environment:removingEnvironment:workingDirectory:timeout:)``.
    public func start(
        _ arguments: [String], environment: [String: String] = [:], removingEnvironment: Set<String> = [],
        workingDirectory: String? = nil
    ) throws(ProcessLaunchError) -> BackgroundProcess {
        try BackgroundProcess(
            executable: executable, arguments: arguments,
            environment: ProcessRunner.environment(overrides: environment, removals: removingEnvironment),
            workingDirectory: workingDirectory)
    }
}
