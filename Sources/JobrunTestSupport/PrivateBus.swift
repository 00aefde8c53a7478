import Foundation

/// A private D-Bus message bus for one test: a real `dbus-daemon` (Debian's `dbus-daemon`
/// package) listening on a socket in a temporary directory, with a policy that allows anything,
/// and optionally a service it can auto-start (to prove that a client did not ask it to).
///
///     let bus = try await PrivateBus.start()
///     defer { bus.stop() }
///     let manager = try await FakeNetworkManager.start(on: bus, .metered("3"))
///     … MeteredState.networkManager(busAddress: bus.address) …
///
/// ``stop()`` or `deinit` kills the daemon; a test process that dies leaves it running until
/// someone kills it (it has no way to notice).
public final class PrivateBus: Sendable {
    /// The bus's address, as the daemon printed it (`unix:path=…,guid=…`).
    public let address: String
    /// The folder of the socket, the configuration and the service files.
    public let directory: TemporaryDirectory
    private let daemon: BackgroundProcess

    /// Starts a bus on which `activatable` (bus name → executable) can be auto-started, and waits
    /// up to `timeout` for it to listen.
    /// - Throws: ``PrivateBusError`` when `dbus-daemon` is missing or does not start.
    public static func start(activatable: [String: String] = [:], timeout: Duration = .seconds(20)) async throws(PrivateBusError) -> PrivateBus {
        guard let executable = ProcessRunner.which("dbus-daemon") else {
            throw PrivateBusError(message: "dbus-daemon is not on PATH (Debian: apt install dbus-daemon; `make deps` installs it)")
        }
        let directory: TemporaryDirectory
        do {
            directory = try TemporaryDirectory(prefix: "dbus")
            for (name, exec) in activatable {
                try directory.write(file: "services/\(name).service", contents: "[D-BUS Service]\nName=\(name)\nExec=\(exec)\n")
            }
            _ = try directory.makeDirectory("services")
            try directory.write(file: "bus.conf", contents: configuration(directory: directory.path))
        } catch {
            throw PrivateBusError(message: "cannot prepare a bus folder: \(error)")
        }
        let daemon: BackgroundProcess
        do {
            daemon = try BackgroundProcess(
                executable: executable, arguments: ["--config-file=" + directory.path("bus.conf"), "--nofork", "--print-address"],
                environment: ["PATH": "/usr/bin:/bin"], workingDirectory: directory.path)
        } catch {
            directory.remove()
            throw PrivateBusError(message: "cannot start dbus-daemon: \(error)")
        }
        let printed = await Poll.until(timeout: timeout, interval: .milliseconds(5)) { daemon.stdout.contains("\n") || !daemon.isRunning }
        guard printed, let line = daemon.stdout.split(separator: "\n").first, line.hasPrefix("unix:") else {
            let stderr = daemon.stderr
            daemon.kill()
            directory.remove()
            throw PrivateBusError(message: "dbus-daemon printed no address within \(timeout)\n--- its stderr ---\n\(stderr)")
        }
        return PrivateBus(address: String(line), directory: directory, daemon: daemon)
    }

    private init(address: String, directory: TemporaryDirectory, daemon: BackgroundProcess) {
        self.address = address
        self.directory = directory
        self.daemon = daemon
    }

    deinit {
        stop()
    }

    /// Kills the daemon and removes its folder. Idempotent.
    public func stop() {
        daemon.kill()
        directory.remove()
    }

    /// What the daemon wrote to stderr (activation attempts, policy refusals).
    public var diagnostics: String { daemon.stderr }

    /// A session-type bus (no setuid activation helper, no fd limits to raise) on `directory`'s
    /// socket, where anyone may own any name and send anything.
    static func configuration(directory: String) -> String {
        """
        <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
         "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
        <busconfig>
          <type>session</type>
          <listen>unix:path=\(directory)/bus</listen>
          <auth>EXTERNAL</auth>
          <servicedir>\(directory)/services</servicedir>
          <policy context="default">
            <allow user="*"/>
            <allow own="*"/>
            <allow send_destination="*" eavesdrop="true"/>
            <allow eavesdrop="true"/>
          </policy>
        </busconfig>

        """
    }
}

/// A private bus or a service on it could not be started.
public struct PrivateBusError: Error, Sendable, CustomStringConvertible {
    public var message: String

    public init(message: String) { self.message = message }

    public var description: String { message }
}
