public import JobrunOutcome
import JobrunCore

/// `--progress plain`: one timestamped line per interval for logs that are read later (cron, CI):
/// `2026-11-25T08:40:00.123Z jobrun 01JD…: 42% 12.3 MiB of 29.0 MiB, 1.2 MiB/s, ETA 14 s; 120 of
/// 400 slices, 8 running, 3 retrying, 0 failed` (`, offline 42 s` while the run waits for the
/// network), between a line when the run starts (`apply started: 3 resources, 400 slices`) and
/// one when it ends (`apply ended: exit 0, 12.3 s`), so that even a run shorter than the interval
/// is in the log with its time and id.
public final class PlainProgress: RunObserver {
    public let progressInterval: Duration?
    let runID: String
    let write: (String) -> Void
    let wallClock: () -> Int64
    /// The previous line's time and bytes arrived: the rate is measured since then.
    private var previous: (elapsed: Duration, bytes: Int64)?
    /// The command named by `run_start`, for the end line.
    private var command = "run"

    /// - Parameter wallClock: milliseconds since the epoch.
    public init(runID: String, interval: Duration, wallClock: @escaping () -> Int64 = RunID.milliseconds, write: @escaping (String) -> Void) {
        self.runID = runID
        progressInterval = interval
        self.wallClock = wallClock
        self.write = write
    }

    public func observe(_ event: RunEvent) {
        switch event {
        case .runStarted(let start):
            command = start.command
            stamp(Self.startLine(start))
        case .progress(let p):
            // Another observer may want progress more often: a line only once per interval.
            guard let interval = progressInterval, p.elapsed - (previous?.elapsed ?? .zero) >= interval else { return }
            stamp(line(p))
        case .runEnded(let end):
            stamp("\(command) ended: exit \(end.exitStatus), \(Self.elapsed(end.elapsed))")
        default:
            break
        }
    }

    /// Writes `text` as a line tagged with the time and the run id.
    private func stamp(_ text: String) {
        write(RFC3339.utc(milliseconds: wallClock()) + " jobrun " + runID + ": " + text + "\n")
    }

    /// `apply started: 3 resources, 400 slices` (only `apply started` when the manifests were not read).
    static func startLine(_ start: RunStart) -> String {
        var text = "\(start.command) started"
        if let resources = start.resources, let slices = start.slices {
            text += ": \(resources) resource\(resources == 1 ? "" : "s"), \(slices) slice\(slices == 1 ? "" : "s")"
        }
        return text
    }

    /// `0.4 s`, `12.3 s`, then as ``duration(seconds:)``: a short run is told to the tenth.
    static func elapsed(_ duration: Duration) -> String {
        let ms = duration.wholeMilliseconds
        guard ms < 60_000 else { return Self.duration(seconds: ms / 1_000) }
        return "\(ms / 1_000).\(ms % 1_000 / 100) s"
    }

    func line(_ p: RunProgress) -> String {
        let since = previous ?? (.zero, 0)
        previous = (p.elapsed, p.bytesArrived)
        let seconds = Double((p.elapsed - since.elapsed).wholeMilliseconds) / 1000
        let rate = seconds > 0 ? Double(p.bytesArrived - since.bytes) / seconds : 0
        var text = "\(Int(p.fraction * 100))% "
        if let remaining = p.bytesRemaining {
            text += "\(ByteCount(p.bytesToTransfer - remaining)) of \(ByteCount(p.bytesToTransfer))"
        } else {
            text += "\(ByteCount(p.bytesArrived)) received"
        }
        text += ", \(ByteCount(Int64(rate)))/s"
        if let eta = Self.eta(p, rate: rate) { text += ", ETA \(eta)" }
        text += "; \(p.slicesSettled) of \(p.slicesToTransfer) slices, \(p.running) running, \(p.retrying) retrying, \(p.counts.failed) failed"
        if let offline = p.offlineFor { text += ", offline \(Self.duration(seconds: offline.components.seconds))" }
        return text
    }

    /// `14 s`, `3 min 20 s`, `2 h 5 min`: the time left at `rate`, when every size is known and
    /// the run is not waiting for the network (the rate says nothing of when it comes back).
    static func eta(_ p: RunProgress, rate: Double) -> String? {
        guard let remaining = p.bytesRemaining, rate > 0, p.offlineFor == nil else { return nil }
        return Self.duration(seconds: Int64((Double(remaining) / rate).rounded(.up)))
    }

    public static func duration(seconds s: Int64) -> String {
        if s < 60 { return "\(s) s" }
        if s < 3_600 { return "\(s / 60) min \(s % 60) s" }
        return "\(s / 3_600) h \(s % 3_600 / 60) min"
    }
}
