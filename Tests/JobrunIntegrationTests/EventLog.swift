import Foundation
import JobrunTestSupport
import Testing

/// An event stream as jobrun wrote it (`--events`), and the rules every stream keeps
/// (``expectWellFormed(runID:sourceLocation:)``).
struct EventLog {
    struct Event {
        var seq: Int
        var ts: String
        var run: String
        var type: String
        var data: [String: Any]
        var line: String

        subscript(_ key: String) -> Any? { data[key] }
        func int(_ key: String) -> Int? { data[key] as? Int }
        func string(_ key: String) -> String? { data[key] as? String }
        func isNull(_ key: String) -> Bool { data[key] is NSNull }
        /// `data.counts.<name>`.
        func count(_ name: String) -> Int? { (data["counts"] as? [String: Any])?[name] as? Int }
    }

    let text: String
    var events: [Event] = []
    /// Lines that are not an event in the envelope, in its key order.
    var malformed: [String] = []

    init(_ text: String) {
        self.text = text
        // The envelope, keys in this order; `data` is the rest of the line.
        let envelope = #/^\{"v":2,"seq":([0-9]+),"ts":"([^"]*)","run":"([^"]*)","type":"([a-z_]+)","data":(\{.*\})\}$/#
        for line in text.split(separator: "\n", omittingEmptySubsequences: false).dropLast() {
            guard let match = line.wholeMatch(of: envelope), let seq = Int(match.1),
                let data = try? JSONSerialization.jsonObject(with: Data(match.5.utf8)) as? [String: Any]
            else {
                malformed.append(String(line))
                continue
            }
            events.append(Event(seq: seq, ts: String(match.2), run: String(match.3), type: String(match.4), data: data, line: String(line)))
        }
    }

    /// The stream in `relativePath` below `directory`.
    static func read(_ relativePath: String, in directory: TemporaryDirectory, sourceLocation: SourceLocation = #_sourceLocation) throws -> EventLog {
        EventLog(try #require(directory.contents(of: relativePath), "no events file \(relativePath)", sourceLocation: sourceLocation))
    }

    var types: [String] { events.map(\.type) }

    func all(_ type: String) -> [Event] { events.filter { $0.type == type } }

    func first(_ type: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> Event {
        try #require(events.first { $0.type == type }, "no \(type) event in:\n\(text)", sourceLocation: sourceLocation)
    }

    var end: Event? { events.last.flatMap { $0.type == "run_end" ? $0 : nil } }

    /// Every line an event in the envelope ending in a newline; `seq` 1, 2, 3… without gaps;
    /// one run id (`runID` when given); `ts` in RFC 3339 with milliseconds, never going back;
    /// `run_start` first, `run_end` last and once; and every event valid against the schema.
    func expectWellFormed(runID: String? = nil, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(text.hasSuffix("\n"), "the stream does not end with a newline:\n\(text)", sourceLocation: sourceLocation)
        #expect(malformed.isEmpty, "lines outside the envelope:\n\(malformed.joined(separator: "\n"))", sourceLocation: sourceLocation)
        #expect(events.map(\.seq) == Array(1...max(1, events.count)), "seq has gaps:\n\(text)", sourceLocation: sourceLocation)
        #expect(types.first == "run_start", "the first event is not run_start:\n\(text)", sourceLocation: sourceLocation)
        #expect(
            types.last == "run_end" && types.filter { $0 == "run_end" }.count == 1, "run_end is not last and once:\n\(text)", sourceLocation: sourceLocation)
        #expect(Set(events.map(\.run)).count == 1, "several run ids:\n\(text)", sourceLocation: sourceLocation)
        if let runID { #expect(events.allSatisfy { $0.run == runID }, "the run id is not \(runID):\n\(text)", sourceLocation: sourceLocation) }
        let stamp = #/^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}Z$/#
        #expect(events.allSatisfy { $0.ts.wholeMatch(of: stamp) != nil }, "a ts is not RFC 3339 with milliseconds:\n\(text)", sourceLocation: sourceLocation)
        #expect(events.map(\.ts) == events.map(\.ts).sorted(), "time goes back:\n\(text)", sourceLocation: sourceLocation)
        expectValidAgainstTheSchema(sourceLocation: sourceLocation)
    }

    func expectValidAgainstTheSchema(sourceLocation: SourceLocation = #_sourceLocation) {
        do {
            let directory = try TemporaryDirectory(prefix: "jobrun-events")
            defer { directory.remove() }
            let file = try directory.write(file: "events.ndjson", contents: text)
            let validation = EventSchemaCheck.validate([file])
            #expect(validation.ok, "not valid against docs/events.schema.json:\n\(validation.output)\n\(text)", sourceLocation: sourceLocation)
        } catch {
            Issue.record(error, sourceLocation: sourceLocation)
        }
    }
}
