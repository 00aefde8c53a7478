import JobrunCore
import JobrunTestSupport
@testable import JobrunManifest

/// Loads manifests written to a fresh temporary folder; rendered diagnostics have the folder stripped.
struct LoadedForTest {
    var manifest: Manifest?
    var rendered: String
    var diagnostics: [Diagnostic]
}

func loadManifests(
    _ files: [String: String], load names: [String]? = nil, environment: [String: String] = [:],
    allowFileURLs: Bool = false, output: String? = nil, requiringDigests: Bool = false
) throws -> LoadedForTest {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    for (name, text) in files { _ = try dir.write(file: name, contents: text) }
    var options = ManifestLoader.Options()
    options.environment = environment
    options.allowFileURLs = allowFileURLs
    options.outputOverride = output
    options.requiresDigests = requiringDigests
    options.currentDirectory = dir.path
    let paths = (names ?? files.keys.filter { $0.hasSuffix(".yaml") }.sorted()).map { dir.path($0) }
    let result = ManifestLoader.load(paths: paths, options: options)
    var text = DiagnosticRenderer(sources: result.sources).render(result.diagnostics)
    text = text.replacingOccurrences(of: dir.path + "/", with: "")
    for u in result.unreadable { text += "unreadable: \(u.path.replacingOccurrences(of: dir.path + "/", with: "")): \(u.reason)\n" }
    var manifest = result.manifest
    if var m = manifest {
        for i in m.resources.indices {
            m.resources[i].outputRoot = m.resources[i].outputRoot.replacingOccurrences(of: dir.path + "/", with: "")
        }
        manifest = m
    }
    return LoadedForTest(manifest: manifest, rendered: text, diagnostics: result.diagnostics)
}

/// Only the diagnostics of a single manifest called `m.yaml`.
func diagnose(_ yaml: String, environment: [String: String] = [:], extra: [String: String] = [:]) throws -> String {
    var files = extra
    files["m.yaml"] = yaml
    return try loadManifests(files, load: ["m.yaml"], environment: environment).rendered
}
