import JobrunCore
import Testing
@testable import JobrunManifest

/// What a slice's declaration proves, the summary clause that counts the rest, and
/// `--require-digests`, which makes every slice without a digest an error at its place.
@Suite struct SliceIntegrityTests {
    static let here = SourceLocation(file: "m.yaml", line: 1, column: 1)
    static let md5 = Digest(algorithm: .md5, bytes: Array(repeating: 1, count: 16))

    /// Only a digest proves content; a size alone is `size only`; nothing is `unverified`.
    @Test(
        arguments: [
            (Int64?.none, false, SliceIntegrity.unverified),
            (0, false, .sizeOnly),
            (10, false, .sizeOnly),
            (nil, true, .digest),
            (10, true, .digest),
        ] as [(Int64?, Bool, SliceIntegrity)])
    func integrityFollowsTheDeclaration(size: Int64?, hasDigest: Bool, expected: SliceIntegrity) {
        let slice = Slice(path: "a", size: size, digests: hasDigest ? [Self.md5] : [], location: Self.here)
        #expect(slice.integrity == expected)
    }

    @Test func theClauseIsEmptyWhenEverySliceHasADigestAndAlwaysNamesBothKindsOtherwise() {
        var counts = IntegrityCounts()
        counts.add(.digest)
        #expect(counts.summaryClause == "" && counts.withoutDigests == 0)
        counts.add(.unverified)
        #expect(counts.summaryClause == "; 1 without digests (0 size only, 1 unverified)")
        counts.add(.sizeOnly)
        counts.add(.sizeOnly)
        var more = IntegrityCounts()
        more.add(.unverified)
        counts += more
        #expect(counts.summaryClause == "; 4 without digests (2 size only, 2 unverified)")
        // One shape for every count, so one pattern reads every summary line.
        let pattern = #/; (\d+) without digests \((\d+) size only, (\d+) unverified\)/#
        let match = counts.summaryClause.wholeMatch(of: pattern)
        #expect(match.map { ($0.1, $0.2, $0.3) } ?? ("", "", "") == ("4", "2", "2"))
    }

    static let manifest = """
        version: 1
        resources:
          - id: a
            base_url: https://h/a/
            slices:
              - {path: proven.bin, sha256: 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08}
              - path: sized.bin
                size: 10
              - {path: bare.bin}
          - id: b
            base_url: https://h/b/
            slices_from: b.sums
            slices:
              - {path: extra.bin, size: 1KiB}

        """

    @Test func requiringDigestsReportsEverySliceWithoutOneAtItsPlace() throws {
        let files = ["m.yaml": Self.manifest, "b.sums": "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08  listed.bin\n"]
        let loaded = try loadManifests(files, requiringDigests: true)
        #expect(loaded.manifest == nil)
        #expect(
            loaded.rendered == """
                m.yaml:7:9: error: slice 'sized.bin' declares a size but no digest; --require-digests needs a digest
                      - path: sized.bin
                        ^
                m.yaml:9:9: error: slice 'bare.bin' declares neither a digest nor a size; --require-digests needs a digest
                      - {path: bare.bin}
                        ^
                m.yaml:14:9: error: slice 'extra.bin' declares a size but no digest; --require-digests needs a digest
                      - {path: extra.bin, size: 1KiB}
                        ^

                """)
        // Without the option the same manifest is valid.
        let plain = try loadManifests(files)
        #expect(plain.diagnostics.isEmpty && plain.manifest?.sliceCount == 5, "\(plain.rendered)")
    }

    /// Other mistakes are reported in the same run, in file order.
    @Test func requiringDigestsAddsToTheOtherDiagnostics() throws {
        let loaded = try loadManifests(
            ["m.yaml": "version: 1\nresources:\n  - id: a\n    base_url: https://h/\n    slices:\n      - {path: x, sizee: 1}\n      - {path: y}\n"],
            requiringDigests: true)
        #expect(loaded.diagnostics.map(\.location?.line) == [6, 7], "\(loaded.rendered)")
        #expect(loaded.rendered.contains("unknown key 'sizee'") && loaded.rendered.contains("slice 'y' declares neither"), "\(loaded.rendered)")
    }
}
