import FuzzSupport
import JobrunCore
import JobrunTrust
@testable import JobrunManifest

// The input is a Debian control file behind a selector byte: a Release (0), a Packages index (1),
// or an ASCII-armored key (2). Every path a Release or an index yields must be clean and
// relative, each pool file once; nothing may trap.
func isClean(_ path: String) -> Bool {
    !path.isEmpty && !path.hasPrefix("/") && !path.split(separator: "/", omittingEmptySubsequences: false).contains { $0.isEmpty || $0 == "." || $0 == ".." }
}

fuzzerMain { data, size in
    let input = Array(fuzzInput(data, size))
    guard let selector = input.first else { return 0 }
    let body = Array(input.dropFirst())
    var diagnostics = DiagnosticCollector()
    switch selector % 3 {
    case 0:
        if let release = DebianRelease.parse(body, file: "/fuzz/Release", diagnostics: &diagnostics) {
            for (path, index) in release.indexes {
                require(isClean(path) && path == index.path, "a Release listed the index path '\(path)'")
                require(index.size >= 0, "a Release listed a negative size")
            }
        }
    case 1:
        var paths = Set<String>()
        for slice in DebianPackages.slices(in: body, file: "/fuzz/Packages", keeps: { _, _ in true }, diagnostics: &diagnostics) {
            require(isClean(slice.path), "an index yielded the path '\(slice.path)'")
            require(paths.insert(slice.path).inserted, "an index yielded '\(slice.path)' twice")
            require(slice.digests.count == 1 && slice.size != nil, "an index yielded a slice without its size and SHA256")
        }
    default:
        _ = ArmoredKey.dearmor(body)
    }
    var sources = SourceFiles()
    sources.add("/fuzz/Release", bytes: body)
    sources.add("/fuzz/Packages", bytes: body)
    _ = DiagnosticRenderer(sources: sources).render(diagnostics.sorted)
    return 0
}
