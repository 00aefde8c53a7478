import JobrunCore
import Testing

@testable import JobrunManifest

/// `slices_from` lists: GNU lines and BSD tags of the six digests, and the mapping form that
/// keeps what `include` and `exclude` select.
@Suite struct SliceSourceTests {
    static let sha256 = "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824"
    static let md5 = "5d41402abc4b2a76b9719d911017c592"

    @Test func bsdTagsOfEveryAlgorithmAndGNULinesMix() throws {
        let sums = """
            SHA256 (pool/a.deb) = \(Self.sha256)
            MD5 (odd (name).txt) = \(Self.md5)
            \(Self.sha256)  plain.bin
            SHA1 (s1) = \(String(repeating: "a", count: 40))
            SHA224 (s224) = \(String(repeating: "b", count: 56))
            SHA384 (s384) = \(String(repeating: "c", count: 96))
            SHA512 (s512) = \(String(repeating: "d", count: 128))

            """
        let loaded = try loadManifests([
            "m.yaml": "version: 1\nresources:\n  - id: r\n    base_url: https://example.com/\n    slices_from: s.sums\n", "s.sums": sums,
        ])
        #expect(loaded.rendered == "")
        let slices = try #require(loaded.manifest).resources[0].slices
        #expect(slices.map(\.path) == ["pool/a.deb", "odd (name).txt", "plain.bin", "s1", "s224", "s384", "s512"])
        #expect(slices.map { $0.digests.first?.algorithm } == [.sha256, .md5, .sha256, .sha1, .sha224, .sha384, .sha512])
    }

    @Test func tagMistakesAreLocated() throws {
        // GNU escapes a name with a backslash or a line feed (`\SHA256 (a\\b) = …`): read, then refused as a path.
        let sums = "SHA1 (x) = \(Self.sha256)\nSHA256 (y) \(Self.sha256)\n\\SHA256 (a\\\\b) = \(Self.sha256)\n"
        let loaded = try loadManifests([
            "m.yaml": "version: 1\nresources:\n  - id: r\n    base_url: https://example.com/\n    slices_from: s.sums\n", "s.sums": sums,
        ])
        #expect(loaded.rendered.contains("s.sums:1:12: error: sha1 digest has 64 hex digits; it needs 40 (the line is tagged SHA1)"), "\(loaded.rendered)")
        #expect(loaded.rendered.contains("s.sums:2:1: error: expected 'SHA256 (<path>) = <digest>' in a checksum list line"), "\(loaded.rendered)")
        #expect(loaded.rendered.contains("s.sums:3:10: error: slice path 'a\\b' contains a backslash"), "\(loaded.rendered)")
        let tagged = try loadManifests([
            "m.yaml": "version: 1\nresources:\n  - id: r\n    checksum: sha256\n    base_url: https://example.com/\n    slices_from: s.sums\n",
            "s.sums": "MD5 (x) = \(Self.md5)\n",
        ])
        #expect(tagged.rendered.contains("s.sums:1:1: error: the line is tagged MD5, but the resource's 'checksum' is sha256"), "\(tagged.rendered)")
    }

    @Test func theMappingKeepsWhatThePatternsSelect() throws {
        let sums = ["pool/main/a.deb", "pool/main/a.dsc", "pool/contrib/b.deb", "dists/x/Release"].map { "\(Self.sha256)  \($0)" }.joined(separator: "\n")
        let manifest = """
            version: 1
            resources:
              - id: r
                base_url: https://example.com/
                slices_from:
                  path: s.sums
                  format: sha256sum
                  include: ["*.deb", "dists/**"]
                  exclude: pool/contrib/**
            """
        let loaded = try loadManifests(["m.yaml": manifest, "s.sums": sums + "\n"])
        #expect(loaded.rendered == "")
        #expect(try #require(loaded.manifest).resources[0].slices.map(\.path) == ["pool/main/a.deb", "dists/x/Release"])
    }

    @Test func mappingMistakesAreLocatedAllAtOnce() throws {
        let text = try diagnose(
            """
            version: 1
            resources:
              - id: r
                base_url: https://example.com/
                slices_from: {path: s.sums, format: sha265sum, include: ["a[b", ok], exclude: {x: 1}, when: now}
              - id: q
                base_url: https://example.com/
                slices_from: {include: "*.deb"}
              - id: p
                base_url: https://example.com/
                slices_from: {path: s.sums, include: "*.nothing"}
            """, extra: ["s.sums": "\(Self.sha256)  a.deb\n"])
        #expect(text.contains("m.yaml:5:91: error: unknown key 'when' in 'slices_from'"), "\(text)")
        #expect(
            text.contains("m.yaml:5:41: error: 'format' must be sha256sum, hls, debian or metalink, found 'sha265sum' (did you mean 'sha256sum'?)"), "\(text)")
        #expect(text.contains("m.yaml:5:62: error: 'include' pattern 'a[b': a '[' without its ']'"), "\(text)")
        #expect(text.contains("m.yaml:5:83: error: 'exclude' must be a pattern or a list of patterns; found a mapping"), "\(text)")
        #expect(text.contains("m.yaml:8:18: error: missing required key 'path' or 'url' in 'slices_from'"), "\(text)")
        #expect(text.contains("m.yaml:11:18: error: 'include' and 'exclude' keep none of the 1 slices 's.sums' lists"), "\(text)")
    }
}
