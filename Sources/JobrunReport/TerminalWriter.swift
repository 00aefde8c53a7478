import Dispatch
import Synchronization
import JobrunCore
import JobrunSystem

/// Owns a terminal while a live display is on it: the display's frames and the lines a run
/// prints (to the same terminal) go through it, so that each line lands above the display and no
/// fragment of the display is left between lines (``LiveRegion``).
///
/// Before the first frame and after ``close()``, a line is written at once, on the caller's
/// thread. While the display is live, lines and frames go to a thread of its own that writes
/// them, so the run's thread never waits for a terminal that stalls (^S, a slow remote link).
/// That thread redraws at most once per ``minimumGap`` (lines that come in the meantime are
/// written together, with one redraw), and asks the terminal's size before every draw, so a
/// resize is followed at the next redraw. `print`, `show` and `close` come from one thread
/// (the run's); `suspend` and `resume` from any.
public final class TerminalWriter: Sendable {
    /// The display's lines for a terminal of a given size, rendered when they are drawn.
    public typealias Frame = @Sendable (TerminalSize) -> [String]

    /// At most ten redraws a second: enough to look live, little for a slow terminal.
    public static let minimumGap: Duration = .milliseconds(100)

    /// Transitions: `direct` → `live` (first frame); `live` ⇄ `suspended`; `live` or
    /// `suspended` → `closing` → `closed`; `direct` → `closed`.
    private enum Phase {
        /// No display yet: lines are written at once.
        case direct
        /// The display's thread writes lines and draws frames.
        case live
        /// The display's thread has removed the display (the process is being stopped) and
        /// writes lines only.
        case suspended
        /// The display's thread writes what is left, removes the display and ends.
        case closing
        /// The display is gone for good: lines are written at once, frames ignored.
        case closed
    }

    private struct State {
        var phase = Phase.direct
        var lines: [LiveRegion.Output] = []
        var frame: Frame?
        var hasNewFrame = false
        /// ``suspend()`` calls, and the last of them the display's thread has carried out.
        var suspensions = 0
        var suspensionsDone = 0
    }

    private final class Shared: Sendable {
        let state = Mutex(State())
        let wake = DispatchSemaphore(value: 0)
        let suspended = DispatchSemaphore(value: 0)
        let finished = DispatchSemaphore(value: 0)
    }

    /// The descriptor a display is drawn on, -1 when none: what ``restoreBeforeExit()`` cleans.
    private static let drawnOn = Atomic<Int32>(-1)

    /// The terminal the display is drawn on.
    public let fd: Int32
    private let shared = Shared()

    public init(fd: Int32) {
        self.fd = fd
    }

    deinit {
        close()
    }

    /// Prints `text` (whole lines, each ending with a newline) to `fd`: above the display while
    /// there is one.
    public func print(_ text: String, to fd: Int32) {
        let isQueued = shared.state.withLock { s in
            switch s.phase {
            case .direct, .closed:
                return false
            case .live, .suspended, .closing:
                s.lines.append(LiveRegion.Output(fd: fd, text))
                return true
            }
        }
        if isQueued {
            shared.wake.signal()
        } else {
            Self.write([LiveRegion.Output(fd: fd, text)])
        }
    }

    /// Shows `frame` as the display, in place of the previous one; the first frame starts the
    /// display's thread. Ignored after ``close()``.
    /// - Returns: `nil`, or the error of `pthread_create` when the thread cannot start (then no
    ///   display is shown, ever, and lines are written at once).
    @discardableResult
    public func show(_ frame: @escaping Frame) -> Int32? {
        let mustStart = shared.state.withLock { s in
            switch s.phase {
            case .closing, .closed:
                return false
            case .direct, .live, .suspended:
                let isFirst = s.phase == .direct
                if isFirst { s.phase = .live }
                s.frame = frame
                s.hasNewFrame = true
                return isFirst
            }
        }
        if mustStart {
            let shared = self.shared
            let fd = self.fd
            if let error = DetachedThread.start(name: "jobrun-display", { Self.drawLoop(shared, fd: fd) }) {
                shared.state.withLock { $0.phase = .closed }
                return error
            }
        }
        shared.wake.signal()
        return nil
    }

    /// Removes the display and shows the cursor, for a process about to be stopped (^Z): the
    /// shell gets its terminal back as it was. Returns once done, or after a second when the
    /// terminal does not take the bytes. Lines are still printed; frames wait for ``resume()``.
    public func suspend() {
        let number: Int? = shared.state.withLock { s in
            guard s.phase == .live else { return nil }
            s.phase = .suspended
            s.suspensions += 1
            return s.suspensions
        }
        guard let number else { return }
        shared.wake.signal()
        let deadline = DispatchTime.now() + .seconds(1)
        while shared.state.withLock({ $0.suspensionsDone < number }) {
            guard shared.suspended.wait(timeout: deadline) == .success else { return }
        }
    }

    /// Draws the display again after ``suspend()`` (the process was continued).
    public func resume() {
        let isResumed = shared.state.withLock { s in
            guard s.phase == .suspended else { return false }
            s.phase = .live
            s.hasNewFrame = true
            return true
        }
        if isResumed { shared.wake.signal() }
    }

    /// Writes every line handed over, removes the display and shows the cursor again; returns
    /// when that is done. Later lines are written at once.
    public func close() {
        let hasThread = shared.state.withLock { s in
            switch s.phase {
            case .direct, .closed:
                s.phase = .closed
                return false
            case .live, .suspended, .closing:
                s.phase = .closing
                return true
            }
        }
        guard hasThread else { return }
        shared.wake.signal()
        shared.finished.wait()
        shared.state.withLock { $0.phase = .closed }
    }

    /// Clears a display that may be on screen and shows the cursor, for a process about to exit
    /// without unwinding (a second signal). Takes no lock: the display's thread may be stuck in
    /// a write.
    public static func restoreBeforeExit() {
        let fd = drawnOn.exchange(-1, ordering: .relaxed)
        guard fd >= 0 else { return }
        write([LiveRegion.Output(fd: fd, LiveRegion.clearBelow + LiveRegion.showCursor)])
    }

    /// The display's thread: waits for lines, a frame or a change of phase, lets at least
    /// ``minimumGap`` pass since the previous draw (unless the display is to go), then writes
    /// what came and the display, rendered for the terminal's size now.
    private static func drawLoop(_ shared: Shared, fd: Int32) {
        var region = LiveRegion(fd: fd)
        var lastDraw: ContinuousClock.Instant?
        while true {
            shared.wake.wait()
            while let last = lastDraw, shared.state.withLock({ $0.phase == .live }) {
                let wait = last + minimumGap - .now
                guard wait > .zero else { break }
                // Woken early by more lines, or a change of phase: they wait for the same redraw.
                _ = shared.wake.wait(timeout: .now() + .nanoseconds(Int(wait.wholeMilliseconds + 1) * 1_000_000))
            }
            let (lines, frame, hasNewFrame, phase, suspensions) = shared.state.withLock { s in
                defer {
                    s.lines = []
                    s.hasNewFrame = false
                }
                return (s.lines, s.frame, s.hasNewFrame, s.phase, s.suspensions)
            }
            // While suspended or closing, every turn removes the display (once) and says so.
            if phase == .live && lines.isEmpty && !hasNewFrame { continue }
            let size = TerminalSize.of(fd) ?? .fallback
            // The cursor returns to the display's first line: all of it must be on screen.
            let display = phase == .live ? Array((frame?(size) ?? []).prefix(max(1, size.rows - 1))) : []
            let output = region.update(printing: lines, display: display)
            drawnOn.store(region.state == .drawn ? fd : -1, ordering: .relaxed)
            write(output)
            lastDraw = .now
            switch phase {
            case .suspended:
                shared.state.withLock { $0.suspensionsDone = suspensions }
                shared.suspended.signal()
            case .closing:
                shared.finished.signal()
                return
            case .direct, .live, .closed:
                break
            }
        }
    }

    /// Writes each piece in full; a terminal that is gone drops the rest (nowhere to say so).
    private static func write(_ output: [LiveRegion.Output]) {
        for piece in output {
            let bytes = Array(piece.text.utf8)
            _ = bytes.withUnsafeBytes { DescriptorIO.writeAll(piece.fd, $0) }
        }
    }
}
