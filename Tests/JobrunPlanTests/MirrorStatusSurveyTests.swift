import JobrunCore
import JobrunManifest
import JobrunState
import JobrunTestSupport
import JobrunVerify
import Testing
@testable import JobrunPlan

/// `jobrun status`'s survey stats the slices a batch at a time: the status is the same whatever
/// the batch's size, partial downloads found in any batch included.
@Suite struct MirrorStatusSurveyTests {
    @Test func batchesOfAnySizeGiveTheSameStatus() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let abc = PlannerTests.sha256Hex("abc")
        _ = try dir.write(file: "m.yaml", contents: """
            version: 1
            resources:
              - id: one
                base_url: https://h/1/
                slices: [{path: a.bin, size: 3, sha256: \(abc)}, {path: b/partial.bin, size: 2MiB}]
              - id: five
                base_url: https://h/5/
                slices:
                  - {path: ok.bin, size: 3, sha256: \(abc)}
                  - {path: short.bin, size: 4}
                  - {path: missing.bin, size: 2MiB}
                  - {path: partial.bin, size: 2MiB}
                  - {path: bare.bin}
              - id: two
                base_url: https://h/2/
                slices: [{path: x.bin}, {path: y.bin, size: 3}]
            """)
        for file in ["mirror/one/a.bin", "mirror/five/ok.bin", "mirror/five/short.bin", "mirror/five/bare.bin", "mirror/two/y.bin"] {
            _ = try dir.write(file: file, contents: "abc")
        }
        for (folder, resource) in [("mirror/five", "5"), ("mirror/one/b", "1/b")] {
            _ = try dir.write(file: folder + "/.partial.bin.jobrun-part", bytes: Array(repeating: 1, count: 1000))
            let meta = PartialDownload.Metadata(identity: "https://h/\(resource)/partial.bin", validator: "\"v\"", validatorKind: .etag, totalSize: 2 << 20)
            _ = try dir.write(file: folder + "/.partial.bin.jobrun-meta", bytes: meta.encoded())
        }
        let manifest = try PlannerTests.manifestWithMirror(in: dir)
        let states = MirrorStates(roots: manifest.resources.map(\.outputRoot), access: .existing) { Issue.record("\($0)") }
        func summary(batchSize: Int) -> String {
            let status = MirrorStatus.survey(manifest, states: states, runLimit: 5, maxAgeMilliseconds: nil, clock: { 1_000 }, batchSize: batchSize)
            return status.entries.map { "\($0.resource.id): \($0.statuses) \($0.counts)" }.joined(separator: "\n") + "\n\(status.counts)"
        }
        let whole = MirrorStatus.survey(manifest, states: states, runLimit: 5, maxAgeMilliseconds: nil, clock: { 1_000 })
        let byID = Dictionary(uniqueKeysWithValues: whole.entries.map { ($0.resource.id, $0) })
        #expect(byID.mapValues(\.counts.resumable) == ["one": 1, "five": 1, "two": 0])
        #expect(byID["five"]?.statuses == [.unproven, .changed, .missing, .missing, .unproven])
        for size in [1, 2, 3, 5] {
            #expect(summary(batchSize: size) == summary(batchSize: Manifest.checkBatchSize), "batches of \(size)")
        }
    }
}
