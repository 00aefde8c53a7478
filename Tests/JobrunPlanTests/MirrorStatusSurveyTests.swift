import JobrunCore
import JobrunManifest
import JobrunState
import JobrunTestSupport
import JobrunFiles
import Testing
@testable import JobrunPlan
import JobrunSystem

/// `jobrun status`'s survey stats the slices a batch at a time: the status is the same whatever
/// the batch's size, partial downloads found in any batch included.
@Suite struct MirrorStatusSurveyTests {
    @Test func batchesOfAnySizeGiveTheSameStatus() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let abc = PlannerTests.sha256Hex("abc")
        _ = try dir.write(
            file: "m.yaml",
            contents: """
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
            let meta = PartialDownload.Metadata(
                identity: "https://h/\(resource)/partial.bin", validator: .init(value: "\"v\"", kind: .etag), totalSize: 2 << 20)
            _ = try dir.write(file: folder + "/.partial.bin.jobrun-meta", bytes: meta.encoded())
        }
        let manifest = try PlannerTests.manifestWithMirror(in: dir)
        let root = dir.path("mirror")
        // Records: two files as they are, one as it was before it changed.
        let writer = MirrorStates(roots: [root], access: .create) { Issue.record("\($0)") }
        let sha = try Digest.compute(.sha256, of: Array("abc".utf8))
        var records: [ProvenSlice] = []
        for (path, resource) in [("one/a.bin", "one"), ("five/ok.bin", "five"), ("five/bare.bin", "five")] {
            var file = try FileIdentity.ofFile(atPath: root + "/" + path)
            if path == "five/bare.bin" { file.ctimeNanoseconds -= 1 }
            records.append(
                ProvenSlice(
                    path: path, resource: resource, digests: [sha], file: file, seenAtNanoseconds: file.settlesAt, provenAtMilliseconds: 500,
                    fetchedAtMilliseconds: nil))
        }
        writer.record(records, root: root)
        let states = MirrorStates(roots: [root], access: .existing) { Issue.record("\($0)") }
        func summary(batchSize: Int) -> String {
            let status = MirrorStatus.survey(manifest, states: states, runLimit: 5, maxAgeMilliseconds: nil, clock: { 1_000 }, batchSize: batchSize)
            return status.entries.map { "\($0.resource.id): \($0.statuses) \($0.counts)" }.joined(separator: "\n") + "\n\(status.counts)"
        }
        let whole = MirrorStatus.survey(manifest, states: states, runLimit: 5, maxAgeMilliseconds: nil, clock: { 1_000 })
        let byID = Dictionary(uniqueKeysWithValues: whole.entries.map { ($0.resource.id, $0) })
        #expect(byID.mapValues(\.counts.resumable) == ["one": 1, "five": 1, "two": 0])
        #expect(byID["five"]?.statuses == [.proven, .changed, .missing, .missing, .changed])
        #expect(byID["one"]?.statuses == [.proven, .missing] && byID["two"]?.statuses == [.missing, .unproven])
        for size in [1, 2, 3, 5] {
            #expect(summary(batchSize: size) == summary(batchSize: Manifest.checkBatchSize), "batches of \(size)")
        }
    }
}
