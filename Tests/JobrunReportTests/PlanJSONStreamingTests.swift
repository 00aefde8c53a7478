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
        try dir.write(file: "m.yaml", contents: """
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

    @Test func partsMakeTheWholeDocument() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let plan = try Self.plan(in: dir)
        let whole = PlanJSON.render(plan, pretty: true, runID: "r1")
        var parts: [[UInt8]] = []
        PlanJSON.write(plan, pretty: true, runID: "r1", chunkSize: 512) { parts.append($0) }
        #expect(Array(parts.joined()) == whole)
        #expect(parts.count > 4, "\(parts.count) parts of a \(whole.count)-byte document")
        // Each part but the last ends after the slice that took it past the size asked for: it
        // is larger by at most that slice, or a resource's fields before its first slice.
        #expect(parts.dropLast().allSatisfy { $0.count >= 512 } && parts.allSatisfy { $0.count < 512 + 2_048 }, "\(parts.map(\.count))")
        #expect(parts.filter { $0.count < 512 + 100 }.count > 10, "\(parts.map(\.count))")
        #expect(try JSONSerialization.jsonObject(with: Data(whole)) is [String: Any])
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
