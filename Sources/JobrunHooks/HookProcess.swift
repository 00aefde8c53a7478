import JobrunCore
import JobrunOutcome
import JobrunSystem

/// One hook process from its start to its end, on the calling thread: the event on its stdin,
/// its stdout and stderr in one pipe whose last bytes are kept, its exit status, and its time
/// limit. The process starts in a group of its own (``ProcessSpawn``), without any descriptor
/// of jobrun's but the three standard ones.
///
/// Past its timeout, or when jobrun stops, its group gets SIGTERM, then SIGKILL once `grace` has
/// passed, or as soon as the hook itself has exited and nothing holds its output any more. The
/// hook is reaped only after the last signal to its group, so that its pid (the group's id)
/// cannot have been given to another process meanwhile. A hook that exits on its own leaves the
/// rest of its group alone (it may have started something to outlive it): its output is read
/// until the end, or for ``drainTime`` more.
enum HookProcess {
    struct Outcome: Sendable {
        var exitStatus: Int32?
        var signal: Int32?
        var hasTimedOut = false
        /// Stopped by jobrun's stop, not by its own end or its timeout.
        var wasCut = false
        var launchError: String?
        var duration: Duration = .zero
        var outputTail = ""
        var outputBytes: Int64 = 0
    }

    /// How long output is read once the hook has exited, when something it left behind keeps
    /// the pipe open.
    static let drainTime: Duration = .milliseconds(500)
    /// How often the process and the stop are looked at while output is awaited.
    static let tickMilliseconds: Int32 = 20

    private enum Phase {
        case running
        /// SIGTERM sent to the group; SIGKILL follows at `killAt`.
        case terminating(killAt: ContinuousClock.Instant)
        /// SIGKILL sent to the group; output is read until `drainUntil`.
        case killed(drainUntil: ContinuousClock.Instant)
    }

    /// Runs `executable` (a path) as `argv` with `environment` (`NAME=value` items), `input` on
    /// its stdin (it must fit the pipe's buffer: an event line does), for at most `timeout`.
    static func run(
        executable: String, argv: [String], environment: [String], input: [UInt8], timeout: Duration, grace: Duration, stop: HookStop
    ) -> Outcome {
        let started = ContinuousClock.now
        func failure(_ message: String) -> Outcome {
            Outcome(launchError: message, duration: ContinuousClock.now - started)
        }
        guard let stdin = ProcessSpawn.makePipe() else { return failure("cannot make a pipe: \(systemErrorText(errno))") }
        guard let output = ProcessSpawn.makePipe() else {
            close(stdin.read)
            close(stdin.write)
            return failure("cannot make a pipe: \(systemErrorText(errno))")
        }
        // The event goes into the pipe before the hook starts: it never blocks jobrun, and a
        // hook that does not read it cannot make the write fail with EPIPE.
        _ = fcntl(stdin.write, F_SETFL, O_NONBLOCK)
        let writeError = input.withUnsafeBytes { DescriptorIO.writeAll(stdin.write, $0) }
        close(stdin.write)
        if let writeError {
            close(stdin.read)
            close(output.read)
            close(output.write)
            return failure("cannot hand it the event: \(systemErrorText(writeError))")
        }
        let spawned = ProcessSpawn.spawn(executable, argv: argv, environment: environment) { actions in
            posix_spawn_file_actions_adddup2(&actions, stdin.read, 0)
            posix_spawn_file_actions_adddup2(&actions, output.write, 1)
            posix_spawn_file_actions_adddup2(&actions, output.write, 2)
        }
        // The child has its own copies; ours must go, or the output would never end.
        close(stdin.read)
        close(output.write)
        let pid: pid_t
        switch spawned {
        case .success(let child): pid = child
        case .failure(let error):
            close(output.read)
            return failure(error.description)
        }
        _ = fcntl(output.read, F_SETFL, O_NONBLOCK)
        defer { close(output.read) }

        var outcome = Outcome()
        var tail = HookOutputTail(limit: HookEnd.tailLimit)
        var buffer = [UInt8](repeating: 0, count: 16_384)
        var isAtEnd = false
        var hasExited = false
        var exitedAt: ContinuousClock.Instant?
        var phase = Phase.running
        let deadline = started + timeout
        loop: while true {
            if !isAtEnd { isAtEnd = readAvailable(output.read, into: &tail, buffer: &buffer) }
            let now = ContinuousClock.now
            if !hasExited, exited(pid) {
                hasExited = true
                exitedAt = now
            }
            switch phase {
            case .running:
                if let exitedAt {
                    if isAtEnd || now - exitedAt >= drainTime { break loop }
                } else if stop.isStopped || now >= deadline {
                    outcome.wasCut = stop.isStopped
                    outcome.hasTimedOut = !outcome.wasCut
                    kill(-pid, SIGTERM)
                    phase = .terminating(killAt: now + grace)
                }
            case .terminating(let killAt):
                if (hasExited && isAtEnd) || now >= killAt {
                    // Whatever is left of the group, the hook's own zombie keeping its id; and the
                    // hook itself, should it have left its group.
                    kill(-pid, SIGKILL)
                    if !hasExited { kill(pid, SIGKILL) }
                    if hasExited && isAtEnd { break loop }
                    phase = .killed(drainUntil: now + drainTime)
                }
            case .killed(let drainUntil):
                if hasExited && (isAtEnd || now >= drainUntil) { break loop }
            }
            var ready = pollfd(fd: output.read, events: Int16(POLLIN), revents: 0)
            _ = poll(&ready, isAtEnd ? 0 : 1, tickMilliseconds)
        }
        var status: Int32 = 0
        var reaped = waitpid(pid, &status, 0)
        while reaped < 0 && errno == EINTR { reaped = waitpid(pid, &status, 0) }
        outcome.duration = ContinuousClock.now - started
        outcome.outputTail = tail.text
        outcome.outputBytes = tail.total
        guard reaped == pid else {
            outcome.launchError = "its exit status was lost: \(systemErrorText(errno))"
            return outcome
        }
        (outcome.exitStatus, outcome.signal) = ProcessSpawn.termination(status)
        return outcome
    }

    /// Reads what the pipe holds now into `tail`, a bounded amount: a hook that writes without
    /// pause must not keep the loop from its clock. Returns whether the output has ended.
    private static func readAvailable(_ fd: Int32, into tail: inout HookOutputTail, buffer: inout [UInt8]) -> Bool {
        for _ in 0..<maxReadsPerTick {
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count > 0 {
                buffer.withUnsafeBytes { tail.append(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
            } else if count < 0 && errno == EINTR {
                continue
            } else {
                return count == 0 || errno != EAGAIN
            }
        }
        return false
    }

    /// Reads of the output per turn of the loop (16 KiB each).
    static let maxReadsPerTick = 16

    /// Whether `pid` has exited, without reaping it (`WNOWAIT`): its id stays taken until then.
    private static func exited(_ pid: pid_t) -> Bool {
        var info = siginfo_t()
        guard waitid(P_PID, id_t(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 else { return errno == ECHILD }
        #if canImport(Glibc)
        return info._sifields._sigchld.si_pid == pid
        #else
        return info.si_pid == pid
        #endif
    }
}
