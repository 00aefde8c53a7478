import JobrunCore

// Darwin imports the spawn handles as optional opaque pointers, glibc as structs.
#if canImport(Darwin)
typealias SpawnFileActions = posix_spawn_file_actions_t?
private typealias SpawnAttributes = posix_spawnattr_t?
private func makeSpawnHandles() -> (SpawnFileActions, SpawnAttributes) { (nil, nil) }
#else
typealias SpawnFileActions = posix_spawn_file_actions_t
private typealias SpawnAttributes = posix_spawnattr_t
private func makeSpawnHandles() -> (SpawnFileActions, SpawnAttributes) { (posix_spawn_file_actions_t(), posix_spawnattr_t()) }
#endif

/// `posix_spawn` of a child that starts clean: an empty signal mask and default dispositions
/// (test threads block SIGTERM, and Foundation's `Process` passes that mask on, so a child would
/// ignore the signals a test sends), in a process group of its own (a timeout kills grandchildren
/// too). Shared by the process runner, background processes and the fault server launcher.
enum CleanSpawn {
    /// Why a child could not be started: an `errno` value.
    struct Failure: Error, CustomStringConvertible {
        var code: Int32
        var description: String { systemErrorText(code) }
    }

    /// Starts `executable` with the standard descriptors `stdio` sets up (`dup2`/`open` file
    /// actions for 0, 1 and 2); every other descriptor is closed in the child where the C
    /// library can (`posix_spawn_file_actions_addclosefrom_np`; elsewhere they should be
    /// close-on-exec), and it starts in `workingDirectory` when one is given.
    static func spawn(
        _ executable: String, arguments: [String], environment: [String: String], workingDirectory: String? = nil,
        stdio: (inout SpawnFileActions) -> Void
    ) -> Result<pid_t, Failure> {
        var (actions, attributes) = makeSpawnHandles()
        posix_spawn_file_actions_init(&actions)
        posix_spawnattr_init(&attributes)
        defer {
            posix_spawn_file_actions_destroy(&actions)
            posix_spawnattr_destroy(&attributes)
        }
        stdio(&actions)
        if let closeFrom = GNUExtensions.closeFrom { _ = closeFrom(&actions, 3) }
        if let workingDirectory {
            guard let addChdir = GNUExtensions.addChdir else { return .failure(Failure(code: ENOSYS)) }
            let code = addChdir(&actions, workingDirectory)
            if code != 0 { return .failure(Failure(code: code)) }
        }

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
        return code == 0 ? .success(pid) : .failure(Failure(code: code))
    }

    /// ``spawn(_:arguments:environment:workingDirectory:stdio:)`` with standard input from
    /// `/dev/null` and standard output and error on `stdout` and `stderr`.
    static func spawn(
        _ executable: String, arguments: [String], environment: [String: String], workingDirectory: String?,
        stdout: Int32, stderr: Int32
    ) -> Result<pid_t, Failure> {
        spawn(executable, arguments: arguments, environment: environment, workingDirectory: workingDirectory) { actions in
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
            posix_spawn_file_actions_adddup2(&actions, stdout, 1)
            posix_spawn_file_actions_adddup2(&actions, stderr, 2)
        }
    }

    /// The text of the current `errno`.
    static func errnoText() -> String { systemErrorText(errno) }

    /// A pipe whose ends close on exec (the child gets its own copies through `dup2`):
    /// atomically with `pipe2` where it exists, so a process another thread spawns at the same
    /// moment cannot inherit an end and keep it open.
    static func makePipe() -> (read: Int32, write: Int32)? {
        var fds: [Int32] = [-1, -1]
        if let pipe2 = GNUExtensions.pipe2 {
            guard pipe2(&fds, O_CLOEXEC) == 0 else { return nil }
            return (fds[0], fds[1])
        }
        guard pipe(&fds) == 0 else { return nil }
        _ = fcntl(fds[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(fds[1], F_SETFD, FD_CLOEXEC)
        return (fds[0], fds[1])
    }
}

/// glibc declares these only under `_GNU_SOURCE`, which Swift's Glibc module does not set, so
/// they are looked up at run time (as swift-corelibs-foundation does).
private enum GNUExtensions {
    typealias Actions = UnsafeMutablePointer<SpawnFileActions>
    typealias AddChdir = @convention(c) (Actions, UnsafePointer<CChar>) -> Int32
    typealias CloseFrom = @convention(c) (Actions, Int32) -> Int32
    typealias Pipe2 = @convention(c) (UnsafeMutablePointer<Int32>, Int32) -> Int32

    static let addChdir: AddChdir? = symbol("posix_spawn_file_actions_addchdir_np", as: AddChdir.self)
    static let closeFrom: CloseFrom? = symbol("posix_spawn_file_actions_addclosefrom_np", as: CloseFrom.self)
    static let pipe2: Pipe2? = symbol("pipe2", as: Pipe2.self)

    private static func symbol<T>(_ name: String, as type: T.Type) -> T? {
        guard let handle = dlopen(nil, RTLD_NOW), let pointer = dlsym(handle, name) else { return nil }
        return unsafeBitCast(pointer, to: type)
    }
}
