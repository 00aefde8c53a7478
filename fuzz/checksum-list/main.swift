import FuzzSupport
import JobrunCore
@testable import JobrunManifest

// The input is a `slices_from` list. Its first byte picks the resource's `checksum` (none, or
// one algorithm), which changes how digest lengths are read; the rest is the list.
fuzzerMain { data, size in
    let input = fuzzInput(data, size)
    let algorithms = DigestAlgorithm.allCases
    let algorithm = input.first.flatMap { Int($0) < algorithms.count ? algorithms[Int($0)] : nil }
    let list = Array(input.dropFirst(input.isEmpty ? 0 : 1))
    var diagnostics = DiagnosticCollector()
    let slices = ManifestDecoder.checksumEntries(in: list, file: "/fuzz/slices.sha256", algorithm: algorithm, diagnostics: &diagnostics)
    var sources = SourceFiles()
    sources.add("/fuzz/slices.sha256", bytes: list)
    _ = DiagnosticRenderer(sources: sources).render(diagnostics.sorted)
    // Every slice a list yields is a clean relative path with a digest of the chosen kind.
    for slice in slices {
        require(!slice.path.isEmpty && !slice.path.hasPrefix("/"), "a checksum list yielded the path '\(slice.path)'")
        require(slice.digests.count == 1, "a checksum list line yielded \(slice.digests.count) digests")
        if let algorithm { require(slice.digests[0].algorithm == algorithm, "a digest of another kind than the resource's") }
    }
    return 0
}
