public import JobrunOutcome
import JobrunCore
import JobrunSystem

/// `--progress tty`: a live display at the bottom of the terminal, redrawn in place while
/// transfers run (``TerminalWriter``): the overall bar, the bytes (those in flight included),
/// a smoothed rate, the ETA when every size is known, the slices done, retrying and failed, and
/// the resources under way. It goes when the run stops or ends (``end()``), before the summary.
public final class TerminalProgress: RunObserver {
    /// What the display shows at one moment.
    public struct Frame: Sendable, Hashable {
        public var progress: RunProgress
        /// Bytes per second, smoothed (``RateMeter``).
        public var rate: Double

        public init(progress: RunProgress, rate: Double) {
            self.progress = progress
            self.rate = rate
        }
    }

    public var progressInterval: Duration? { TerminalWriter.minimumGap }
    let writer: TerminalWriter
    let isColored: Bool
    let warn: (String) -> Void
    private var meter = RateMeter()
    private var hasEnded = false

    /// - Parameters:
    ///   - isColored: `false` when `NO_COLOR` is set (``isColorWanted(environment:)``).
    ///   - warn: told once if the display cannot start.
    public init(writer: TerminalWriter, isColored: Bool, warn: @escaping (String) -> Void) {
        self.writer = writer
        self.isColored = isColored
        self.warn = warn
    }

    /// Colors unless `NO_COLOR` is set to anything but the empty string (no-color.org).
    public static func isColorWanted(environment: [String: String]) -> Bool {
        (environment["NO_COLOR"] ?? "").isEmpty
    }

    public func observe(_ event: RunEvent) {
        switch event {
        case .progress(let p):
            guard !hasEnded else { return }
            let frame = Frame(progress: p, rate: meter.add(bytes: p.bytesArrived, at: p.elapsed))
            let isColored = self.isColored
            if let error = writer.show({ size in Self.lines(frame, columns: size.columns, color: isColored) }) {
                hasEnded = true
                warn("jobrun: warning: no live progress display: cannot start its thread: \(systemErrorText(error))\n")
            }
        case .stopRequested, .runEnded:
            // What follows a stop (cancelled transfers, reports) is told in lines, not a bar.
            end()
        default:
            break
        }
    }

    /// Removes the display for good and shows the cursor again; at once when nothing is drawn.
    public func end() {
        hasEnded = true
        writer.close()
    }
}
