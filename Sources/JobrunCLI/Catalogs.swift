import JobrunCatalog
import JobrunCore
import JobrunManifest
import JobrunOutcome

/// The commands' step between loading the manifests and planning: each resource's catalog read
/// (``CatalogResolver``), and why any was refused on stderr, located.
enum Catalogs {
    /// `manifest`'s catalogs fetched (`.fetch`) or read from the copies kept in the output roots
    /// (`.kept`); the refused resources are left out of the manifest returned.
    static func read(
        _ manifest: Manifest, mode: CatalogResolver.Mode, allowingFileURLs: Bool, caFile: String? = nil, requiringDigests: Bool = false,
        deadline: ContinuousClock.Instant? = nil
    ) -> CatalogResolution {
        var resolver = CatalogResolver(mode: mode, currentDirectory: FileManager.default.currentDirectoryPath)
        resolver.caFile = caFile
        resolver.allowsFileScheme = allowingFileURLs
        resolver.requiresDigests = requiringDigests
        resolver.deadline = deadline
        let resolution = resolver.resolve(manifest)
        report(resolution)
        return resolution
    }

    /// A `catalog` event for each catalog read (after `run_start`, before `plan`).
    static func emit(_ resolution: CatalogResolution, on events: RunEvents) {
        for report in resolution.reports { events.emit(.catalogRead(report)) }
    }

    /// Every problem with the lines of the catalog it is in (a refused resource's, and warnings
    /// such as a URL a catalog may not lead to), then a line for each refused resource.
    static func report(_ resolution: CatalogResolution) {
        guard !resolution.diagnostics.isEmpty else { return }
        var sources = SourceFiles()
        for source in resolution.sources { sources.add(source.name, bytes: source.bytes) }
        StandardError.write(DiagnosticRenderer(sources: sources).render(resolution.diagnostics))
        for report in resolution.reports where report.state == .refused {
            StandardError.write("jobrun: error: resource '\(report.resource)' refused; nothing of it is planned or fetched\n")
        }
    }
}
