import JobrunCore
import JobrunTestSupport
import Testing
@testable import JobrunManifest

/// The loader knows every file it read: the manifests, and every `slices_from` list once, with
/// its size and (when asked) its fingerprint, so a saved plan can record them all.
@Suite struct ManifestInputsTests {
    /// A fingerprint that is easy to predict: the bytes' count and first byte.
    static let fingerprint: @Sendable ([UInt8]) -> String = { "\($0.count):\($0.first ?? 0)" }

    @Test func everyListReadIsRecordedOnceWithItsFingerprint() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let a = "0cc175b9c0f1b6a831c399e269772661  a.ts\n"
        let b = "92eb5ffee6ae2fec3ad71c777531578f  b.ts\n4a8a08f09d37b73795649038408b5f33  c.ts\n"
        _ = try dir.write(file: "lists/a.md5", contents: a)
        _ = try dir.write(file: "sub/b.md5", contents: b)
        // Enough resources to be decoded in parallel chunks: the same list from several threads.
        let many = (0..<80).map { "  - {id: r\($0), base_url: \"https://h/\($0)/\", slices_from: \($0 % 2 == 0 ? "lists/a.md5" : "./lists/../lists/a.md5")}" }
        _ = try dir.write(file: "one.yaml", contents: "version: 1\nresources:\n" + many.joined(separator: "\n") + "\n")
        _ = try dir.write(
            file: "sub/two.yaml",
            contents: """
                version: 1
                resources:
                  - {id: b, base_url: "https://h/b/", slices_from: b.md5}
                  - {id: a-again, base_url: "https://h/c/", slices_from: ../lists/a.md5}

                """)
        var options = ManifestLoader.Options()
        options.currentDirectory = dir.path
        options.fingerprint = Self.fingerprint
        let paths = [dir.path("one.yaml"), dir.path("sub/two.yaml")]
        let result = ManifestLoader.load(paths: paths, options: options)
        let manifest = try #require(result.manifest, "\(result.diagnostics)")
        #expect(manifest.resources.count == 82)
        #expect(manifest.files.map(\.path) == paths)
        #expect(
            manifest.sliceLists == [
                ManifestFile(path: dir.path("lists/a.md5"), byteCount: a.utf8.count, fingerprint: Self.fingerprint(Array(a.utf8))),
                ManifestFile(path: dir.path("sub/b.md5"), byteCount: b.utf8.count, fingerprint: Self.fingerprint(Array(b.utf8))),
            ])

        // Without a hasher the lists are still known, without fingerprints; without lists, none.
        let plain = try #require(
            ManifestLoader.load(
                paths: paths,
                options: {
                    var o = options; o.fingerprint = nil; return o
                }()
            ).manifest)
        #expect(plain.sliceLists.map(\.path) == manifest.sliceLists.map(\.path))
        #expect(plain.sliceLists.allSatisfy { $0.fingerprint == nil })
        _ = try dir.write(file: "none.yaml", contents: "version: 1\nresources:\n  - {id: n, base_url: \"https://h/\", slices: [{path: x}]}\n")
        #expect(try #require(ManifestLoader.load(paths: [dir.path("none.yaml")], options: options).manifest).sliceLists.isEmpty)
    }

    /// With no manifest named, jobrun reads its own: the folder `manifests`, else the files named
    /// as jobrun's, never another YAML file of the folder.
    @Test func theDefaultIsJobrunsManifestsOnly() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        for name in ["docker-compose.yml", ".gitlab-ci.yml", "jobrun.yaml", "media.jobrun.yml", "a.jobrun.yaml", "notjobrun.yaml"] {
            _ = try dir.write(file: name, contents: "x: 1\n")
        }
        try dir.makeDirectory("b.jobrun.yaml")
        #expect(ManifestLoader.defaultPaths(in: dir.path) == ["a.jobrun.yaml", "jobrun.yaml", "media.jobrun.yml"].map { dir.path + "/" + $0 })
        _ = try dir.write(file: "manifests/site.yaml", contents: "x: 1\n")
        #expect(ManifestLoader.defaultPaths(in: dir.path) == [dir.path + "/manifests"])

        let empty = try TemporaryDirectory()
        defer { empty.remove() }
        _ = try empty.write(file: "docker-compose.yml", contents: "services: {}\n")
        #expect(ManifestLoader.defaultPaths(in: empty.path).isEmpty)
    }
}
