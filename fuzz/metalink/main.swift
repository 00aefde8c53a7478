import FuzzSupport
import JobrunCore
@testable import JobrunManifest

// The input is a Metalink 4 document, read as a resource's catalog at a fixed origin. Every
// slice must be a clean relative path named once, and every URL it keeps at that origin or an
// allowed host: a Metalink never leads a request elsewhere. libxml2 must not reach the network.
let origin = "https://downloads.example.org"
let allowance = CatalogAllowance(origins: [origin], hosts: [(try? PathGlob("*.mirror.example.net")).map { [$0] } ?? []].flatMap { $0 })

fuzzerMain { data, size in
    let input = Array(fuzzInput(data, size))
    var diagnostics = DiagnosticCollector()
    let slices = MetalinkSlices.slices(in: input, file: "/fuzz/files.meta4", allowance: allowance, diagnostics: &diagnostics)
    var sources = SourceFiles()
    sources.add("/fuzz/files.meta4", bytes: input)
    _ = DiagnosticRenderer(sources: sources).render(diagnostics.sorted)
    var paths = Set<String>()
    for slice in slices {
        require(
            !slice.path.isEmpty && !slice.path.hasPrefix("/") && !slice.path.split(separator: "/").contains(".."), "a Metalink yielded the path '\(slice.path)'"
        )
        require(paths.insert(slice.path).inserted, "a Metalink yielded '\(slice.path)' twice")
        require(!slice.urls.isEmpty, "a Metalink yielded '\(slice.path)' without a URL")
        for url in slice.urls {
            guard case .success(let parsed) = ParsedURL.parse(url) else {
                require(false, "a Metalink yielded the URL '\(url)', which does not parse")
                continue
            }
            require(allowance.admits(parsed), "a Metalink led to '\(url)'")
        }
    }
    return 0
}
