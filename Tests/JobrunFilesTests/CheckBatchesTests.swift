import JobrunManifest
import JobrunFiles
import Testing

/// How a plan, a verification and a status split the slices into batches: in the order given,
/// every slice once, every batch but the last exactly full.
@Suite struct CheckBatchesTests {
    static func manifest(sliceCounts: [Int]) throws -> Manifest {
        let resources = sliceCounts.enumerated().map { r, count in
            "  - id: r\(r)\n    base_url: https://h/\(r)/\n    slices: [" + (0..<max(count, 1)).map { "{path: s\($0).bin}" }.joined(separator: ", ") + "]"
        }
        let loaded = try withTemporaryDirectory { root in
            try writeFile(root, "m.yaml", Array(("version: 1\nresources:\n" + resources.joined(separator: "\n") + "\n").utf8))
            return ManifestLoader.load(paths: [root + "/m.yaml"])
        }
        var manifest = try #require(loaded.manifest, "\(loaded.diagnostics)")
        // A manifest names no resource without slices, but a selection of a list can leave one.
        for (r, count) in sliceCounts.enumerated() where count == 0 { manifest.resources[r].slices = [] }
        return manifest
    }

    static func batches(_ manifest: Manifest, order: [Int], size: Int) -> [[String]] {
        var batches: [[String]] = []
        manifest.forEachCheckBatch(in: order, size: size) { segments in
            batches.append(segments.map { "\($0.resource):\($0.slices.lowerBound)..<\($0.slices.upperBound)" })
        }
        return batches
    }

    @Test func batchesAreFullAndInOrder() throws {
        let manifest = try Self.manifest(sliceCounts: [1, 0, 5, 2])
        #expect(Self.batches(manifest, order: [0, 1, 2, 3], size: 3) == [["0:0..<1", "1:0..<0", "2:0..<2"], ["2:2..<5"], ["3:0..<2"]])
        #expect(Self.batches(manifest, order: [3, 2, 1, 0], size: 4) == [["3:0..<2", "2:0..<2"], ["2:2..<5", "1:0..<0", "0:0..<1"]])
        #expect(Self.batches(manifest, order: [0, 1, 2, 3], size: 100) == [["0:0..<1", "1:0..<0", "2:0..<5", "3:0..<2"]])
        #expect(Self.batches(manifest, order: [2], size: 1) == [["2:0..<1"], ["2:1..<2"], ["2:2..<3"], ["2:3..<4"], ["2:4..<5"]])
        // A size below 1 is taken as 1.
        #expect(Self.batches(manifest, order: [3], size: 0) == [["3:0..<1"], ["3:1..<2"]])
    }
}
