import FuzzSupport
import JobrunCore
@testable import JobrunManifest

// The input is an HLS playlist, read as `slices_from: {format: hls}` of a resource whose base URL
// is fixed. Every slice it yields must be a clean relative path, and any URL of its own must be
// at that origin, below that folder: a playlist never leads a request elsewhere.
let base = "https://cdn.example.com/class/923/"
let origins = [ResourceOrigin(url: base, location: SourceLocation(file: "/fuzz/m.yaml", line: 1, column: 1))]

fuzzerMain { data, size in
    let input = Array(fuzzInput(data, size))
    var diagnostics = DiagnosticCollector()
    let slices = ManifestDecoder.playlistSlices(in: input, file: "/fuzz/index.m3u8", origins: origins, diagnostics: &diagnostics)
    var sources = SourceFiles()
    sources.add("/fuzz/index.m3u8", bytes: input)
    _ = DiagnosticRenderer(sources: sources).render(diagnostics.sorted)
    var paths = Set<String>()
    for slice in slices {
        require(
            !slice.path.isEmpty && !slice.path.hasPrefix("/") && !slice.path.split(separator: "/").contains(".."), "a playlist yielded the path '\(slice.path)'"
        )
        require(paths.insert(slice.path).inserted, "a playlist yielded '\(slice.path)' twice")
        if let url = slice.url { require(url.hasPrefix(base), "a playlist led to '\(url)', outside \(base)") }
    }
    return 0
}
