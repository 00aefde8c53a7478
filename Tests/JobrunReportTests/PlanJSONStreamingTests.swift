import Foundation
import JobrunManifest
import JobrunPlan
import JobrunReport
import JobrunTestSupport
import Testing

/// A plan's document written a part at a time (`plan --json`, `plan --out`): the parts make the
/// same document, and none is much larger than asked for.
@Suite struct PlanJSONStreamingTests {
    static func plan(in dir: TemporaryDirectory) throws -> Plan {
        let slices = (0..<40).map { "      - {path: s\($0).bin, size: \($0 + 1)}" }.joined(separator: "\n")
        try dir.write(
            file: "m.yaml",
            contents: """
                version: 1
                resources:
                  - id: a
                    base_url: https://h/a/
                    slices:
                \(slices)
                  - id: b
                    base_url: https://h/b/
                    depends_on: [a]
                    slices: [{path: x.bin}]

                """)
        var options = ManifestLoader.Options()
        options.outputOverride = dir.path("mirror")
        let manifest = try #require(ManifestLoader.load(paths: [dir.path("m.yaml")], options: options).manifest)
        return Planner.plan(for: manifest, parallelism: 1)
    }

    /// Where each slice's object ends in a pretty document: after its closing brace (indented by
    /// eight spaces), which the next slice's object or the end of the list follows, of an object
    /// whose first key is `path` (a resource's `origins` are objects at the same depth).
    static func sliceEnds(_ document: [UInt8]) -> Set<Int> {
        let closing = Array("\n        }".utf8)
        let opening = Array("\n        {\n          \"path\"".utf8)
        let followers = [Array(",\n        {".utf8), Array("\n      ]".utf8)]
        var ends = Set<Int>()
        var objectStart = -1
        for i in 0..<max(0, document.count - closing.count) {
            if document[i...].starts(with: opening) { objectStart = i }
            guard document[i..<(i + closing.count)].elementsEqual(closing) else { continue }
            let end = i + closing.count
            if followers.contains(where: { document[end...].starts(with: $0) }), objectStart >= 0 {
                ends.insert(end)
                objectStart = -1
            }
        }
        return ends
    }

    @Test func partsMakeTheWholeDocument() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let plan = try Self.plan(in: dir)
        let whole = PlanJSON.render(plan, pretty: true, runID: "r1")
        var parts: [[UInt8]] = []
        PlanJSON.write(plan, pretty: true, runID: "r1", chunkSize: 512) { parts.append($0) }
        // The same bytes however they are cut (the document's own bytes are the golden files').
        #expect(Array(parts.joined()) == whole)
        #expect(try JSONSerialization.jsonObject(with: Data(whole)) is [String: Any])
        #expect(parts.count > 4, "\(parts.count) parts of a \(whole.count)-byte document")
        // Each part but the last ends after the first slice that brings it to 512 bytes.
        let ends = Self.sliceEnds(whole)
        #expect(ends.count == 41)
        var start = 0
        for part in parts.dropLast() {
            let end = start + part.count
            #expect(ends.contains(end) && part.count >= 512, "a part of \(part.count) bytes ends at \(end)")
            let previous = ends.filter { $0 > start && $0 < end }.max() ?? start
            #expect(previous - start < 512, "a part went on past the slice that filled it")
            start = end
        }
    }

    struct Full: Error {}

    /// A sink that fails ends the writing with its error.
    @Test func aFailingSinkEndsTheWriting() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let plan = try Self.plan(in: dir)
        var calls = 0
        #expect(throws: Full.self) {
            try PlanJSON.write(plan, pretty: true, chunkSize: 256) { (_: [UInt8]) throws(Full) in
                calls += 1
                if calls == 2 { throw Full() }
            }
        }
        #expect(calls == 2)
    }
}
