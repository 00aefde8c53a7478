#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `posix_spawn` of a child that starts clean: an empty signal mask and default dispositions
/// (test threads block SIGTERM, and Foundation's `Process` passes that mask on, so a child would
/// ignore the signals a test sends), in a process group of its own (a timeout kills grandchildren
/// too). Shared by the process runner and the fault server launcher.
enum CleanSpawn {
    static func spawn(
        _ executable: String, arguments: [String], environment: [String: String],
        actions: inout posix_spawn_file_actions_t, attributes: inout posix_spawnattr_t
    ) -> (pid: pid_t, error: Int32) {
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        // Default dispositions for the classic signals; 32 and up include libc's private ones.
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in Int32(1)..<32 where signal != SIGKILL && signal != SIGSTOP { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setpgroup(&attributes, 0)
        let flags = POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP
        posix_spawnattr_setflags(&attributes, Int16(truncatingIfNeeded: flags))

        let argv = ([executable] + arguments).map { strdup($0) }
        let envp = environment.sorted { $0.key < $1.key }.map { strdup("\($0.key)=\($0.value)") }
        defer { (argv + envp).forEach { free($0) } }
        var pid: pid_t = 0
        let code = posix_spawn(&pid, executable, &actions, &attributes, argv + [nil], envp + [nil])
        return (pid, code)
    }
}
