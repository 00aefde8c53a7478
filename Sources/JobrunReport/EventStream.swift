public import JobrunOutcome
import JobrunCore
import Synchronization
import JobrunJSON

/// `--events FILE|-`: every event of a run as one line of JSON (NDJSON) in a frozen envelope,
///
///     {"v":2,"seq":1,"ts":"2026-11-25T08:40:00.123Z","run":"01JD…","type":"run_start","data":{…}}
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
///
/// Sendable because a signal that ends the process at once sends its `run_end` from the signal
/// handler's thread: the sequence and the output are used only under ``state``'s lock.
public final class EventStream: RunObserver, @unchecked Sendable {
    /// The envelope's `v`.
    public static let version: Int64 = 2

    public let progressInterval: Duration?
    let runID: String
    let output: any EventOutput
    let wallClock: () -> Int64

    private struct State {
        /// The last event's `seq`.
        var sequence: Int64 = 0
        /// The run's elapsed time at the last `progress` event written.
        var lastProgress: Duration?
        var hasEnded = false
    }

    private let state = Mutex(State())

    /// The last event's `seq`.
    public var sequence: Int64 { state.withLock { $0.sequence } }

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

    /// Writes `event`, from any thread: the first `run_end` is the last event, and finishes the
    /// output (everything written when this returns).
    public func observe(_ event: RunEvent) {
        if case .synced = event { return }  // internal: not part of the stream
        let isEnd = if case .runEnded = event { true } else { false }
        let wasWritten = state.withLock { state in
            guard !state.hasEnded else { return false }
            if case .progress(let p) = event, !isDue(p, &state) { return false }
            state.sequence += 1
            // Under the lock, so that lines reach the output in `seq` order.
            output.write(line(for: event, sequence: state.sequence))
            if isEnd { state.hasEnded = true }
            return true
        }
        if wasWritten && isEnd { output.finish() }
    }

    /// Another observer may want progress more often than this stream: it keeps to its own
    /// interval, less a tenth of slack for the moment the run measured it at.
    private func isDue(_ p: RunProgress, _ state: inout State) -> Bool {
        guard let interval = progressInterval else { return false }
        if let last = state.lastProgress, p.elapsed - last < interval * 9 / 10 { return false }
        state.lastProgress = p.elapsed
        return true
    }

    /// The envelope around `event`'s data, and a newline.
    func line(for event: RunEvent, sequence: Int64) -> [UInt8] {
        var w = JSONWriter(pretty: false, reservingCapacity: 512)
        w.beginObject()
        w.key("v"); w.int(Self.version)
        w.key("seq"); w.int(sequence)
        w.key("ts"); w.string(RFC3339.utc(milliseconds: wallClock()))
        w.key("run"); w.string(runID)
        w.key("type"); w.string(Self.type(of: event))
        w.key("data"); Self.writeData(of: event, into: &w)
        w.endObject()
        var bytes = w.finish()
        bytes.append(UInt8(ascii: "\n"))
        return bytes
    }
}
