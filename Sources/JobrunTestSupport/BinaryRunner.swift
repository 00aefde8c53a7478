import Dispatch
import Foundation

/// Runs a built executable (normally `jobrun`) the way a user would, and captures what it did.
///
///     let jobrun = try BinaryRunner.jobrun()
///     let result = try await jobrun.run(["plan", "site.yaml"], workingDirectory: dir.path)
///     #expect(result.status == 0, "\(result)")
public struct BinaryRunner: Sendable {
    /// Absolute path of the executable.
    public var executable: String
    /// Used when ``run(_:environment:removingEnvironment:workingDirectory:timeout:)`` gets no timeout.
    public var defaultTimeout: Duration

    public init(executable: String, defaultTimeout: Duration = .seconds(120)) {
        self.executable = executable
        self.defaultTimeout = defaultTimeout
    }

    /// The environment variable naming the `jobrun` binary to test (set by the Makefile and CI).
    public static let binaryVariable = "JOBRUN_BIN"

    /// A runner for the `jobrun` under test; see ``locate(product:)``.
    public static func jobrun() throws(LocateError) -> BinaryRunner {
        BinaryRunner(executable: try locate(product: "jobrun"))
    }

    /// Finds a built product: `$JOBRUN_BIN` when set (for `jobrun`), else the products directory
    /// that holds the running test bundle (`.build/<triple>/debug` on Linux, the parent of the
    /// `.xctest` bundle on macOS), else `<package>/.build/debug`.
    public static func locate(product: String = "jobrun") throws(LocateError) -> String {
        if product == "jobrun", let configured = ProcessInfo.processInfo.environment[binaryVariable], !configured.isEmpty {
            let absolute = absolutePath(configured)
            guard ProcessRunner.isExecutableFile(absolute) else {
                throw LocateError(message: "\(binaryVariable)=\(configured) is not an executable file")
            }
            return absolute
        }
        var searched: [String] = []
        for directory in productDirectoryCandidates() {
            let candidate = directory + "/" + product
            if searched.contains(candidate) { continue }
            searched.append(candidate)
            if ProcessRunner.isExecutableFile(candidate) { return candidate }
        }
        throw LocateError(
            message: "cannot find the '\(product)' executable; build it (swift build --product \(product)) "
                + "or set \(binaryVariable). Looked at:\n  " + searched.joined(separator: "\n  "))
    }

    /// Runs the executable and waits for it, off Swift concurrency's thread pool.
    ///
    /// - Parameters:
    ///   - environment: variables added to (or replacing those of) this process's environment.
    ///   - removingEnvironment: inherited variables the child must not see.
    ///   - workingDirectory: the child's working directory; this process's when `nil`.
    ///   - timeout: SIGTERM after this long, SIGKILL two seconds later; ``RunResult/hasTimedOut`` says so.
    /// - Throws: ``ProcessLaunchError`` when the process cannot be started at all.
    public func run(
        _ arguments: [String], environment: [String: String] = [:], removingEnvironment: Set<String> = [],
        workingDirectory: String? = nil, timeout: Duration? = nil
    ) async throws(ProcessLaunchError) -> RunResult {
        let executable = self.executable
        let fullEnvironment = ProcessRunner.environment(overrides: environment, removals: removingEnvironment)
        let timeout = timeout ?? defaultTimeout
        // The wait blocks a thread; never one of the few that run Swift tasks.
        let outcome: Result<RunResult, ProcessLaunchError> = await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(
                    returning: Result { () throws(ProcessLaunchError) -> RunResult in
                        try ProcessRunner.runBlocking(
                            executable: executable, arguments: arguments, environment: fullEnvironment,
                            workingDirectory: workingDirectory, timeout: timeout)
                    })
            }
        }
        return try outcome.get()
    }

    /// Like ``run(_:environment:removingEnvironment:workingDirectory:timeout:)``, blocking the caller.
    public func runBlocking(
        _ arguments: [String], environment: [String: String] = [:], removingEnvironment: Set<String> = [],
        workingDirectory: String? = nil, timeout: Duration? = nil
    ) throws(ProcessLaunchError) -> RunResult {
        try ProcessRunner.runBlocking(
            executable: executable, arguments: arguments,
            environment: ProcessRunner.environment(overrides: environment, removals: removingEnvironment),
            workingDirectory: workingDirectory, timeout: timeout ?? defaultTimeout)
    }

    /// The executable could not be found.
    public struct LocateError: Error, Sendable, CustomStringConvertible {
        public var message: String
        public var description: String { message }
    }

    private static func productDirectoryCandidates() -> [String] {
        var starts: [String] = []
        // Linux: the test runner is `.build/<triple>/debug/<Package>PackageTests.xctest`, an executable.
        if let first = CommandLine.arguments.first, !first.isEmpty {
            starts.append((absolutePath(first) as NSString).resolvingSymlinksInPath)
        }
        // macOS: the bundle `.build/<triple>/debug/<Package>PackageTests.xctest/Contents/MacOS/…`.
        starts += Bundle.allBundles.map(\.bundlePath).filter { $0.hasSuffix(".xctest") }
        starts.append(Bundle.main.bundlePath)
        if let executable = Bundle.main.executablePath { starts.append(executable) }

        var directories: [String] = []
        for start in starts {
            // The products directory is at most four levels above any of these.
            var directory = (start as NSString).deletingLastPathComponent
            for _ in 0..<4 where directory != "/" && !directory.isEmpty {
                directories.append(directory)
                directory = (directory as NSString).deletingLastPathComponent
            }
        }
        if let root = SharedPaths.packageRoot() {
            directories.append(root + "/.build/debug")
            directories.append(root + "/.build/release")
        }
        return directories
    }

    static func absolutePath(_ path: String) -> String {
        path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
    }
}
