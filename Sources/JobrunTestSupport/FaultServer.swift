import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A running `Tests/Support/faultserver.py`: a loopback HTTP/1.1 server (random ports on
/// 127.0.0.1) that honours Range/If-Range/ETag, injects faults selected by the URL path, and logs
/// every request so a test can assert on the wire. The route and option reference is in the
/// script's docstring and in `Tests/Support/README.md`.
///
///     let server = try FaultServer(secondPort: true)
///     defer { server.stop() }
///     let url = server.url("/fault/status=503;n=2;retry_after=1/gen/4096/a.bin")
///     … run jobrun …
///     let hits = try server.requests(path: "/fault/status=503;n=2;retry_after=1/gen/4096/a.bin")
///     #expect(hits.map(\.status) == [503, 503, 200])
///
/// The server's stdin is a pipe this object holds open: ``stop()`` (or `deinit`, or this test
/// process dying for any reason) closes it and the server exits. It also exits by itself after
/// ``Options/maxSeconds``. So a suite may share one server in a `static let`: it lives as long as
/// the test process. Tests that share one should use paths of their own (counters are per path).
public final class FaultServer: Sendable {
    /// How to start the server.
    public struct Options: Sendable {
        /// Serve the files under this directory at their relative paths.
        public var root: String?
        /// Also serve HTTPS on ``FaultServer/tlsPort`` with a fresh self-signed certificate
        /// (``FaultServer/caFile``); needs the `openssl` command (see ``FaultServer/isTLSAvailable``).
        public var isTLSEnabled: Bool
        /// Also serve the same routes over HTTP on ``FaultServer/secondPort``.
        public var hasSecondPort: Bool
        /// The server exits by itself after this long.
        public var maxSeconds: Int
        /// Where the request log goes; a file in a private temporary directory when `nil`.
        public var logPath: String?
        /// The Python 3 interpreter (a path, or a name looked up on `PATH`); `$JOBRUN_PYTHON`,
        /// else `python3`, when `nil`.
        public var python: String?
        /// How long to wait for the server's ready line.
        public var startupTimeout: Duration
        /// Chaos mode: faults drawn at random for a share of the content requests; off when `nil`.
        public var chaos: Chaos?
        /// The primary port; a free one when `nil`. A server stopped a moment ago may be started
        /// again on its port (the tests of a network that goes away and comes back).
        public var port: Int?
        /// The share, 0 to 100, of accepted connections the server resets before reading a
        /// request (`--refuse-percent`): the client's connect succeeds, then it reads "connection
        /// reset by peer" (curl exit 56). Which connections is drawn by ``refuseSeed`` and each
        /// connection's number, all listeners counted together; each is logged (see
        /// ``FaultServer/refusedConnections()``). None when `nil`.
        public var refusePercent: Double?
        /// Seeds the refusal draws (`--refuse-seed`, 0 when `nil`): the same seed refuses the same
        /// connection numbers in every run.
        public var refuseSeed: Int?
        /// Added before every counted response (`--latency-ms`; not `/_digest`, `/_chaos`,
        /// `/_refused`): an origin farther away. None when `nil`.
        public var latency: Duration?
        /// Paces every content body (`/gen`, `/zeros`, files) to take at least this long per KiB
        /// (1,024 bytes) sent (`--slow-ms-per-kib`): a slower origin. Unpaced when `nil`.
        public var timePerKiB: Duration?

        public init(
            root: String? = nil, isTLSEnabled: Bool = false, hasSecondPort: Bool = false, maxSeconds: Int = 600,
            logPath: String? = nil, python: String? = nil, startupTimeout: Duration = .seconds(20), chaos: Chaos? = nil,
            port: Int? = nil, refusePercent: Double? = nil, refuseSeed: Int? = nil, latency: Duration? = nil,
            timePerKiB: Duration? = nil
        ) {
            self.port = port
            self.refusePercent = refusePercent
            self.refuseSeed = refuseSeed
            self.latency = latency
            self.timePerKiB = timePerKiB
            self.root = root
            self.isTLSEnabled = isTLSEnabled
            self.hasSecondPort = hasSecondPort
            self.maxSeconds = maxSeconds
            self.logPath = logPath
            self.python = python
            self.startupTimeout = startupTimeout
            self.chaos = chaos
        }

        /// The command-line options of the server-wide origin behaviour (refusals and pace).
        var originArguments: [String] {
            var arguments: [String] = []
            if let refusePercent { arguments += ["--refuse-percent", String(refusePercent)] }
            if let refuseSeed { arguments += ["--refuse-seed", String(refuseSeed)] }
            if let latency { arguments += ["--latency-ms", Self.milliseconds(latency)] }
            if let timePerKiB { arguments += ["--slow-ms-per-kib", Self.milliseconds(timePerKiB)] }
            return arguments
        }

        private static func milliseconds(_ duration: Duration) -> String {
            let (seconds, attoseconds) = duration.components
            return String(Double(seconds) * 1_000 + Double(attoseconds) / 1e15)
        }
    }

    /// The server's chaos mode (`--chaos-…` options; `Tests/Support/README.md`, "Chaos mode").
    public struct Chaos: Sendable {
        /// The share of content requests that get a fault, 0 to 100.
        public var percent: Double
        /// Seeds the draws: the same seed gives every URL the same faults in the same order.
        public var seed: Int
        /// `KIND` or `KIND:WEIGHT` entries (`reset`, `truncate`, `stall`, `5xx`, `429`, `corrupt`,
        /// `etag`, `norange`, `partial200`); every kind, weight 1, when empty.
        public var faults: [String]
        /// `KIND=REGEX`: that kind is drawn only for paths the regular expression matches.
        public var only: [String]

        public init(percent: Double, seed: Int = 0, faults: [String] = [], only: [String] = []) {
            self.percent = percent
            self.seed = seed
            self.faults = faults
            self.only = only
        }

        var arguments: [String] {
            var arguments = ["--chaos-percent", String(percent), "--chaos-seed", String(seed)]
            if !faults.isEmpty { arguments += ["--chaos-faults", faults.joined(separator: ",")] }
            for scope in only { arguments += ["--chaos-only", scope] }
            return arguments
        }
    }

    /// Which listening socket a URL points at.
    public enum Listener: Sendable, Hashable {
        case primary, second, tls
    }

    /// Overrides the location of `faultserver.py`.
    public static let scriptVariable = "JOBRUN_FAULTSERVER"
    /// Overrides the Python interpreter.
    public static let pythonVariable = "JOBRUN_PYTHON"

    /// The primary HTTP port.
    public let port: Int
    /// The second HTTP port, when started with ``Options/hasSecondPort``.
    public let secondPort: Int?
    /// The HTTPS port, when started with ``Options/isTLSEnabled``.
    public let tlsPort: Int?
    /// The self-signed certificate of the HTTPS port (PEM), to pass as `--cacert`.
    public let caFile: String?
    /// The server's process id (also its process group).
    public let pid: Int32
    /// The request log: one JSON object per line (see ``LoggedRequest``).
    public let logPath: String

    private let workDirectory: TemporaryDirectory
    /// The write end of the server's stdin while it runs; `nil` once stopped.
    private let stdinPipe: Mutex<Int32?>
    private let hasExited = Mutex(false)

    /// Starts a server; see ``Options``.
    public convenience init(
        root: String? = nil, tls: Bool = false, secondPort: Bool = false
    ) throws(FaultServerError) {
        try self.init(Options(root: root, isTLSEnabled: tls, hasSecondPort: secondPort))
    }

    /// Starts a server and waits for its ready line.
    /// - Throws: ``FaultServerError`` with the server's stderr when it cannot start.
    public init(_ options: Options) throws(FaultServerError) {
        let script = try Self.scriptPath()
        let interpreter = options.python ?? Self.configuredPython ?? "python3"
        guard let python = ProcessRunner.which(interpreter) else {
            throw FaultServerError(message: "no executable \(interpreter) (on PATH); set \(Self.pythonVariable)")
        }
        let workDirectory: TemporaryDirectory
        do {
            workDirectory = try TemporaryDirectory(prefix: "faultserver")
        } catch {
            throw FaultServerError(message: "cannot create a temporary directory: \(error)")
        }
        let logPath = options.logPath ?? workDirectory.path("requests.jsonl")
        var arguments = [script, "--log", logPath, "--max-seconds", String(options.maxSeconds)]
        if let root = options.root { arguments += ["--root", root] }
        if options.isTLSEnabled { arguments.append("--tls") }
        if options.hasSecondPort { arguments.append("--second-port") }
        if let chaos = options.chaos { arguments += chaos.arguments }
        if let port = options.port { arguments += ["--port", String(port)] }
        arguments += options.originArguments

        let launched: ServerLaunch.Launched
        do {
            launched = try ServerLaunch.start(
                executable: python, arguments: arguments, stderrPath: workDirectory.path("stderr.txt"),
                timeout: options.startupTimeout)
        } catch {
            workDirectory.remove()
            throw error
        }
        self.port = launched.ready.port
        self.secondPort = launched.ready.secondPort
        self.tlsPort = launched.ready.tlsPort
        self.caFile = launched.ready.caFile
        self.pid = launched.pid
        self.logPath = logPath
        self.workDirectory = workDirectory
        self.stdinPipe = Mutex(launched.stdin)
    }

    deinit {
        stop()
        workDirectory.remove()
    }

    /// Whether `openssl` is on `PATH`, so ``Options/isTLSEnabled`` can work.
    public static var isTLSAvailable: Bool { ProcessRunner.which("openssl") != nil }

    /// `$JOBRUN_FAULTSERVER`, else `<package root>/Tests/Support/faultserver.py`.
    public static func scriptPath() throws(FaultServerError) -> String {
        if let configured = ProcessInfo.processInfo.environment[scriptVariable], !configured.isEmpty {
            return configured
        }
        guard let root = SharedPaths.packageRoot(startingAt: #filePath) else {
            throw FaultServerError(message: "no Package.swift above \(#filePath); set \(scriptVariable)")
        }
        let script = root + "/Tests/Support/faultserver.py"
        guard FileManager.default.fileExists(atPath: script) else {
            throw FaultServerError(message: "\(script) does not exist; set \(scriptVariable)")
        }
        return script
    }

    private static var configuredPython: String? {
        guard let value = ProcessInfo.processInfo.environment[pythonVariable], !value.isEmpty else { return nil }
        return value
    }

    // MARK: URLs

    /// `http://127.0.0.1:<port>`.
    public var baseURL: String { "http://127.0.0.1:\(port)" }
    /// `http://127.0.0.1:<secondPort>`, when there is a second port.
    public var secondBaseURL: String? { secondPort.map { "http://127.0.0.1:\($0)" } }
    /// `https://127.0.0.1:<tlsPort>`, when TLS is on.
    public var tlsBaseURL: String? { tlsPort.map { "https://127.0.0.1:\($0)" } }

    /// `path` (leading `/` optional) on the primary port.
    public func url(_ path: String) -> String { baseURL + Self.absolute(path) }

    /// `path` on `listener`.
    /// - Throws: when that listener was not started.
    public func url(_ path: String, on listener: Listener) throws(FaultServerError) -> String {
        let base: String?
        switch listener {
        case .primary: base = baseURL
        case .second: base = secondBaseURL
        case .tls: base = tlsBaseURL
        }
        guard let base else { throw FaultServerError(message: "the \(listener) listener was not started") }
        return base + Self.absolute(path)
    }

    /// `/fault/<options joined by ;><path>`:
    /// `FaultServer.path("/gen/10/a", faults: "status=503", "n=2")` is `/fault/status=503;n=2/gen/10/a`.
    public static func path(_ path: String, faults options: String...) -> String {
        "/fault/" + options.joined(separator: ";") + absolute(path)
    }

    private static func absolute(_ path: String) -> String { path.hasPrefix("/") ? path : "/" + path }

    // MARK: Lifecycle

    /// Closes the server's stdin and waits (up to 5 s, then SIGKILL) for it to exit. Idempotent;
    /// the log stays readable until this object is released.
    public func stop() {
        guard
            let fd = stdinPipe.withLock({ fd -> Int32? in
                defer { fd = nil }; return fd
            })
        else { return }
        close(fd)
        hasExited.withLock { exited in
            guard !exited else { return }
            ServerLaunch.reap(pid, within: .seconds(5))
            exited = true
        }
    }

    /// Whether the server process is still alive (reaps it if it has exited).
    public var isRunning: Bool {
        hasExited.withLock { exited in
            if !exited, ServerLaunch.hasExited(pid) { exited = true }
            return !exited
        }
    }

    /// What the server wrote to stderr (startup problems, handler errors).
    public var diagnostics: String {
        workDirectory.contents(of: "stderr.txt") ?? ""
    }
}

/// The fault server could not start, or its log could not be read.
public struct FaultServerError: Error, Sendable, CustomStringConvertible {
    public var message: String

    public init(message: String) { self.message = message }

    public var description: String { message }
}
