import JobrunCore
import Testing

@testable import JobrunManifest

/// No name a manifest or checksum list gives may be that of one of jobrun's working files: a slice
/// named like another's partial download would be overwritten by it, or committed in its place.
struct WorkingFileNameTests {
    static let digest = String(repeating: "ab", count: 32)

    @Test func theFormsAreReservedWherever() {
        for name in [".x.bin.jobrun-part", ".x.bin.jobrun-meta", ".jobrun-part", "..jobrun-meta", ".a b.jobrun-part"] {
            #expect(WorkingFileName.isReserved(name), "\(name)")
        }
        for name in ["x.bin.jobrun-part", ".x.bin.jobrun-par", ".x.bin", "jobrun-part", ".x.jobrun-part.ts"] {
            #expect(!WorkingFileName.isReserved(name), "\(name)")
        }
        #expect(WorkingFileName.kind(of: WorkingFileName.partial(for: "a.ts")) == .partial)
        #expect(WorkingFileName.kind(of: WorkingFileName.metadata(for: "a.ts")) == .metadata)
        #expect(WorkingFileName.fileName(ofWorkingFile: ".a.ts.jobrun-meta") == "a.ts")
        #expect(WorkingFileName.fileName(ofWorkingFile: ".a.ts.jobrun-part") == "a.ts")
        #expect(WorkingFileName.fileName(ofWorkingFile: "a.ts") == nil)
    }

    @Test func slicePathsAndDestinationsAreRefusedAtTheirLine() throws {
        let text = try diagnose(
            """
            version: 1
            resources:
              - id: a
                base_url: https://h/
                slices:
                  - {path: x.bin, size: 2000000}
                  - {path: .x.bin.jobrun-part, size: 3000}
                  - {path: "sub/.y.jobrun-meta"}
                  - {path: ".z.jobrun-part/inside.ts"}
                  - {path: "ok/.hidden.ts"}
              - id: b
                base_url: https://h/
                dest: "b/.w.jobrun-part"
                slices: [{path: w.ts}]
            """)
        #expect(
            text == """
                m.yaml:7:16: error: slice path '.x.bin.jobrun-part' has the name '.x.bin.jobrun-part', of the form jobrun keeps for its partial downloads ('.NAME.jobrun-part') and their metadata ('.NAME.jobrun-meta')
                      - {path: .x.bin.jobrun-part, size: 3000}
                               ^
                m.yaml:8:16: error: slice path 'sub/.y.jobrun-meta' has the name '.y.jobrun-meta', of the form jobrun keeps for its partial downloads ('.NAME.jobrun-part') and their metadata ('.NAME.jobrun-meta')
                      - {path: "sub/.y.jobrun-meta"}
                               ^
                m.yaml:9:16: error: slice path '.z.jobrun-part/inside.ts' has the name '.z.jobrun-part', of the form jobrun keeps for its partial downloads ('.NAME.jobrun-part') and their metadata ('.NAME.jobrun-meta')
                      - {path: ".z.jobrun-part/inside.ts"}
                               ^
                m.yaml:13:11: error: 'dest' 'b/.w.jobrun-part' has the name '.w.jobrun-part', of the form jobrun keeps for its partial downloads ('.NAME.jobrun-part') and their metadata ('.NAME.jobrun-meta')
                    dest: "b/.w.jobrun-part"
                          ^

                """)
    }

    /// A list made with `find` over a mirror with leftovers names them.
    @Test func checksumListPathsAreRefusedAtTheirColumn() throws {
        let loaded = try loadManifests([
            "m.yaml": "version: 1\nresources:\n  - id: a\n    base_url: https://h/a/\n    slices_from: a.sums\n",
            "a.sums": "\(Self.digest)  x.bin\n\(Self.digest)  ./.x.bin.jobrun-part\n",
        ])
        #expect(
            loaded.rendered == """
                a.sums:2:67: error: slice path './.x.bin.jobrun-part' has the name '.x.bin.jobrun-part', of the form jobrun keeps for its partial downloads ('.NAME.jobrun-part') and their metadata ('.NAME.jobrun-meta')
                \(Self.digest)  ./.x.bin.jobrun-part
                                                                                  ^

                """)
    }
}
