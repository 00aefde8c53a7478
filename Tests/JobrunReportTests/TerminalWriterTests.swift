import JobrunCore
import JobrunTestSupport
import Testing
@testable import JobrunOutcome
@testable import JobrunReport

/// The writer that owns the terminal, on a pipe: lines land above the display in order, the
/// display goes at the end with the cursor shown again, frames are drawn at most ten times a
/// second, and the progress observer ends the display at a stop.
/// Serialized: ``TerminalWriter/restoreBeforeExit()`` acts on whichever display is drawn.
@Suite(.serialized) struct TerminalWriterTests {
    /// A pipe whose read end does not block.
    final class Pipe {
        let readEnd: Int32
        let write: Int32
        var received = ""

        init() throws {
            var fds: [Int32] = [0, 0]
            try #require(pipe(&fds) == 0)
            readEnd = fds[0]
            write = fds[1]
            _ = fcntl(readEnd, F_SETFL, fcntl(readEnd, F_GETFL) | O_NONBLOCK)
        }

        deinit {
            close(readEnd)
            close(write)
        }

        /// Everything written so far.
        @discardableResult
        func drain() -> String {
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while true {
                let n = buffer.withUnsafeMutableBytes { read(readEnd, $0.baseAddress, $0.count) }
                guard n > 0 else { break }
                received += String(decoding: buffer[0..<n], as: UTF8.self)
            }
            return received
        }
    }

    static func screen(_ bytes: String) -> LiveRegionTests.Screen {
        var screen = LiveRegionTests.Screen(columns: TerminalSize.fallback.columns, height: TerminalSize.fallback.rows)
        screen.feed(bytes)
        return screen
    }

    @Test func linesGoAboveTheDisplayWhichGoesAtTheEnd() async throws {
        let pipe = try Pipe()
        let writer = TerminalWriter(fd: pipe.write)
        writer.print("first\n", to: pipe.write)
        // Before any frame: written at once, on this thread.
        #expect(pipe.drain() == "first\n")
        writer.show { size in ["display \(size.columns)", "second line"] }
        // Not a terminal: drawn for the fallback size.
        try #require(await Poll.until(timeout: .seconds(10)) { pipe.drain().contains("display 80\nsecond line") })
        writer.print("second\n", to: pipe.write)
        writer.show { _ in ["display again"] }
        writer.print("third\n", to: pipe.write)
        writer.close()
        writer.print("after\n", to: pipe.write)
        writer.show { _ in ["ignored"] }
        let bytes = pipe.drain()
        let screen = Self.screen(bytes)
        #expect(screen.transcript == ["first", "second", "third", "after"], "\(bytes.debugDescription)")
        #expect(screen.isCursorVisible)
        #expect(bytes.hasSuffix(LiveRegion.showCursor + "after\n"))
        #expect(!bytes.contains("ignored"))
    }

    /// Each frame shown once the previous one is on screen: the next waits for the gap.
    @Test func framesAreDrawnAtMostTenTimesASecond() async throws {
        let pipe = try Pipe()
        let writer = TerminalWriter(fd: pipe.write)
        let started = ContinuousClock.now
        for i in 0..<5 {
            writer.show { _ in ["frame \(i)"] }
            try #require(await Poll.until(timeout: .seconds(10)) { pipe.drain().contains("frame \(i)") })
        }
        let elapsed = ContinuousClock.now - started
        writer.close()
        #expect(elapsed >= TerminalWriter.minimumGap * 4, "5 frames drawn in \(elapsed)")
    }

    /// ^Z: `suspend` returns once the display is gone and the cursor shown; lines still print;
    /// `resume` draws it again.
    @Test func suspendAndResume() async throws {
        let pipe = try Pipe()
        let writer = TerminalWriter(fd: pipe.write)
        writer.show { _ in ["live"] }
        try #require(await Poll.until(timeout: .seconds(10)) { pipe.drain().contains("live") })
        writer.suspend()
        #expect(pipe.drain().hasSuffix(LiveRegion.clearBelow + LiveRegion.showCursor))
        writer.show { _ in ["while stopped"] }
        writer.print("a line\n", to: pipe.write)
        #expect(await Poll.until(timeout: .seconds(10)) { pipe.drain().hasSuffix("a line\n") })
        #expect(Self.screen(pipe.received).transcript == ["a line"] && Self.screen(pipe.received).isCursorVisible)
        writer.resume()
        #expect(await Poll.until(timeout: .seconds(10)) { Self.screen(pipe.drain()).transcript == ["a line", "while stopped"] })
        #expect(!Self.screen(pipe.received).isCursorVisible)
        writer.close()
        writer.suspend()
        writer.resume()
        #expect(Self.screen(pipe.drain()).transcript == ["a line"] && Self.screen(pipe.received).isCursorVisible)
    }

    /// What a second signal calls before `_exit`: the display cleared, the cursor shown.
    @Test func restoringBeforeAnExit() async throws {
        let pipe = try Pipe()
        let writer = TerminalWriter(fd: pipe.write)
        writer.show { _ in ["live", "display"] }
        let drawn = await Poll.until(timeout: .seconds(10)) { pipe.drain().contains("display") }
        try #require(drawn)
        TerminalWriter.restoreBeforeExit()
        #expect(pipe.drain().hasSuffix(LiveRegion.clearBelow + LiveRegion.showCursor))
        #expect(Self.screen(pipe.received).transcript.isEmpty && Self.screen(pipe.received).isCursorVisible)
        // Nothing is drawn any more: a second call writes nothing.
        TerminalWriter.restoreBeforeExit()
        let before = pipe.drain()
        #expect(pipe.drain() == before)
        writer.close()
    }

    /// The observer draws on progress, ends the display when the run stops, and draws no more.
    @Test(arguments: [RunEvent.stopRequested(.signal(2)), .stopRequested(.deadline)])
    func theDisplayEndsAtAStop(stop: RunEvent) async throws {
        let pipe = try Pipe()
        let writer = TerminalWriter(fd: pipe.write)
        let progress = TerminalProgress(writer: writer, isColored: false) { Issue.record("warned: \($0)") }
        #expect(progress.progressInterval == TerminalWriter.minimumGap)
        var p = RunProgress()
        p.slicesToTransfer = 4
        p.bytesToTransfer = 4_000
        p.bytesSettled = 1_000
        p.slicesSettled = 1
        p.elapsed = .seconds(1)
        progress.observe(.progress(p))
        try #require(await Poll.until(timeout: .seconds(10)) { pipe.drain().contains("1 of 4 slices") })
        writer.print("! r/a: HTTP 404\n", to: pipe.write)
        progress.observe(stop)
        let ended = pipe.drain()
        #expect(ended.hasSuffix(LiveRegion.showCursor))
        p.elapsed = .seconds(2)
        progress.observe(.progress(p))
        writer.print("Apply interrupted!\n", to: pipe.write)
        #expect(pipe.drain() == ended + "Apply interrupted!\n")
        #expect(Self.screen(pipe.received).transcript == ["! r/a: HTTP 404", "Apply interrupted!"])
    }
}
