import Dispatch
import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// How a child process ended and what it printed.
public struct RunResult: Hashable, Sendable, CustomStringConvertible {
    /// The exit status, or 128 + the signal number when a signal ended the process (as shells do).
    public var status: Int32
    public var stdout: String
    public var stderr: String
    /// The signal that ended the process, if one did.
    public var signal: Int32?
    /// The process outlived its timeout and was killed.
    public var hasTimedOut: Bool

    public init(status: Int32, stdout: String, stderr: String, signal: Int32? = nil, hasTimedOut: Bool = false) {
        self.status = status
        self.stdout = stdout
        self.stderr = stderr
        self.signal = signal
        self.hasTimedOut = hasTimedOut
    }

    /// Everything, for a test failure message.
    public var description: String {
        var head = "exit status \(status)"
        if let signal { head += " (signal \(signal))" }
        if hasTimedOut { head += " (killed after timeout)" }
        return "\(head)\n--- stdout ---\n\(stdout)\n--- stderr ---\n\(stderr)"
    }
}

/// A child process could not be started.
public struct ProcessLaunchError: Error, Sendable, CustomStringConvertible {
    public var executable: String
    public var message: String

    public var description: String { "cannot run \(executable): \(message)" }
}

/// Runs a child process to completion, blocking the calling thread.
///
/// stdout and stderr are drained on their own threads while the process runs: reading them one
/// after the other, or only after exit, deadlocks as soon as the child fills a pipe buffer (64 KiB
/// on Linux). Stdin is `/dev/null`, so a child that reads it sees end-of-file at once.
enum ProcessRunner {
    static func runBlocking(
        executable: String, arguments: [String], environment: [String: String], workingDirectory: String?,
        timeout: Duration
    ) throws(ProcessLaunchError) -> RunResult {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = environment
        if let workingDirectory { process.currentDirectoryURL = URL(fileURLWithPath: workingDirectory) }
        process.standardInput = FileHandle.nullDevice
        let stdoutPipe = Pipe()
        let stderrPipe = Pipe()
        process.standardOutput = stdoutPipe
        process.standardError = stderrPipe

        let exited = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in exited.signal() }
        do {
            try process.run()
        } catch {
            throw ProcessLaunchError(executable: executable, message: "\(error)")
        }
        let pid = process.processIdentifier

        let output = CapturedOutput()
        let drained = DispatchGroup()
        for (handle, isStdout) in [(stdoutPipe.fileHandleForReading, true), (stderrPipe.fileHandleForReading, false)] {
            drained.enter()
            Thread.detachNewThread {
                while let chunk = try? handle.read(upToCount: 65_536), !chunk.isEmpty {
                    output.append(chunk, toStdout: isStdout)
                }
                drained.leave()
            }
        }

        var hasTimedOut = false
        if exited.wait(timeout: .now() + timeout.dispatchInterval) == .timedOut {
            hasTimedOut = true
            kill(pid, SIGTERM)
            if exited.wait(timeout: .now() + .seconds(2)) == .timedOut {
                kill(pid, SIGKILL)
                exited.wait()
            }
        }
        // A grandchild that inherited the pipes can keep them open after the child exits; don't
        // wait for it forever, take what has arrived.
        let isDrained = drained.wait(timeout: .now() + .seconds(5)) == .success

        let isSignal = process.terminationReason == .uncaughtSignal
        let code = process.terminationStatus
        var (stdout, stderr) = output.texts()
        if !isDrained { stderr += "\n[ProcessRunner: output still open 5 s after exit; truncated]\n" }
        return RunResult(
            status: isSignal ? 128 + code : code, stdout: stdout, stderr: stderr, signal: isSignal ? code : nil,
            hasTimedOut: hasTimedOut)
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
