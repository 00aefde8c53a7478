import Foundation

/// A stand-in NetworkManager on a ``PrivateBus``: `Tests/Support/fake_networkmanager.py` owns
/// `org.freedesktop.NetworkManager` and serves its `Metered` property (or never answers).
///
///     let manager = try await FakeNetworkManager.start(on: bus, .metered("3"))
///     defer { manager.stop() }
public final class FakeNetworkManager: Sendable {
    /// What the stand-in answers to `Get(org.freedesktop.NetworkManager, Metered)`.
    public enum Behaviour: Sendable {
        /// This value: a uint32 when it is a number that fits, else a string (a wrong type).
        case metered(String)
        /// The contents of this file, read at every call, as for ``metered(_:)``.
        case meteredFile(String)
        /// These values, one per call in order, the last one from then on.
        case meteredSequence([String])
        /// Never answers.
        case noReply

        var arguments: [String] {
            switch self {
            case .metered(let value): ["--metered", value]
            case .meteredFile(let path): ["--metered-file", path]
            case .meteredSequence(let values): ["--metered-sequence", values.joined(separator: ",")]
            case .noReply: ["--no-reply"]
            }
        }
    }

    /// Overrides the interpreter: one that has python3-dbus and python3-gi.
    public static let pythonVariable = "JOBRUN_DBUS_PYTHON"
    /// Debian installs python3-dbus and python3-gi for the system interpreter only, which a
    /// `python3` earlier on `PATH` (pyenv, a virtual environment) may not be.
    public static let systemPython = "/usr/bin/python3"

    private let process: BackgroundProcess

    /// Starts the stand-in and waits up to `timeout` until it owns the name.
    /// - Throws: ``PrivateBusError`` with the script's stderr when it does not get there.
    public static func start(on bus: PrivateBus, _ behaviour: Behaviour, timeout: Duration = .seconds(20)) async throws(PrivateBusError) -> FakeNetworkManager {
        guard let root = SharedPaths.packageRoot() else { throw PrivateBusError(message: "no Package.swift above \(#filePath)") }
        let script = root + "/Tests/Support/fake_networkmanager.py"
        let configured = ProcessInfo.processInfo.environment[pythonVariable].flatMap { $0.isEmpty ? nil : $0 }
        let interpreter = configured ?? (ProcessRunner.isExecutableFile(systemPython) ? systemPython : "python3")
        guard let python = ProcessRunner.which(interpreter) else {
            throw PrivateBusError(message: "no executable \(interpreter); set \(pythonVariable)")
        }
        let process: BackgroundProcess
        do {
            process = try BackgroundProcess(
                executable: python, arguments: [script, "--address", bus.address] + behaviour.arguments,
                environment: ["PATH": "/usr/bin:/bin", "PYTHONDONTWRITEBYTECODE": "1"], workingDirectory: nil)
        } catch {
            throw PrivateBusError(message: "cannot start \(script): \(error)")
        }
        let owned = await Poll.until(timeout: timeout, interval: .milliseconds(5)) { process.stdout.hasPrefix("ready ") || !process.isRunning }
        guard owned, process.stdout.hasPrefix("ready ") else {
            let stderr = process.stderr
            process.kill()
            throw PrivateBusError(message: "the stand-in NetworkManager did not own its name within \(timeout)\n--- its stderr ---\n\(stderr)")
        }
        return FakeNetworkManager(process: process)
    }

    private init(process: BackgroundProcess) {
        self.process = process
    }

    /// The calls received so far: `Get org.freedesktop.NetworkManager Metered`, one a line.
    public var calls: [String] {
        process.stderr.split(separator: "\n").filter { $0.hasPrefix("Get ") }.map(String.init)
    }

    /// What the script wrote to stderr (its calls, a traceback).
    public var diagnostics: String { process.stderr }

    /// Kills the stand-in. Idempotent.
    public func stop() {
        process.kill()
    }
}
