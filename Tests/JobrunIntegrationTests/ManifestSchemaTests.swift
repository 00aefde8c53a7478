import Foundation
import JobrunTestSupport
import Testing

/// `docs/manifest.schema.json` against the manifests `jobrun validate` accepts, with
/// `check-jsonschema` (pip; `make test` installs it where pip can): the shipped manifests and
/// examples, and `Corpus/schema/kitchen-sink.yaml`, which writes every key; and against manifests
/// it must refuse.
@Suite(.enabled(if: Executables.find("check-jsonschema") != nil, "check-jsonschema is not installed (pip install check-jsonschema)"))
struct ManifestSchemaTests {
    static let root = SharedPaths.packageRoot(startingAt: #filePath) ?? "."
    static let schema = root + "/docs/manifest.schema.json"

    static func checkJSONSchema(_ files: [String]) async throws -> RunResult {
        try await BinaryRunner(executable: try #require(Executables.find("check-jsonschema")), defaultTimeout: .seconds(120)).run(
            ["--schemafile", schema, "--default-filetype", "yaml"] + files)
    }

    @Test func theSchemaIsValidDraft2020() async throws {
        let result = try await BinaryRunner(executable: try #require(Executables.find("check-jsonschema"))).run(["--check-metaschema", Self.schema])
        #expect(result.status == 0, "\(result)")
    }

    @Test func everyManifestValidateAcceptsPassesTheSchema() async throws {
        var manifests = ["manifests", "examples"].flatMap { top in
            DirectoryTree.files(under: Self.root + "/" + top).filter {
                ($0.hasSuffix(".yaml") || $0.hasSuffix(".yml")) && !$0.contains("/examples/monitoring/")
            }
        }
        manifests.append(Harness.testDirectory + "/Corpus/schema/kitchen-sink.yaml")
        #expect(manifests.count >= 4, "\(manifests)")
        for manifest in manifests {
            let folder = (manifest as NSString).deletingLastPathComponent
            let validated = try await Harness.run(
                ["validate", manifest], in: folder, environment: ["MIRROR_TOKEN": "t", "BACKUP_TOKEN": "t", "CDN_TOKEN": "t"])
            #expect(validated.status == 0, "\(manifest): \(validated)")
        }
        let checked = try await Self.checkJSONSchema(manifests)
        #expect(checked.status == 0, "\(checked)")
    }

    @Test(arguments: [
        ("unknown key", "version: 1\nresources:\n  - id: r\n    base_url: https://e.com/\n    slicez: []\n    slices: [{path: a}]\n"),
        ("version 2", "version: 2\nresources:\n  - id: r\n    base_url: https://e.com/\n    slices: [{path: a}]\n"),
        ("short digest", "version: 1\nresources:\n  - id: r\n    base_url: https://e.com/\n    slices: [{path: a, sha256: abc}]\n"),
        ("no id", "version: 1\nresources:\n  - base_url: https://e.com/\n    slices: [{path: a}]\n"),
        ("bad format", "version: 1\nresources:\n  - id: r\n    base_url: https://e.com/\n    slices_from: {url: SUMS, format: zip}\n"),
        ("a Debian key on a list", "version: 1\nresources:\n  - id: r\n    base_url: https://e.com/\n    slices_from: {url: SUMS, suite: bookworm}\n"),
        ("an empty id", "version: 1\nresources:\n  - id: ''\n    base_url: https://e.com/\n    slices: [{path: a}]\n"),
    ])
    func aWrongManifestFailsTheSchema(what: String, manifest: String) async throws {
        let folder = try TemporaryDirectory(prefix: "jobrun-schema")
        defer { folder.remove() }
        try folder.write(file: "wrong.yaml", contents: manifest)
        let checked = try await Self.checkJSONSchema([folder.path("wrong.yaml")])
        #expect(checked.status != 0, "the schema passed a manifest with \(what): \(checked)")
    }
}
