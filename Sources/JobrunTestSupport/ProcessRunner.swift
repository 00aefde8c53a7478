import Dispatch
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

/// Runs a child process to completion, blocking the calling thread.
///
/// Spawned with `posix_spawn` rather than Foundation's `Process`, because the child must start
/// with a clean signal state: threads of libdispatch and the test runner block most signals, and
/// `Process` passes that mask on, so a child spawned from such a thread ignores SIGTERM (and a
/// test of jobrun's graceful shutdown would test nothing). The child also gets its own process
/// group, so a timeout kills grandchildren too, and no descriptors beyond 0–2.
///
/// stdout and stderr are drained on their own threads while the process runs: reading them one
/// after the other, or only after exit, deadlocks as soon as the child fills a pipe buffer (64 KiB
/// on Linux). Stdin is `/dev/null`, so a child that reads it sees end-of-file at once.
enum ProcessRunner {
    static func runBlocking(
        executable: String, arguments: [String], environment: [String: String], workingDirectory: String?,
        timeout: Duration
    ) throws(ProcessLaunchError) -> RunResult {
        let fail = { (message: String) in ProcessLaunchError(executable: executable, message: message) }
        guard let stdoutPipe = CleanSpawn.makePipe() else { throw fail("pipe: \(CleanSpawn.errnoText())") }
        guard let stderrPipe = CleanSpawn.makePipe() else {
            close(stdoutPipe.read)
            close(stdoutPipe.write)
            throw fail("pipe: \(CleanSpawn.errnoText())")
        }
        let spawned = CleanSpawn.spawn(
            executable, arguments: arguments, environment: environment, workingDirectory: workingDirectory,
            stdout: stdoutPipe.write, stderr: stderrPipe.write)
        // The child has its own copies; ours must go, or the readers never see end-of-file.
        close(stdoutPipe.write)
        close(stderrPipe.write)
        let pid: pid_t
        switch spawned {
        case .success(let child):
            pid = child
        case .failure(let failure):
            close(stdoutPipe.read)
            close(stderrPipe.read)
            throw fail(failure.description)
        }

        let output = CapturedOutput()
        let drained = DispatchGroup()
        for (fd, isStdout) in [(stdoutPipe.read, true), (stderrPipe.read, false)] {
            drained.enter()
            Thread.detachNewThread {
                drain(fd) { output.append($0, toStdout: isStdout) }
                close(fd)
                drained.leave()
            }
        }
        let exited = DispatchSemaphore(value: 0)
        // nil when wait4 fails for good (ECHILD: something else in this process reaped it).
        let waitStatus = Mutex<(status: Int32, cpu: Duration, exitTime: Double)?>(nil)
        Thread.detachNewThread {
            var status: Int32 = 0
            var usage = rusage()
            var result = wait4(pid, &status, 0, &usage)
            while result < 0, errno == EINTR { result = wait4(pid, &status, 0, &usage) }
            var now = timespec()
            clock_gettime(CLOCK_MONOTONIC, &now)
            if result == pid {
                let cpu = Self.duration(usage.ru_utime) + Self.duration(usage.ru_stime)
                waitStatus.withLock { $0 = (status, cpu, Double(now.tv_sec) + Double(now.tv_nsec) / 1e9) }
            }
            exited.signal()
        }

        var hasTimedOut = false
        if exited.wait(timeout: .now() + timeout.dispatchInterval) == .timedOut {
            hasTimedOut = true
            kill(-pid, SIGTERM)
            if exited.wait(timeout: .now() + .seconds(2)) == .timedOut {
                kill(-pid, SIGKILL)
                exited.wait()
            }
            // Whatever the child left behind in its group goes too.
            kill(-pid, SIGKILL)
        }
        // A grandchild that inherited the pipes can keep them open after the child exits; don't
        // wait for it forever, take what has arrived.
        let isDrained = drained.wait(timeout: .now() + .seconds(5)) == .success

        var (stdout, stderr) = output.texts()
        if !isDrained { stderr += "\n[ProcessRunner: output still open 5 s after exit; truncated]\n" }
        guard let (status, cpu, exitTime) = waitStatus.withLock({ $0 }) else {
            stderr += "\n[ProcessRunner: the exit status was lost (reaped elsewhere)]\n"
            return RunResult(status: -1, stdout: stdout, stderr: stderr, hasTimedOut: hasTimedOut)
        }
        let (exitStatus, signal) = ProcessSpawn.termination(status)
        var result = RunResult(
            status: exitStatus ?? 128 + (signal ?? 0), stdout: stdout, stderr: stderr, signal: signal, hasTimedOut: hasTimedOut)
        result.cpuTime = cpu
        result.exitTime = exitTime
        return result
    }

    private static func duration(_ time: timeval) -> Duration {
        .seconds(Int64(time.tv_sec)) + .microseconds(Int64(time.tv_usec))
    }

    private static func drain(_ fd: Int32, _ consume: (Data) -> Void) {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count > 0 {
                consume(Data(buffer[0..<count]))
            } else if count < 0, errno == EINTR {
                continue
            } else {
                return
            }
        }
    }

    /// The inherited environment with `overrides` applied and `removals` deleted.
    static func environment(overrides: [String: String], removals: Set<String>) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        for name in removals { environment[name] = nil }
        environment.merge(overrides) { _, new in new }
        return environment
    }

    /// The first executable `name` on `PATH`, or `name` itself when it contains a slash.
    static func which(_ name: String) -> String? {
        if name.contains("/") { return isExecutableFile(name) ? name : nil }
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for directory in path.split(separator: ":") where !directory.isEmpty {
            let candidate = "\(directory)/\(name)"
            if isExecutableFile(candidate) { return candidate }
        }
        return nil
    }

    /// A regular file with an execute bit (`FileManager.isExecutableFile` also accepts directories).
    static func isExecutableFile(_ path: String) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && !isDirectory.boolValue
            && FileManager.default.isExecutableFile(atPath: path)
    }
}

/// stdout and stderr bytes, appended from the two reader threads.
private final class CapturedOutput: Sendable {
    private let state = Mutex<(stdout: Data, stderr: Data)>((Data(), Data()))

    func append(_ chunk: Data, toStdout: Bool) {
        state.withLock { state in
            if toStdout { state.stdout.append(chunk) } else { state.stderr.append(chunk) }
        }
    }

    func texts() -> (stdout: String, stderr: String) {
        state.withLock { (String(decoding: $0.stdout, as: UTF8.self), String(decoding: $0.stderr, as: UTF8.self)) }
    }
}

extension Duration {
    /// Whole milliseconds for Dispatch, clamped so that huge timeouts cannot overflow.
    var dispatchInterval: DispatchTimeInterval {
        let (seconds, attoseconds) = components
        if seconds < 0 { return .milliseconds(0) }
        if seconds > 1_000_000_000 { return .seconds(1_000_000_000) }
        return .milliseconds(Int(seconds) * 1_000 + Int(attoseconds / 1_000_000_000_000_000))
    }
}
