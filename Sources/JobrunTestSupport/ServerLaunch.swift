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
        guard let input = makePipe() else { throw fail("pipe: \(errnoText())") }
        guard let output = makePipe() else {
            close(input.read)
            close(input.write)
            throw fail("pipe: \(errnoText())")
        }
        var environment = ProcessInfo.processInfo.environment
        environment["PYTHONDONTWRITEBYTECODE"] = "1"
        let spawned = spawn(
            executable: executable, arguments: arguments, environment: environment, stdin: input.read,
            stdout: output.write, stderrPath: stderrPath)
        close(input.read)
        close(output.write)
        let pid: pid_t
        switch spawned {
        case .success(let child):
            pid = child
        case .failure(let code):
            close(input.write)
            close(output.read)
            throw fail(String(cString: strerror(code.code)))
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

    private struct SpawnFailure: Error {
        var code: Int32
    }

    private static func spawn(
        executable: String, arguments: [String], environment: [String: String], stdin: Int32, stdout: Int32,
        stderrPath: String
    ) -> Result<pid_t, SpawnFailure> {
        #if canImport(Darwin)
        var actions: posix_spawn_file_actions_t? = nil
        var attributes: posix_spawnattr_t? = nil
        #else
        var actions = posix_spawn_file_actions_t()
        var attributes = posix_spawnattr_t()
        #endif
        posix_spawn_file_actions_init(&actions)
        posix_spawnattr_init(&attributes)
        defer {
            posix_spawn_file_actions_destroy(&actions)
            posix_spawnattr_destroy(&attributes)
        }
        posix_spawn_file_actions_adddup2(&actions, stdin, 0)
        posix_spawn_file_actions_adddup2(&actions, stdout, 1)
        posix_spawn_file_actions_addopen(&actions, 2, stderrPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        if let closeFrom = LaunchExtensions.closeFrom { _ = closeFrom(&actions, 3) }

        let code = CleanSpawn.spawn(executable, arguments: arguments, environment: environment, actions: &actions, attributes: &attributes)
        return code.error == 0 ? .success(code.pid) : .failure(SpawnFailure(code: code.error))
    }

    /// A pipe whose ends close on exec: atomically with `pipe2` where it exists, so a process
    /// another thread spawns at the same moment cannot inherit the server's stdin and keep the
    /// server alive.
    private static func makePipe() -> (read: Int32, write: Int32)? {
        var fds: [Int32] = [-1, -1]
        if let pipe2 = LaunchExtensions.pipe2 {
            guard pipe2(&fds, O_CLOEXEC) == 0 else { return nil }
            return (fds[0], fds[1])
        }
        guard pipe(&fds) == 0 else { return nil }
        _ = fcntl(fds[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(fds[1], F_SETFD, FD_CLOEXEC)
        return (fds[0], fds[1])
    }

    private static func errnoText() -> String { String(cString: strerror(errno)) }
}

/// glibc functions that Swift's Glibc module does not import (they need `_GNU_SOURCE`).
private enum LaunchExtensions {
    #if canImport(Darwin)
    typealias Actions = UnsafeMutablePointer<posix_spawn_file_actions_t?>
    #else
    typealias Actions = UnsafeMutablePointer<posix_spawn_file_actions_t>
    #endif
    typealias CloseFrom = @convention(c) (Actions, Int32) -> Int32
    typealias Pipe2 = @convention(c) (UnsafeMutablePointer<Int32>, Int32) -> Int32

    static let closeFrom: CloseFrom? = symbol("posix_spawn_file_actions_addclosefrom_np", as: CloseFrom.self)
    static let pipe2: Pipe2? = symbol("pipe2", as: Pipe2.self)

    private static func symbol<T>(_ name: String, as type: T.Type) -> T? {
        guard let handle = dlopen(nil, RTLD_NOW), let pointer = dlsym(handle, name) else { return nil }
        return unsafeBitCast(pointer, to: type)
    }
}
