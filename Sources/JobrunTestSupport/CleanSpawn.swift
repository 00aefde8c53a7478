import JobrunCore
import JobrunSystem

typealias SpawnFileActions = ProcessSpawn.FileActions

/// ``ProcessSpawn`` as the process runner, background processes and the fault server launcher
/// use it: the executable is also the child's name, and the environment a dictionary.
enum CleanSpawn {
    typealias Failure = ProcessSpawn.SystemError

    static func spawn(
        _ executable: String, arguments: [String], environment: [String: String], workingDirectory: String? = nil,
        stdio: (inout SpawnFileActions) -> Void
    ) -> Result<pid_t, Failure> {
        ProcessSpawn.spawn(
            executable, argv: [executable] + arguments, environment: environment.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" },
            workingDirectory: workingDirectory, stdio: stdio)
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

    static func makePipe() -> (read: Int32, write: Int32)? { ProcessSpawn.makePipe() }
}
