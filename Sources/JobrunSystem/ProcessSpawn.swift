#if canImport(Glibc)
public import Glibc
#elseif canImport(Musl)
public import Musl
#elseif canImport(Darwin)
public import Darwin
#endif

/// `posix_spawn` of a child that starts clean: an empty signal mask and default dispositions
/// (jobrun ignores SIGINT and SIGTERM while it handles them itself, and SIGPIPE with an event
/// stream; ignored signals stay ignored across `exec`, so a child would not die of them), in a
/// process group of its own (a timeout reaches its grandchildren too), with only the standard
/// descriptors the caller sets up: every other one is closed in the child where the C library
/// can (`posix_spawn_file_actions_addclosefrom_np`), and should be close-on-exec anyway.
/// Used by the completion hooks, and by the tests' process runners.
public enum ProcessSpawn {
    /// How a process that `waitpid` reaped ended: its exit status, or the signal that ended it
    /// (WIFEXITED / WEXITSTATUS / WTERMSIG, which Swift does not import: they are macros).
    public static func termination(_ status: Int32) -> (exitStatus: Int32?, signal: Int32?) {
        let signal = status & 0x7F
        return signal == 0 ? ((status >> 8) & 0xFF, nil) : (nil, signal)
    }

    // Darwin imports the spawn handles as optional opaque pointers, glibc as structs.
    #if canImport(Darwin)
    public typealias FileActions = posix_spawn_file_actions_t?
    typealias Attributes = posix_spawnattr_t?
    static func makeHandles() -> (FileActions, Attributes) { (nil, nil) }
    #else
    public typealias FileActions = posix_spawn_file_actions_t
    typealias Attributes = posix_spawnattr_t
    static func makeHandles() -> (FileActions, Attributes) { (posix_spawn_file_actions_t(), posix_spawnattr_t()) }
    #endif

    /// Starts `executable` with the argument vector `argv` (its first item is what the child
    /// sees as its name) and the environment `environment` (`NAME=value` items), with the
    /// standard descriptors `stdio` sets up (`dup2`/`open` file actions for 0, 1 and 2), in
    /// `workingDirectory` when one is given.
    /// - Returns: the child's pid, or the `errno` value that kept it from starting.
    public static func spawn(
        _ executable: String, argv: [String], environment: [String], workingDirectory: String? = nil,
        stdio: (inout FileActions) -> Void
    ) -> Result<pid_t, SystemError> {
        var (actions, attributes) = makeHandles()
        posix_spawn_file_actions_init(&actions)
        posix_spawnattr_init(&attributes)
        defer {
            posix_spawn_file_actions_destroy(&actions)
            posix_spawnattr_destroy(&attributes)
        }
        stdio(&actions)
        if let closeFrom = GNUExtensions.closeFrom { _ = closeFrom(&actions, 3) }
        if let workingDirectory {
            guard let addChdir = GNUExtensions.addChdir else { return .failure(SystemError(code: ENOSYS)) }
            let code = addChdir(&actions, workingDirectory)
            if code != 0 { return .failure(SystemError(code: code)) }
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
        #if canImport(Darwin)
        // Darwin has no closefrom action: every descriptor but those set up here closes.
        let flags = POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_CLOEXEC_DEFAULT
        #else
        let flags = POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP
        #endif
        posix_spawnattr_setflags(&attributes, Int16(truncatingIfNeeded: flags))

        let arguments = argv.map { strdup($0) }
        let variables = environment.map { strdup($0) }
        defer { (arguments + variables).forEach { free($0) } }
        var pid: pid_t = 0
        let code = posix_spawn(&pid, executable, &actions, &attributes, arguments + [nil], variables + [nil])
        return code == 0 ? .success(pid) : .failure(SystemError(code: code))
    }

    /// A pipe whose ends close on exec (the child gets its own copies through `dup2`):
    /// atomically with `pipe2` where it exists, so that a process another thread spawns at the
    /// same moment cannot inherit an end and keep it open.
    public static func makePipe() -> (read: Int32, write: Int32)? {
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

    /// An `errno` value, with its text.
    public struct SystemError: Error, Sendable, Hashable, CustomStringConvertible {
        public var code: Int32
        public init(code: Int32) { self.code = code }
        public var description: String { systemErrorText(code) }
    }

    /// glibc declares these only under `_GNU_SOURCE`, which Swift's Glibc module does not set, so
    /// they are looked up at run time (as swift-corelibs-foundation does).
    private enum GNUExtensions {
        typealias Actions = UnsafeMutablePointer<FileActions>
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
}
