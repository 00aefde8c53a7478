import Foundation
import JobrunTestSupport
import Synchronization
import Testing

/// The live display in a real terminal (tmux, 100×30, `TERM=xterm-256color`), as a person at it
/// sees it: drawn while transfers run, lines printed above it, gone at the end with nothing of it
/// left on screen or in the scrollback, and the cursor shown again; the same after a resize, a
/// signal, or with `NO_COLOR`.
/// Serialized, as ``ApplyProgressTests`` are.
@Suite(.needsTmux, .serialized) struct ApplyTerminalTests {
    static let columns = 100

    /// A session running `jobrun apply` in the fixture's folder, then saying how it exited
    /// (`[exit N]`) and staying open (`cat` reading the terminal) so the screen can be read.
    static func start(_ fixture: ApplyFixture, environment: [String: String] = [:]) throws -> TmuxSession {
        let jobrun = try BinaryRunner.locate()
        let variables = (["JOBRUN_RUN_ID": ApplyProgressTests.runID].merging(environment) { $1 })
            .sorted { $0.key < $1.key }.map { "\($0.key)='\($0.value)'" }.joined(separator: " ")
        // The shell catches ^C (a handler, which jobrun does not inherit) to live on after it.
        let command = "trap : INT; cd '\(fixture.directory.path)' && env \(variables) '\(jobrun)' apply site.yaml; echo \"[exit $?]\"; exec cat"
        return try TmuxSession(
            columns: columns, rows: 30, command: command,
            removing: Harness.scrubbedEnvironment.union(ApplyFixture.proxyVariables).union(ApplyProgressTests.deciding))
    }

    /// The display's first line, with and without its bar.
    static func isOverallLine(_ line: Substring) -> Bool {
        // A screen captured with its escapes has the bar's done part in green.
        line.replacing(#/\u{1B}\[[0-9;]*m/#, with: "").firstMatch(of: #/^ *\d{1,3}% (\[[=> ]+\] )?[0-9.]+ [KMG]?i?B of 205\.2 KiB, [0-9.]+ [KMG]?i?B\/s/#)
            != nil
    }

    static func hasDisplay(_ screen: String) -> Bool {
        screen.split(separator: "\n").contains { isOverallLine($0) } && screen.contains(" of 7 slices, ")
    }

    /// Watches the steps (``TmuxSession/watch(_:)``); requires each to have held, naming the
    /// first that did not, with its screen.
    static func watch(
        _ session: TmuxSession, _ steps: [(name: String, step: TmuxSession.Step)], sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> [TmuxSession.Sighting] {
        let sightings = await session.watch(steps.map(\.step))
        for (index, sighting) in sightings.enumerated() where !sighting.holds {
            Issue.record("\(steps[index].name): not seen; the screen:\n\(sighting.screen)", sourceLocation: sourceLocation)
        }
        try #require(sightings.count == steps.count && sightings.allSatisfy(\.holds), sourceLocation: sourceLocation)
        return sightings
    }

    /// Everything the terminal shows and scrolled off, ports masked, without trailing blank lines.
    static func transcript(_ session: TmuxSession) throws -> String {
        var lines = try session.capture(history: true).replacing(#/127\.0\.0\.1:\d+/#, with: "127.0.0.1:@PORT@")
            .split(separator: "\n", omittingEmptySubsequences: false).map { String($0) }
        while lines.last?.isEmpty == true { lines.removeLast() }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The run from start to end: the display while both resources are under way (every line
    /// narrower than the terminal, the failure in red), the log's lines above it, and at the end
    /// exactly the log on screen and in the scrollback (the golden). With `resizing`, the
    /// terminal narrows (the display follows, without its bar) and widens again during the run.
    @Test(arguments: [false, true])
    func theLiveDisplay(resizing: Bool) async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        try fixture.write(manifest: ApplyProgressTests.manifest(fixture, seconds: 2))
        let session = try Self.start(fixture)
        defer { session.stop() }

        var steps: [(name: String, step: TmuxSession.Step)] = [
            ("the display with both resources under way", TmuxSession.Step { Self.hasDisplay($0) && $0.contains("under way: alpha, beta") }),
            ("the failure counted", TmuxSession.Step(escapes: true) { Self.hasDisplay($0) && $0.contains("1 failed") }),
        ]
        if resizing {
            steps.append(
                (
                    "the display without its bar at 50 columns",
                    TmuxSession.Step(action: { try $0.resize(columns: 50, rows: 30) }) { screen in
                        screen.split(separator: "\n").contains { Self.isOverallLine($0) && !$0.contains("[") }
                    }
                ))
            steps.append(
                (
                    "the display with its bar again",
                    TmuxSession.Step(action: { try $0.resize(columns: Self.columns, rows: 30) }) { screen in
                        screen.split(separator: "\n").contains { Self.isOverallLine($0) && $0.contains("] ") }
                    }
                ))
        }
        steps.append(("the end of the run", TmuxSession.Step(timeout: .seconds(60)) { $0.contains("[exit ") }))
        let seen = try await Self.watch(session, steps)
        #expect(seen[0].screen.split(separator: "\n").allSatisfy { $0.count < Self.columns }, "\(seen[0].screen)")
        #expect(seen[1].screen.contains("\u{1B}[31m1 failed"), "the failure is not red:\n\(seen[1].screen.debugDescription)")
        #expect(seen[1].screen.contains("! alpha/gone.bin: HTTP 404"), "the failure is not above the display:\n\(seen[1].screen)")
        Harness.expectGolden(try Self.transcript(session), "progress/tty-final.txt")
        #expect(try session.format("#{cursor_flag}") == "1", "the cursor is still hidden")
    }

    /// ^C during the display: it goes, the stop and the interrupted summary are printed, the
    /// cursor is shown, and nothing of the display remains anywhere.
    @Test func aSignalRemovesTheDisplay() async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        try fixture.write(manifest: ApplyProgressTests.manifest(fixture, seconds: 5))
        let session = try Self.start(fixture)
        defer { session.stop() }
        _ = try await Self.watch(
            session,
            [
                ("the display", TmuxSession.Step { Self.hasDisplay($0) }),
                ("the end of the run after ^C", TmuxSession.Step(action: { try $0.send(keys: "C-c") }) { $0.contains("[exit ") }),
            ])
        let transcript = try Self.transcript(session)
        #expect(transcript.contains("jobrun: stopping (signal 2); partial files that can be resumed are kept"), "\(transcript)")
        #expect(transcript.contains(#/\nApply interrupted! Slices: [^\n]*\n\[exit 130\]\n$/#), "\(transcript)")
        #expect(!Self.hasDisplay(transcript) && !transcript.contains("under way:"), "\(transcript)")
        #expect(try session.format("#{cursor_flag}") == "1", "the cursor is still hidden")
    }

    /// ^Z during the display: it goes and the cursor is shown while the process is stopped;
    /// continued, the display comes back, and the run ends as it would have.
    @Test func aSuspendGivesTheTerminalBack() async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        // Long enough that work remains once continued: while jobrun is stopped the server
        // keeps sending, into the socket buffers.
        try fixture.write(manifest: ApplyProgressTests.manifest(fixture, seconds: 4))
        let session = try Self.start(fixture)
        defer { session.stop() }
        // Read while stopped, in the same turn as the ^Z and the SIGCONT: a test task may wait
        // long for its thread, and the process must not stay stopped until the work is done.
        let cursorWhileStopped = Mutex<String?>(nil)
        _ = try await Self.watch(
            session,
            [
                ("the display", TmuxSession.Step { Self.hasDisplay($0) && $0.contains("under way: alpha, beta") }),
                ("the display gone after ^Z", TmuxSession.Step(action: { try $0.send(keys: "C-z") }) { !Self.hasDisplay($0) }),
                (
                    "the display back after SIGCONT",
                    TmuxSession.Step(action: { session in
                        let flag = try session.format("#{cursor_flag}")
                        cursorWhileStopped.withLock { $0 = flag }
                        try session.signalProcessGroup(SIGCONT)
                    }) { Self.hasDisplay($0) }
                ),
                ("the end of the run", TmuxSession.Step(timeout: .seconds(60)) { $0.contains("[exit ") }),
            ])
        #expect(cursorWhileStopped.withLock { $0 } == "1", "the cursor is hidden while the process is stopped")
        Harness.expectGolden(try Self.transcript(session), "progress/tty-final.txt")
        #expect(try session.format("#{cursor_flag}") == "1", "the cursor is still hidden")
    }

    /// `NO_COLOR`: the same display without a single color or attribute.
    @Test func noColor() async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        try fixture.write(manifest: ApplyProgressTests.manifest(fixture, seconds: 1))
        let session = try Self.start(fixture, environment: ["NO_COLOR": "1"])
        defer { session.stop() }
        let seen = try await Self.watch(
            session,
            [
                ("the display with the failure counted", TmuxSession.Step(escapes: true) { Self.hasDisplay($0) && $0.contains("1 failed") })
            ])
        #expect(!seen[0].screen.contains("\u{1B}["), "\(seen[0].screen.debugDescription)")
    }
}
