import Dispatch
import JobrunCore
import Synchronization
internal import CYAML
import JobrunSystem

/// One of libyaml's events, as much of it as ``YAMLParser`` reads; a scalar's bytes stay with
/// the ``YAMLEventSource`` (``YAMLEventSource/value(of:)``).
struct YAMLEvent {
    var type: yaml_event_type_t
    var start: yaml_mark_t
    var end: yaml_mark_t
    /// A scalar's, a mapping's or a sequence's.
    var hasAnchor = false
    var hasTag = false
    var style = YAML_ANY_SCALAR_STYLE
    /// A scalar's bytes, in the source's buffer.
    var value: Range<Int> = 0..<0

    /// What ``YAMLParser`` reads of `event`; a scalar's `value` is its bytes' place in `event`.
    init(_ event: yaml_event_t) {
        type = event.type
        start = event.start_mark
        end = event.end_mark
        switch event.type {
        case YAML_SCALAR_EVENT:
            hasAnchor = event.data.scalar.anchor != nil
            hasTag = event.data.scalar.tag != nil
            style = event.data.scalar.style
            value = 0..<event.data.scalar.length
        case YAML_MAPPING_START_EVENT:
            hasAnchor = event.data.mapping_start.anchor != nil
            hasTag = event.data.mapping_start.tag != nil
        case YAML_SEQUENCE_START_EVENT:
            hasAnchor = event.data.sequence_start.anchor != nil
            hasTag = event.data.sequence_start.tag != nil
        default:
            break
        }
    }
}

/// libyaml's events for ``YAMLParser``, one at a time. For a large input a thread of its own
/// parses a few chunks of events ahead, so that libyaml's scanning and the tree building (with
/// the decoding of slices) run on two cores; a small input is parsed as asked, on the caller's
/// thread. Either way the events come in the same order, and a failure after the same events.
/// libyaml's own events are deleted on the thread that parsed them (memory goes back where it
/// came from); what is handed over is a ``YAMLEvent`` and a copy of its scalar's bytes. A value
/// the caller owns (no lock or reference count between the caller and its events).
struct YAMLEventSource: ~Copyable {
    /// Inputs of at least this many bytes are parsed ahead on a thread (a manifest of about
    /// 10,000 slices); below it, starting one costs more than it saves.
    static let threadedSize = 1 << 20
    /// Events handed over at once, and chunks the thread may be ahead: the read-ahead's memory
    /// stays bounded (well under a MiB), whatever the input's size.
    static let chunkSize = 1024
    static let chunksAhead = 4

    /// Events, and the bytes of their scalars back to back.
    struct Chunk {
        var events: [YAMLEvent] = []
        var bytes: [UInt8] = []
        /// Nothing follows these: libyaml failed or the stream ended (or the thread was asked to
        /// stop, or stopped at a nesting the parser refuses).
        var isLast = false

        /// Takes libyaml's event `event` and deletes it.
        mutating func append(_ event: inout yaml_event_t) {
            var e = YAMLEvent(event)
            if event.type == YAML_SCALAR_EVENT {
                let from = bytes.count
                if let value = event.data.scalar.value { bytes.append(contentsOf: UnsafeBufferPointer(start: value, count: event.data.scalar.length)) }
                e.value = from..<bytes.count
            }
            events.append(e)
            yaml_event_delete(&event)
        }
    }

    private let parser: UnsafeMutablePointer<yaml_parser_t>
    private var pump: Pump?
    /// Read ahead: the chunk being handed out, and the next event's place in it.
    private var chunk = Chunk()
    private var position = 0
    /// Parsed as asked: the last event, whose scalar is read in place, deleted at the next.
    private var held = yaml_event_t()
    private var isHolding = false

    /// Reads from `parser` (set up with its input): ahead on a thread when `inputSize` is at least
    /// `threadedSize`. The caller must call ``finish()`` before it deletes the parser.
    init(parser: UnsafeMutablePointer<yaml_parser_t>, inputSize: Int, threadedSize: Int) {
        self.parser = parser
        pump = inputSize >= threadedSize ? Pump.start(parser) : nil
    }

    /// The next event; nil when libyaml failed, whose error is then in the parser.
    mutating func next() -> YAMLEvent? {
        guard let pump else { return parseHeld() }
        while position == chunk.events.count {
            if chunk.isLast { return nil }
            chunk = pump.take()
            position = 0
        }
        position += 1
        return chunk.events[position - 1]
    }

    private mutating func parseHeld() -> YAMLEvent? {
        if isHolding { yaml_event_delete(&held) }
        isHolding = yaml_parser_parse(parser, &held) != 0
        guard isHolding else { return nil }
        return YAMLEvent(held)
    }

    /// The bytes of the scalar `event` (the last one ``next()`` gave).
    func withValue<R>(of event: YAMLEvent, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        guard pump != nil else { return body(UnsafeBufferPointer(start: held.data.scalar.value, count: event.value.count)) }
        return chunk.bytes.withUnsafeBufferPointer { body(UnsafeBufferPointer(rebasing: $0[event.value])) }
    }

    /// Deletes the event held, or stops the thread once it has let go of the parser. The last
    /// use of the source (a second call does nothing).
    mutating func finish() {
        if isHolding { yaml_event_delete(&held) }
        isHolding = false
        guard let pump else { return }
        self.pump = nil
        chunk = Chunk()
        pump.stop()
        // What libyaml took on the thread stays in that thread's malloc arena, in the process's
        // resident memory for the rest of the run, unless it is handed back now.
        FreedMemory.release()
    }

    /// What the two threads share.
    private final class Pump: @unchecked Sendable {
        private struct State {
            var ready: [Chunk] = []
            var isStopping = false
        }

        private let state = Mutex(State())
        private let hasChunk = DispatchSemaphore(value: 0)
        /// Starts at 0 and is signalled `chunksAhead` times: libdispatch traps when a semaphore
        /// goes away below the value it was made with.
        private let hasRoom = DispatchSemaphore(value: 0)
        private let finished = DispatchSemaphore(value: 0)
        // The parser is the thread's from `start` until `finished`.
        private let parser: UnsafeMutablePointer<yaml_parser_t>

        private init(parser: UnsafeMutablePointer<yaml_parser_t>) {
            self.parser = parser
            for _ in 0..<YAMLEventSource.chunksAhead { hasRoom.signal() }
        }

        /// A thread parsing from `parser`, or nil when none could be started (the caller then
        /// parses as asked).
        static func start(_ parser: UnsafeMutablePointer<yaml_parser_t>) -> Pump? {
            let pump = Pump(parser: parser)
            guard DetachedThread.start(name: "jobrun-yaml", { pump.run() }) == nil else { return nil }
            return pump
        }

        private func run() {
            defer { finished.signal() }
            // The nesting the tree builder refuses: the thread stops there too, as the caller
            // will, so that a hostile input is not scanned further ahead (libyaml's scanner is
            // quadratic in flow nesting).
            var depth = 0
            while true {
                hasRoom.wait()
                if state.withLock({ $0.isStopping }) { return }
                var chunk = Chunk()
                chunk.events.reserveCapacity(YAMLEventSource.chunkSize)
                while chunk.events.count < YAMLEventSource.chunkSize {
                    var event = yaml_event_t()
                    guard yaml_parser_parse(parser, &event) != 0 else {
                        chunk.isLast = true
                        break
                    }
                    let type = event.type
                    chunk.append(&event)
                    switch type {
                    case YAML_MAPPING_START_EVENT, YAML_SEQUENCE_START_EVENT: depth += 1
                    case YAML_MAPPING_END_EVENT, YAML_SEQUENCE_END_EVENT: depth -= 1
                    default: break
                    }
                    // After the stream's end libyaml has nothing more to give.
                    if type == YAML_STREAM_END_EVENT || depth > YAMLParser.maximumDepth {
                        chunk.isLast = true
                        break
                    }
                }
                let isLast = chunk.isLast
                state.withLock { $0.ready.append(chunk) }
                hasChunk.signal()
                if isLast { return }
            }
        }

        /// The next chunk, waiting for it.
        func take() -> Chunk {
            hasChunk.wait()
            let chunk = state.withLock { $0.ready.removeFirst() }
            hasRoom.signal()
            return chunk
        }

        /// Asks the thread to stop, and returns once it has.
        func stop() {
            state.withLock { $0.isStopping = true }
            hasRoom.signal()  // the thread may be waiting for room
            finished.wait()
        }
    }
}
