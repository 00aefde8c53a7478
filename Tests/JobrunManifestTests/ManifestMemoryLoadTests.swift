import Foundation
import JobrunCore
import JobrunTestSupport
import Testing
@testable import JobrunManifest
import JobrunSystem

/// Loading from memory (``ManifestLoader/load(memory:manifests:options:)``, the fuzzer's entry)
/// is loading from files: the same reading, decoding and validation, and never a read from disk.
@Suite struct ManifestMemoryLoadTests {
    /// The integration tests' broken manifests (with their `slices_from` lists), in the repository.
    static let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../JobrunIntegrationTests/Corpus/broken").standardizedFileURL.path

    static func rendered(_ result: ManifestLoader.Result) -> String {
        DiagnosticRenderer(sources: result.sources).render(result.diagnostics)
            + result.unreadable.map { "unreadable: \($0.path): \($0.reason)\n" }.joined()
    }

    @Test func everyBrokenManifestGivesTheSameDiagnosticsFromMemoryAsFromItsFile() throws {
        // Files of the folder itself (sub-folders hold multi-file cases).
        let names = try FileManager.default.contentsOfDirectory(atPath: Self.corpus).sorted()
            .filter { FileStatus.kind(atPath: Self.corpus + "/" + $0) == .other }
        let files = try names.map { name in
            (path: Self.corpus + "/" + name, bytes: [UInt8](try Data(contentsOf: URL(fileURLWithPath: Self.corpus + "/" + name))))
        }
        let manifests = files.map(\.path).filter { $0.hasSuffix(".yaml") }
        #expect(manifests.count > 20)
        var options = ManifestLoader.Options()
        options.currentDirectory = Self.corpus
        options.environment = [:]
        for manifest in manifests {
            let fromDisk = ManifestLoader.load(paths: [manifest], options: options)
            let fromMemory = ManifestLoader.load(memory: files, manifests: [manifest], options: options)
            #expect(Self.rendered(fromMemory) == Self.rendered(fromDisk), "\(manifest)")
            #expect(fromDisk.hasErrors && fromMemory.hasErrors, "\(manifest) is in the broken corpus")
        }
    }

    @Test func aValidManifestWithItsListLoadsTheSameFromMemory() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let yaml = """
            version: 1
            resources:
              - id: listed
                base_url: https://example.com/
                slices_from: lists/a.sha256sums
            """
        let list = "\(String(repeating: "ab", count: 32))  one.bin\n\(String(repeating: "cd", count: 32)) *dir/two.bin\n"
        let manifestPath = try dir.write(file: "m.yaml", contents: yaml)
        let listPath = try dir.write(file: "lists/a.sha256sums", contents: list)
        var options = ManifestLoader.Options()
        options.currentDirectory = dir.path
        let fromDisk = ManifestLoader.load(paths: [manifestPath], options: options)
        let fromMemory = ManifestLoader.load(
            memory: [(manifestPath, Array(yaml.utf8)), (listPath, Array(list.utf8))], manifests: [manifestPath], options: options)
        #expect(fromDisk.manifest != nil)
        #expect(fromMemory.manifest.map { "\($0.resources)" } == fromDisk.manifest.map { "\($0.resources)" })
        #expect(fromMemory.manifest?.sliceLists == fromDisk.manifest?.sliceLists)
        #expect(fromMemory.manifest?.resources.first?.slices.map(\.path) == ["one.bin", "dir/two.bin"])
    }

    /// A manifest in memory that names files on disk (a list, a CA file, the manifest itself)
    /// reads them as missing: the fuzzer's inputs cannot reach the file system.
    @Test func filesOutsideMemoryReadAsMissing() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let onDisk = try dir.write(file: "real.sha256sums", contents: "\(String(repeating: "ab", count: 32))  x.bin\n")
        let ca = try dir.write(file: "ca.pem", contents: "not read\n")
        let yaml = """
            version: 1
            resources:
              - id: r
                base_url: https://example.com/
                tls:
                  ca_file: \(ca)
                slices_from: \(onDisk)
            """
        let result = ManifestLoader.load(memory: [("/m/m.yaml", Array(yaml.utf8))], manifests: ["/m/m.yaml", onDisk])
        let text = Self.rendered(result)
        #expect(result.manifest == nil)
        #expect(text.contains("cannot read 'slices_from' file '\(onDisk)': No such file or directory"))
        #expect(text.contains("'ca_file' '\(ca)' does not exist or cannot be read"))
        #expect(text.contains("unreadable: \(onDisk): No such file or directory"))
    }
}
