import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Starts a long-lived helper server (``FaultServer``) and reads its one-line JSON ready message.
///
/// Spawned like ``ProcessRunner`` does it, with `posix_spawn`, an empty signal mask and default
/// signal dispositions (threads of libdispatch and the test runner block signals, and a child
/// would inherit that), in its own process group, with no descriptors beyond 0–2. Unlike
/// ``ProcessRunner`` the child's stdin is a pipe that the caller keeps: the server exits when it
/// reads end-of-file, which also happens when this test process dies, however it dies.
enum ServerLaunch {
    /// The ready line: `{"port": N, "second_port": M|null, "tls_port": T|null, "ca_file": …, "pid": P}`.
    struct Ready: Decodable {
        var port: Int
        var secondPort: Int?
        var tlsPort: Int?
        var caFile: String?
        var pid: Int32

        enum CodingKeys: String, CodingKey {
            case port, pid
            case secondPort = "second_port"
            case tlsPort = "tls_port"
            case caFile = "ca_file"
        }
    }

    struct Launched {
        var pid: pid_t
        /// The write end of the child's stdin.
        var stdin: Int32
        var ready: Ready
    }

    static func start(
        executable: String, arguments: [String], stderrPath: String, timeout: Duration
    ) throws(FaultServerError) -> Launched {
        let fail = { (message: String) in
            FaultServerError(message: "cannot start \(arguments.first ?? executable): \(message)")
        }
        guard let input = CleanSpawn.makePipe() else { throw fail("pipe: \(CleanSpawn.errnoText())") }
        guard let output = CleanSpawn.makePipe() else {
            close(input.read)
            close(input.write)
            throw fail("pipe: \(CleanSpawn.errnoText())")
        }
        var environment = ProcessInfo.processInfo.environment
        environment["PYTHONDONTWRITEBYTECODE"] = "1"
        let spawned = CleanSpawn.spawn(executable, arguments: arguments, environment: environment) { actions in
            posix_spawn_file_actions_adddup2(&actions, input.read, 0)
            posix_spawn_file_actions_adddup2(&actions, output.write, 1)
            posix_spawn_file_actions_addopen(&actions, 2, stderrPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        }
        close(input.read)
        close(output.write)
        let pid: pid_t
        switch spawned {
        case .success(let child):
            pid = child
        case .failure(let failure):
            close(input.write)
            close(output.read)
            throw fail(failure.description)
        }

        let line = readLine(from: output.read, timeout: timeout)
        close(output.read)
        let stderrText = { (FileManager.default.contents(atPath: stderrPath)).map { String(decoding: $0, as: UTF8.self) } ?? "" }
        let abandon = { (message: String) -> FaultServerError in
            close(input.write)
            kill(-pid, SIGKILL)
            reap(pid, within: .seconds(2))
            return fail("\(message)\n--- server stderr ---\n\(stderrText())")
        }
        guard let line else {
            throw abandon("no ready line within \(timeout) (or the server exited)")
        }
        do {
            let ready = try JSONDecoder().decode(Ready.self, from: Data(line.utf8))
            return Launched(pid: pid, stdin: input.write, ready: ready)
        } catch {
            throw abandon("unreadable ready line \(line.debugDescription): \(error)")
        }
    }

    /// The first line `fd` yields before `timeout`, without its newline; `nil` on end-of-file,
    /// error or timeout.
    private static func readLine(from fd: Int32, timeout: Duration) -> String? {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            if let newline = received.firstIndex(of: UInt8(ascii: "\n")) {
                return String(decoding: received[..<newline], as: UTF8.self)
            }
            let remaining = clock.now.duration(to: deadline)
            if remaining <= .zero { return nil }
            let milliseconds = Int32(clamping: remaining.components.seconds * 1_000 + 1)
            var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&descriptor, 1, milliseconds)
            if ready < 0, errno == EINTR { continue }
            if ready <= 0 { continue }  // timed out: the loop re-checks the deadline
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            if count <= 0 { return nil }
            received += buffer[0..<count]
        }
    }

    /// Waits for `pid` to exit, SIGKILLs its process group after `limit`, and reaps it.
    static func reap(_ pid: pid_t, within limit: Duration) {
        let clock = ContinuousClock()
        let deadline = clock.now + limit
        while clock.now < deadline {
            if hasExited(pid) { return }
            usleep(5_000)
        }
        kill(-pid, SIGKILL)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0, errno == EINTR {}
    }

    /// Whether `pid` has exited (reaping it), or is not our child at all.
    static func hasExited(_ pid: pid_t) -> Bool {
        var status: Int32 = 0
        var result = waitpid(pid, &status, WNOHANG)
        while result < 0, errno == EINTR { result = waitpid(pid, &status, WNOHANG) }
        return result != 0
    }
}
