public import JobrunOutcome
import JobrunCore

/// `--events FILE|-`: every event of a run as one line of JSON (NDJSON) in a frozen envelope,
///
///     {"v":1,"seq":1,"ts":"2026-11-25T08:40:00.123Z","run":"01JD…","type":"run_start","data":{…}}
///
/// keys in that order. `seq` counts from 1 without gaps; `ts` is the wall clock (RFC 3339, UTC,
/// milliseconds) when the event happened; `type` names what `data` holds
/// (``type(of:)``; docs/events.md describes every type and field, docs/events.schema.json is their
/// JSON Schema). Changes are additive only: a new type or a new field keeps `v` at 1; anything
/// else bumps it.
///
/// On the run's thread like every observer, it only encodes: the bytes go to an ``EventOutput``
/// (a ``BackgroundWriter``), which `run_end` finishes, so the stream is complete when the
/// command exits. Progress comes at most every `progressInterval`, whatever other observers ask.
public final class EventStream: RunObserver {
    /// The envelope's `v`.
    public static let version: Int64 = 1

    public let progressInterval: Duration?
    let runID: String
    let output: any EventOutput
    let wallClock: () -> Int64
    /// The last event's `seq`.
    public private(set) var sequence: Int64 = 0
    /// The run's elapsed time at the last `progress` event written.
    private var lastProgress: Duration?
    private var hasEnded = false

    /// - Parameters:
    ///   - progressInterval: how often a `progress` event is written while transfers run (`nil`:
    ///     never).
    ///   - wallClock: milliseconds since the epoch, for `ts`.
    public init(runID: String, progressInterval: Duration?, wallClock: @escaping () -> Int64 = RunID.milliseconds, output: any EventOutput) {
        self.runID = runID
        self.progressInterval = progressInterval
        self.wallClock = wallClock
        self.output = output
    }

    public func observe(_ event: RunEvent) {
        guard !hasEnded else { return }
        if case .progress(let p) = event, !isDue(p) { return }
        output.write(line(for: event))
        if case .runEnded = event {
            hasEnded = true
            output.finish()
        }
    }

    /// Another observer may want progress more often than this stream: it keeps to its own
    /// interval, less a tenth of slack for the moment the run measured it at.
    private func isDue(_ p: RunProgress) -> Bool {
        guard let interval = progressInterval else { return false }
        if let last = lastProgress, p.elapsed - last < interval * 9 / 10 { return false }
        lastProgress = p.elapsed
        return true
    }

    /// The envelope around `event`'s data, and a newline.
    func line(for event: RunEvent) -> [UInt8] {
        sequence += 1
        var w = JSONWriter(pretty: false, reservingCapacity: 512)
        w.beginObject()
        w.key("v"); w.int(Self.version)
        w.key("seq"); w.int(sequence)
        w.key("ts"); w.string(WallTime.rfc3339(milliseconds: wallClock()))
        w.key("run"); w.string(runID)
        w.key("type"); w.string(Self.type(of: event))
        w.key("data"); Self.writeData(of: event, into: &w)
        w.endObject()
        var bytes = w.finish()
        bytes.append(UInt8(ascii: "\n"))
        return bytes
    }
}
