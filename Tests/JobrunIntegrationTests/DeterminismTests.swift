import Foundation
import JobrunTestSupport
import Testing

/// Same manifests in any file order, with keys in any order, hashed with any number of threads:
/// byte-identical plan text, plan JSON, verify JSON, JUnit and graph.
@Suite struct DeterminismTests {
    /// ``MirrorFixture``'s manifests with the keys of every mapping in another order. Lines move
    /// only within a mapping (a resource's `id` stays where it was), so every location and byte
    /// count is the same and only the files' own digests differ.
    static let docsReordered = """
        defaults:
          headers: {User-Agent: "fixture/1"}
          output: ./elsewhere
        version: 1
        resources:
          - id: docs
            slices:
              - sha256: 5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03
                size: 6
                path: hello.txt
              - md5: 60a71506347a6d5f688c41d296e19c69
                path: guide/intro.txt
              - size: 100
                path: short.txt
              - sha256: 844cd17a64dffb0b93be849979ecbc677a8e98a1b595a402ec08ce1b4f683166
                path: corrupt.txt
                size: 8
              - sha1: f9c24e2abb82063a3ba2c44efd2d3c797f28ac90
                size: 8
                path: missing.txt
              - size: 6
                path: link.txt
            base_url: https://files.example.com/docs/

        """

    static let mediaReordered = """
        version: 1
        resources:
          - id: media
            slices:
              - sha512: 0bdb6c58b52e901e0cf7f67fbfa85b05e05806bd14220b090b6f52bba461b3efe29610888f6759095c5af01b6ed07ce18965d41dcc85e364423fe14066aa8b74
                url: https://img.example.com/cover.png?sig=abc123
                size: 12
                path: cover.png
              - sha384: e4bab0ee397a1f5d2dec6f8a5769c416e95ca49751bb77bdb99072cbb57eb3cda51124b334260aba3bf797e33dede51b
                sha224: 41740093a8a2120e23c720445e5c2f880ca9f6b83223ab37794541f3
                size: 5
                path: clips/clip 1.ts
            network: {cellular: true}
            headers: {X-Trace: fixture}
            depends_on: [docs]
            dest: media/v1
            base_url: https://media.example.com/v1/
          - id: archive
            slices:
              - path: notes.txt
            base_url: https://media.example.com/archive/

        """

    /// Everything jobrun renders for the manifests given as `manifests`, concatenated with headers.
    static func outputs(in directory: TemporaryDirectory, manifests: [String], extra: [String] = []) async throws -> String {
        let common = manifests + ["--output", "mirror"] + extra
        // The run id is the one thing that differs between runs by design.
        let environment = ["SOURCE_DATE_EPOCH": "0", "JOBRUN_HOSTNAME": "test", "JOBRUN_RUN_ID": "determinism"]
        var all = ""
        for arguments in [["plan", "-v"], ["plan", "--json"], ["verify", "--extra"], ["verify", "--json", "--extra"], ["graph"]] {
            let result = try await Harness.run(arguments + common, in: directory.path, environment: environment)
            // Free space is the machine's and moves between runs (other processes write).
            all += "== \(arguments.joined(separator: " ")) (exit \(result.status))\n\(Harness.maskingFreeSpace(result.stdout))-- stderr\n\(result.stderr)"
        }
        try? FileManager.default.removeItem(atPath: directory.path("junit.xml"))
        let junit = try await Harness.run(["verify", "--junit", "junit.xml"] + common, in: directory.path, environment: environment)
        all += "== junit (exit \(junit.status))\n\(directory.contents(of: "junit.xml") ?? "<none>")"
        return all
    }

    /// The files' own SHA-256 in the plan JSON's `manifests` list (the line after `"bytes"`): the
    /// one thing a byte change must change.
    static func maskingManifestDigests(_ text: String) -> String {
        var previous = ""
        return text.split(separator: "\n", omittingEmptySubsequences: false).map { line -> String in
            defer { previous = line.trimmingCharacters(in: .whitespaces) }
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            guard previous.hasPrefix(#""bytes": "#), trimmed.hasPrefix(#""sha256": ""#) else { return String(line) }
            return line.prefix { $0 == " " } + #""sha256": "<manifest digest>""#
        }.joined(separator: "\n")
    }

    @Test func fileOrderDoesNotMatter() async throws {
        let directory = try MirrorFixture.make()
        defer { directory.remove() }
        let forward = try await Self.outputs(in: directory, manifests: ["manifests/docs.yaml", "manifests/media.yaml"])
        let backward = try await Self.outputs(in: directory, manifests: ["manifests/media.yaml", "manifests/docs.yaml"])
        let folder = try await Self.outputs(in: directory, manifests: ["manifests"])
        #expect(forward.contains("== plan --json (exit 0)"), "\(forward)")
        #expect(forward == backward, "\(LineDiff.unified(expected: forward, actual: backward))")
        #expect(forward == folder, "\(LineDiff.unified(expected: forward, actual: folder))")
    }

    @Test func threadCountDoesNotMatter() async throws {
        let directory = try MirrorFixture.make()
        defer { directory.remove() }
        let one = try await Self.outputs(in: directory, manifests: ["manifests"], extra: ["--jobs", "1"])
        let many = try await Self.outputs(in: directory, manifests: ["manifests"], extra: ["--jobs", "7"])
        #expect(one == many, "\(LineDiff.unified(expected: one, actual: many))")
    }

    @Test func keyOrderDoesNotMatter() async throws {
        let original = try MirrorFixture.make()
        defer { original.remove() }
        let reordered = try MirrorFixture.make()
        defer { reordered.remove() }
        try reordered.write(file: "manifests/docs.yaml", contents: Self.docsReordered)
        try reordered.write(file: "manifests/media.yaml", contents: Self.mediaReordered)
        #expect(Self.docsReordered.utf8.count == MirrorFixture.docs.utf8.count)
        #expect(Self.mediaReordered.utf8.count == MirrorFixture.media.utf8.count)

        let expected = try await Self.outputs(in: original, manifests: ["manifests"])
        let actual = try await Self.outputs(in: reordered, manifests: ["manifests"])
        #expect(expected != actual, "the manifests' own digests should differ")
        let maskedExpected = Self.maskingManifestDigests(expected)
        let maskedActual = Self.maskingManifestDigests(actual)
        #expect(maskedExpected.contains("<manifest digest>"))
        #expect(maskedExpected == maskedActual, "\(LineDiff.unified(expected: maskedExpected, actual: maskedActual))")
    }

    /// A cycle across files is reported the same way whichever file comes first: it starts at
    /// the smallest id and follows `depends_on`.
    @Test func aCycleAcrossFilesIsReportedTheSameInAnyOrder() async throws {
        let directory = try TemporaryDirectory(prefix: "jobrun-cycle-order")
        defer { directory.remove() }
        try directory.write(
            file: "one.yaml",
            contents: """
                version: 1
                resources:
                  - {id: c, base_url: "https://cdn.example.com/", depends_on: [a], slices: [{path: c}]}

                """)
        try directory.write(
            file: "two.yaml",
            contents: """
                version: 1
                resources:
                  - {id: b, base_url: "https://cdn.example.com/", depends_on: [c], slices: [{path: b}]}
                  - {id: a, base_url: "https://cdn.example.com/", depends_on: [b], slices: [{path: a}]}

                """)
        let forward = try await Harness.run(["validate", "one.yaml", "two.yaml"], in: directory.path)
        let backward = try await Harness.run(["validate", "two.yaml", "one.yaml"], in: directory.path)
        #expect(forward.status == 65)
        #expect(
            forward.stderr == """
                two.yaml:4:64: error: dependency cycle: a -> b -> c -> a
                  - {id: a, base_url: "https://cdn.example.com/", depends_on: [b], slices: [{path: a}]}
                                                                               ^
                jobrun: 1 error in the manifests; nothing was done.

                """)
        #expect(backward.stderr == forward.stderr)
    }
}
