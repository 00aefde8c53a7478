import FuzzSupport
import JobrunCore
@testable import JobrunManifest

// The input is a manifest at /fuzz/manifest.yaml, optionally followed by a line `--- 8< ---`
// and the bytes of /fuzz/slices.sha256 (what `slices_from: slices.sha256` reads). Everything is
// in memory: no file on disk is ever read, whatever paths the manifest names.
let separator = Array("\n--- 8< ---\n".utf8)

fuzzerMain { data, size in
    let input = fuzzInput(data, size)
    var manifest = Array(input)
    var list: [UInt8] = []
    if let cut = manifest.firstRange(of: separator) {
        list = Array(manifest[cut.upperBound...])
        manifest.removeSubrange(cut.lowerBound...)
    }
    var options = ManifestLoader.Options()
    options.currentDirectory = "/fuzz"
    options.environment = ["TOKEN": "secret"]
    let result = ManifestLoader.load(
        memory: [("/fuzz/manifest.yaml", manifest), ("/fuzz/slices.sha256", list)], manifests: ["/fuzz/manifest.yaml"],
        options: options)
    // Rendering quotes source lines with a caret: it must cope with any location it is given.
    _ = DiagnosticRenderer(sources: result.sources).render(result.diagnostics)
    // Read ahead on a thread (as large files are), the manifest must parse to the same document
    // with the same diagnostics.
    let asked = YAMLParser.parse(file: "m.yaml", bytes: manifest, threadedSize: .max)
    let ahead = YAMLParser.parse(file: "m.yaml", bytes: manifest, threadedSize: 0)
    if ahead.diagnostics != asked.diagnostics || ahead.document != asked.document {
        fatalError("parsed ahead on a thread, the manifest gave another document or other diagnostics")
    }
    return 0
}
