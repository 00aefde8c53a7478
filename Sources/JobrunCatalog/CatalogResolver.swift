import JobrunCore
public import JobrunManifest
import JobrunSystem

/// Reads each resource's catalog (``CatalogSource``) into its slices before anything is planned:
/// fetched (conditionally, against the copy kept from the last run) or read from that copy, its
/// signature verified, its entries read. A resource whose catalog cannot be trusted or read is
/// refused, and so is every resource that depends on it: nothing of them is planned or fetched,
/// and the others go on.
public struct CatalogResolver: Sendable {
    public enum Mode: Sendable {
        /// Ask the origin (`apply`, `plan`).
        case fetch
        /// Read only the kept copy (`verify`, `status`): what the mirror was last made from.
        case kept
    }

    /// Bytes a catalog may have at most.
    public static let maxCatalogBytes = 256 << 20
    /// Bytes a detached signature may have at most.
    public static let maxSignatureBytes = 1 << 20

    public var mode: Mode
    /// What relative output roots are relative to.
    public var currentDirectory: String
    /// `--require-digests`: every slice a catalog yields must declare a digest.
    public var requiresDigests = false
    /// `--cacert`, over each resource's `ca_file`.
    public var caFile: String?
    public var allowsFileScheme = false
    /// Seconds since the epoch, for a Debian Release's `Valid-Until`.
    public var now: @Sendable () -> Int64 = { FileIdentity.now() / 1_000_000_000 }
    /// The `gpgv` program Debian repositories are verified with; found on `PATH` when `nil`.
    public var gpgv: String?
    /// The run's cutoff (`--deadline` less its margin): a catalog not had by then refuses its resource.
    public var deadline: ContinuousClock.Instant?

    public init(mode: Mode, currentDirectory: String) {
        self.mode = mode
        self.currentDirectory = currentDirectory
    }

    /// `manifest` with its catalogs read, and what became of each.
    public func resolve(_ manifest: Manifest) -> CatalogResolution {
        var resolution = CatalogResolution(manifest: manifest)
        guard manifest.resources.contains(where: { $0.catalog != nil }) else { return resolution }
        var refused = Set<String>()
        var admitted = manifest.resources.filter { $0.catalog == nil }
        for index in manifest.resources.indices {
            var resource = manifest.resources[index]
            guard var catalog = resource.catalog else { continue }
            if catalog.isLocal {
                // One name for the list wherever jobrun is run from: the kept copy is found by it.
                catalog.url = PathRules.absolute(catalog.url, from: currentDirectory)
                catalog.openPGPSignatureURL = catalog.openPGPSignatureURL.map { PathRules.absolute($0, from: currentDirectory) }
                resource.catalog = catalog
            }
            let read = self.read(catalog, of: resource, into: &resolution)
            switch read {
            case .failure(let refusal):
                refuse(resource, catalog: catalog, problems: refusal.diagnostics, into: &resolution, refused: &refused)
            case .success(let (slices, report)):
                resource.slices.append(contentsOf: slices)
                // The rules the manifest's own slices passed at load, now with these.
                let problems = ManifestLoader.checkSlices(admitted + [resource], currentDirectory: currentDirectory, requiresDigests: requiresDigests)
                    .filter { $0.severity == .error }
                if !problems.isEmpty {
                    resolution.updates.removeAll { $0.resourceID == resource.id }
                    refuse(resource, catalog: catalog, problems: problems, into: &resolution, refused: &refused)
                    continue
                }
                admitted.append(resource)
                resolution.manifest.resources[index] = resource
                resolution.reports.append(report)
            }
        }
        refuseDependents(of: &refused, in: &resolution)
        resolution.manifest.resources.removeAll { refused.contains($0.id) }
        resolution.updates.removeAll { refused.contains($0.resourceID) }
        return resolution
    }

    private func refuse(
        _ resource: Resource, catalog: CatalogSource, problems: [Diagnostic], into resolution: inout CatalogResolution, refused: inout Set<String>
    ) {
        refused.insert(resource.id)
        resolution.diagnostics.append(contentsOf: problems)
        let first = problems.first { $0.severity == .error } ?? problems.first
        resolution.reports.append(CatalogReport(resource: resource.id, url: catalog.url, state: .refused, error: first?.message ?? "refused"))
    }

    /// Every resource that depends, directly or not, on a refused one is refused too.
    private func refuseDependents(of refused: inout Set<String>, in resolution: inout CatalogResolution) {
        var grew = !refused.isEmpty
        while grew {
            grew = false
            for resource in resolution.manifest.resources where !refused.contains(resource.id) {
                guard let dependency = resource.dependsOn.first(where: { refused.contains($0.id) }) else { continue }
                refused.insert(resource.id)
                grew = true
                let message = "resource '\(resource.id)' depends on '\(dependency.id)', whose catalog was refused; nothing of it is fetched"
                resolution.diagnostics.append(.error(message, at: dependency.location))
                resolution.reports.append(
                    CatalogReport(resource: resource.id, url: resource.catalog?.url ?? "", state: .refused, error: message))
            }
        }
    }

    /// The catalog's kept slices and its report, or the problems that refuse it.
    private func read(
        _ catalog: CatalogSource, of resource: Resource, into resolution: inout CatalogResolution
    ) -> Result<([Slice], CatalogReport), CatalogRefusal> {
        let cache = CatalogCache(root: resource.outputRoot, resourceID: resource.id)
        // A copy kept under another signature URL or another key is not the copy of this catalog.
        let trust = Self.trustIdentity(of: catalog)
        let previous = cache.read(url: catalog.url)
        let kept = previous.flatMap { $0.signatureURL == catalog.signatureURL && $0.trust == trust ? $0 : nil }
        var copy: CatalogCache.Copy
        var state: CatalogReport.State
        // A local list is read as it is now, by every command.
        switch catalog.isLocal ? .fetch : mode {
        case .kept:
            guard let kept else {
                return .failure(
                    CatalogRefusal(
                        "'\(catalog.url)' has not been fetched into this mirror yet ('jobrun apply' fetches it); none of its slices is used",
                        at: catalog.location))
            }
            (copy, state) = (kept, .cached)
        case .fetch:
            switch fetch(catalog, of: resource, kept: kept) {
            case .failure(let refusal): return .failure(refusal)
            case .success(let fetched): (copy, state) = fetched
            }
        }
        copy.trust = trust
        // A copy that did not change is not read again: the slices it yielded were kept with it.
        var key = Self.readingKey(of: catalog, copy: copy, resource: resource)
        let expired = mode == .fetch && (copy.validUntil.map { $0 < now() } ?? false)
        if state != .fetched, !expired, let slices = cache.readSlices(key: key, file: catalog.url) {
            return .success(
                (slices, CatalogReport(resource: resource.id, url: catalog.url, state: state, slices: slices.count, changes: CatalogReport.Changes())))
        }
        var read = catalogSlices(of: catalog, copy, resource: resource, cache: cache, fetching: mode == .fetch, keptDate: previous?.releaseDate)
        if case .failure = read, state == .notModified {
            // The kept copy no longer reads (changed on disk, a keyring that since changed): the
            // origin is asked for the whole catalog again.
            switch fetch(catalog, of: resource, kept: nil) {
            case .failure(let refusal): return .failure(refusal)
            case .success(let fetched): (copy, state) = fetched
            }
            copy.trust = trust
            key = Self.readingKey(of: catalog, copy: copy, resource: resource)
            read = catalogSlices(of: catalog, copy, resource: resource, cache: cache, fetching: true, keptDate: previous?.releaseDate)
        }
        resolution.sources.append((catalog.url, copy.catalog))
        if let signature = copy.signature, let name = copy.signatureURL { resolution.sources.append((name, signature)) }
        let result: DebianCatalog.Read
        switch read {
        case .failure(let refusal):
            resolution.sources.append(contentsOf: refusal.sources)
            return .failure(refusal.refusal)
        case .success(let r): result = r
        }
        resolution.diagnostics.append(contentsOf: result.warnings)
        let slices = result.slices
        copy.releaseDate = result.releaseDate
        copy.validUntil = result.validUntil
        var report = CatalogReport(resource: resource.id, url: catalog.url, state: state, slices: slices.count)
        // Kept by apply: a new copy, or a copy whose slices were not kept (with these settings) yet.
        resolution.updates.append(
            CatalogResolution.Update(
                resourceID: resource.id, cache: cache, copy: copy, indexes: result.indexes, slices: slices, readingKey: key))
        switch state {
        case .fetched:
            // Against what the kept copy yields: its kept slices, or it read again from what is kept
            // (nothing is fetched for it).
            if let kept {
                var before = cache.readSlices(key: Self.readingKey(of: catalog, copy: kept, resource: resource), file: catalog.url)
                if before == nil, case .success(let read) = catalogSlices(of: catalog, kept, resource: resource, cache: cache, fetching: false, keptDate: nil) {
                    before = read.slices
                }
                if let before { report.changes = CatalogChanges.between(before, slices) }
            }
        case .notModified, .cached: report.changes = CatalogReport.Changes()
        case .refused: break
        }
        return .success((slices, report))
    }

    /// What a catalog's slices depend on besides its bytes: how it is read (format, patterns,
    /// digest algorithm, Debian selection), what verified it and against which origins; as a
    /// SHA-256, the key of the slices kept with a copy.
    static func readingKey(of catalog: CatalogSource, copy: CatalogCache.Copy, resource: Resource) -> String {
        var parts = [
            catalog.format.rawValue, catalog.algorithm?.rawValue ?? "-", copy.trust ?? "-", copy.signatureURL ?? "-",
            catalog.include.map(\.pattern).joined(separator: "\u{1}"), catalog.exclude.map(\.pattern).joined(separator: "\u{1}"),
            catalog.allow.map(\.pattern).joined(separator: "\u{1}"), resource.origins.map(\.url).joined(separator: "\u{1}"),
        ]
        if let debian = catalog.debian {
            parts += [debian.suite, debian.components.joined(separator: ","), debian.architectures.joined(separator: ",")]
        }
        let text = Array(parts.joined(separator: "\u{0}").utf8) + [0] + copy.catalog + [0] + (copy.signature ?? [])
        return (try? Digest.compute(.sha256, of: text))?.hex ?? ""
    }

    /// What the kept copy of a signed catalog was verified with: a minisign or signify key's id,
    /// or the SHA-256 of a Debian repository's keyring. A copy verified with another is not reused.
    static func trustIdentity(of catalog: CatalogSource) -> String? {
        if let trust = catalog.trust { return trust.key.scheme.rawValue + ":" + trust.key.keyIDText + ":" + trust.key.publicKeyHex }
        if let keyring = catalog.keyring, case .success(let bytes) = FileReader.read(keyring, limit: 16 << 20) {
            return "keyring:" + ((try? Digest.compute(.sha256, of: bytes))?.hex ?? "")
        }
        return nil
    }

    /// A catalog's refusal, with the files (by the names its diagnostics use) it was found in.
    struct Refusal: Error {
        var refusal: CatalogRefusal
        var sources: [(name: String, bytes: [UInt8])] = []
    }

    /// The slices a copy of the catalog yields: a list or playlist read, or a Debian repository's
    /// chain followed (its indexes fetched only when `fetching`, its Release judged current only
    /// then; `keptDate` is the Date of the Release the mirror was last made from).
    private func catalogSlices(
        of catalog: CatalogSource, _ copy: CatalogCache.Copy, resource: Resource, cache: CatalogCache, fetching: Bool, keptDate: Int64?
    ) -> Result<DebianCatalog.Read, Refusal> {
        guard catalog.format == .debian, let selection = catalog.debian else {
            // A detached OpenPGP signature first: nothing of the list is read before it verifies.
            if let keyring = catalog.keyring, catalog.openPGPSignatureURL != nil {
                guard let signature = copy.signature else {
                    return .failure(
                        Refusal(
                            refusal: CatalogRefusal(
                                "'\(catalog.url)' is signed, and its signature was not fetched; none of its slices is used", at: catalog.location)))
                }
                if case .failure(let error) = OpenPGPVerifier(keyring: keyring, program: gpgv).verify(copy.catalog, detached: signature, name: catalog.url) {
                    return .failure(Refusal(refusal: CatalogRefusal("\(error.message); none of its slices is used", at: catalog.location)))
                }
            }
            var warnings: [Diagnostic] = []
            return CatalogReader.slices(
                of: catalog, list: copy.catalog, signature: copy.signature, file: catalog.url, signatureFile: copy.signatureURL ?? "",
                origins: resource.origins,
                warnings: &warnings
            ).map { DebianCatalog.Read(slices: $0, indexes: [], fetchedIndex: false, warnings: warnings) }.mapError { Refusal(refusal: $0) }
        }
        var chain = DebianCatalog(
            catalog: catalog, selection: selection, root: resource.origins.first?.url ?? "", cache: cache, now: now(), gpgv: gpgv)
        chain.roots = resource.origins.map(\.url)
        chain.keptDate = keptDate
        chain.judgesCurrency = fetching
        if fetching {
            chain.fetch = { url, size in
                var download = self.download(url, of: resource)
                download.limit = Int(clamping: min(size, Int64(Self.maxCatalogBytes)))
                return download.fetch().map(\.body)
            }
        }
        var sources: [(name: String, bytes: [UInt8])] = []
        return chain.read(inRelease: copy.catalog, sources: &sources).mapError { Refusal(refusal: $0, sources: sources) }
    }

    /// The catalog as its origin has it now, and its signature when it is signed: the kept copy
    /// when the origin says it has not changed.
    private func fetch(
        _ catalog: CatalogSource, of resource: Resource, kept: CatalogCache.Copy?
    ) -> Result<(CatalogCache.Copy, CatalogReport.State), CatalogRefusal> {
        fetchCopy(catalog, of: resource, kept: kept).mapError { CatalogRefusal("\($0.message); none of its slices is used", at: catalog.location) }
    }

    private func fetchCopy(
        _ catalog: CatalogSource, of resource: Resource, kept: CatalogCache.Copy?
    ) -> Result<(CatalogCache.Copy, CatalogReport.State), CatalogFetchError> {
        if catalog.isLocal { return Self.readLocal(catalog, kept: kept) }
        var download = self.download(catalog.url, of: resource)
        download.validators = kept?.validators
        let response: CatalogDownload.Response
        switch download.fetch() {
        case .failure(let error): return .failure(error)
        case .success(let r): response = r
        }
        if response.notModified, let kept { return .success((kept, .notModified)) }
        var copy = CatalogCache.Copy(url: catalog.url, signatureURL: nil, validators: response.validators, catalog: response.body, signature: nil)
        if let signatureURL = catalog.signatureURL {
            var signatureDownload = self.download(signatureURL, of: resource)
            signatureDownload.limit = Self.maxSignatureBytes
            switch signatureDownload.fetch() {
            case .failure(let error): return .failure(error)
            case .success(let signature):
                copy.signatureURL = signatureURL
                copy.signature = signature.body
            }
        }
        return .success((copy, .fetched))
    }

    /// A local list and its signature as they are on disk: the kept copy when neither changed.
    private static func readLocal(
        _ catalog: CatalogSource, kept: CatalogCache.Copy?
    ) -> Result<(CatalogCache.Copy, CatalogReport.State), CatalogFetchError> {
        func read(_ path: String, limit: Int, _ what: String) -> Result<[UInt8], CatalogFetchError> {
            FileReader.read(path, limit: limit).mapError {
                CatalogFetchError("cannot read \(what) '\(path)': \(FileReader.describe($0, limit: limit))", isTransient: false)
            }
        }
        let list: [UInt8]
        switch read(catalog.url, limit: maxCatalogBytes, "'slices_from' file") {
        case .failure(let error): return .failure(error)
        case .success(let bytes): list = bytes
        }
        var copy = CatalogCache.Copy(url: catalog.url, signatureURL: catalog.signatureURL, validators: nil, catalog: list, signature: nil)
        if let path = catalog.signatureURL {
            switch read(path, limit: maxSignatureBytes, "the signature") {
            case .failure(let error): return .failure(error)
            case .success(let bytes): copy.signature = bytes
            }
        }
        if let kept, kept.catalog == copy.catalog, kept.signature == copy.signature { return .success((kept, .notModified)) }
        return .success((copy, .fetched))
    }

    /// A GET of `url` with the resource's limits, sending its headers only to its own origins
    /// (merged with that origin's own), and only the headers that may cross origins elsewhere.
    private func download(_ url: String, of resource: Resource) -> CatalogDownload {
        let settings = resource.settings
        var headers = settings.headers.filter(\.crossesOrigins)
        if let origin = try? ParsedURL.parse(url).get().origin,
            let k = resource.origins.firstIndex(where: { (try? ParsedURL.parse($0.url).get().origin) == origin })
        {
            let atOrigin = resource.origins[k].headers
            headers = atOrigin.isEmpty ? settings.headers : HeaderField.merge(settings.headers, over: atOrigin)
        }
        var download = CatalogDownload(
            url: url, headers: headers, limit: Self.maxCatalogBytes, timeouts: settings.timeouts, retries: settings.retries,
            caFile: caFile ?? settings.caFile)
        download.allowsFileScheme = allowsFileScheme
        download.deadline = deadline
        if let catalog = resource.catalog {
            download.trustedOrigins = catalog.trustedOrigins(resource.origins)
            download.allowedAddresses = catalog.allowedAddresses
        }
        return download
    }
}
