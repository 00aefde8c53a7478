import Foundation
public import Testing

/// A command in a real pseudo-terminal of a fixed size, read back as a person would see it:
/// a tmux session on a server of its own (Debian: tmux).
///
/// The server's socket is in a scratch folder (`-S`) and it reads only its own configuration
/// (`-f`), so it shares nothing with any other tmux, the user's included, and goes with
/// ``stop()``. The status line is off, so the pane is the whole window. Where tmux is missing,
/// tests take the ``Testing/Trait/needsTmux`` trait and are reported as skipped, with the reason.
public final class TmuxSession: Sendable {
    /// The `tmux` on `PATH`, if any.
    public static var executable: String? { ProcessRunner.which("tmux") }

    /// Why terminal tests cannot run here, or `nil` when they can.
    public static var missingReason: String? {
        executable == nil ? "tmux not found on PATH (install tmux): the tests in a terminal are skipped" : nil
    }

    private let tmux: String
    private let directory: TemporaryDirectory
    private let environment: [String: String]
    private var socket: String { directory.path("socket") }

    /// Starts `command` (run by `/bin/sh -c`) in a `columns`×`rows` terminal whose `TERM` is
    /// `term`. The command inherits this process's environment without `removing`.
    public init(columns: Int, rows: Int, term: String = "xterm-256color", command: String, removing: Set<String> = []) throws {
        guard let tmux = Self.executable else { throw ProcessLaunchError(executable: "tmux", message: "not found on PATH") }
        self.tmux = tmux
        directory = try TemporaryDirectory(prefix: "jobrun-tmux")
        // A tmux inside another would otherwise talk to that one.
        environment = ProcessRunner.environment(overrides: [:], removals: removing.union(["TMUX", "TMUX_PANE"]))
        let configuration = """
            set -g status off
            set -g default-shell /bin/sh
            set -g default-terminal \(term)
            set -g history-limit 10000

            """
        do {
            let file = try directory.write(file: "tmux.conf", contents: configuration)
            try run(["-f", file, "new-session", "-d", "-s", "test", "-x", "\(columns)", "-y", "\(rows)", command])
        } catch {
            stop()
            throw error
        }
    }

    deinit {
        stop()
    }

    /// The screen's text, a line per row without trailing spaces; with `history`, what scrolled
    /// off the top first, and rows that were wrapped joined back into their lines; with
    /// `escapes`, the colors and attributes as SGR sequences.
    public func capture(history: Bool = false, escapes: Bool = false) throws -> String {
        var arguments = ["capture-pane", "-p", "-t", "test"]
        if history { arguments += ["-S", "-", "-J"] }
        if escapes { arguments.append("-e") }
        return try run(arguments)
    }

    /// Resizes the terminal, as a person dragging its window's edge.
    public func resize(columns: Int, rows: Int) throws {
        try run(["resize-window", "-t", "test", "-x", "\(columns)", "-y", "\(rows)"])
    }

    /// Types `keys` (tmux key names: `C-c` is ^C).
    public func send(keys: String...) throws {
        try run(["send-keys", "-t", "test"] + keys)
    }

    /// Sends `signal` to the command's process group, as the terminal does for ^C or ^Z (the
    /// pane's first process leads it); SIGCONT is how a stopped command goes on.
    public func signalProcessGroup(_ signal: Int32) throws {
        let leader = try format("#{pane_pid}")
        guard let pid = Int32(leader), pid > 0, kill(-pid, signal) == 0 else {
            throw ProcessLaunchError(executable: "kill -\(signal) -\(leader)", message: "the pane's process group cannot be signalled")
        }
    }

    /// A tmux format about the pane: `#{cursor_flag}` is 1 while the cursor is visible.
    public func format(_ format: String) throws -> String {
        try run(["display-message", "-p", "-t", "test", format]).trimmingCharacters(in: .newlines)
    }

    /// One step of watching the screen: an action (a resize, keys), then the screen read until
    /// `condition` holds or `timeout` passes.
    public struct Step: Sendable {
        public var action: (@Sendable (TmuxSession) throws -> Void)?
        public var escapes: Bool
        public var timeout: Duration
        public var condition: @Sendable (String) -> Bool

        public init(
            escapes: Bool = false, timeout: Duration = .seconds(30), action: (@Sendable (TmuxSession) throws -> Void)? = nil,
            until condition: @escaping @Sendable (String) -> Bool
        ) {
            self.action = action
            self.escapes = escapes
            self.timeout = timeout
            self.condition = condition
        }
    }

    /// What a step saw: whether its condition held, and the last screen read (or the error).
    public struct Sighting: Sendable {
        public var holds: Bool
        public var screen: String
    }

    /// Takes the steps in order, polling the screen every 20 ms up to each step's deadline, on
    /// a thread of its own: a state that lasts a second must be seen even while other tests
    /// keep the threads of Swift tasks and of Dispatch busy waiting for their processes. Stops
    /// at the first step whose condition does not hold.
    public func watch(_ steps: [Step]) async -> [Sighting] {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread { continuation.resume(returning: self.watchBlocking(steps)) }
        }
    }

    private func watchBlocking(_ steps: [Step]) -> [Sighting] {
        var sightings: [Sighting] = []
        for step in steps {
            var sighting = Sighting(holds: false, screen: "")
            do {
                try step.action?(self)
                let deadline = ContinuousClock.now + step.timeout
                while true {
                    sighting.screen = try capture(escapes: step.escapes)
                    if step.condition(sighting.screen) {
                        sighting.holds = true
                        break
                    }
                    guard ContinuousClock.now < deadline else { break }
                    Thread.sleep(forTimeInterval: 0.02)
                }
            } catch {
                sighting.screen = "\(error)"
            }
            sightings.append(sighting)
            if !sighting.holds { break }
        }
        return sightings
    }

    /// Stops the server (and the command, if it still runs) and removes the scratch folder.
    public func stop() {
        _ = try? run(["kill-server"])
        directory.remove()
    }

    /// Blocks the calling thread: from a task, only for a moment (``watch(_:)`` is for the rest).
    @discardableResult
    private func run(_ arguments: [String]) throws -> String {
        try Self.check(
            ProcessRunner.runBlocking(
                executable: tmux, arguments: ["-S", socket] + arguments, environment: environment, workingDirectory: nil,
                timeout: .seconds(30)), arguments)
    }

    /// The output of a tmux command that succeeded.
    private static func check(_ result: RunResult, _ arguments: [String]) throws -> String {
        guard result.status == 0 else {
            throw ProcessLaunchError(executable: "tmux \(arguments.joined(separator: " "))", message: "\(result)")
        }
        return result.stdout
    }
}

extension Trait where Self == ConditionTrait {
    /// Runs the test only where tmux is found; elsewhere it is reported as skipped with
    /// ``TmuxSession/missingReason`` as the reason.
    public static var needsTmux: Self {
        let reason = TmuxSession.missingReason
        return .enabled(if: reason == nil, Comment(rawValue: reason ?? "tmux is found"))
    }
}
