import JobrunCore
import JobrunFiles
import JobrunManifest

/// A Debian repository read as apt reads it, before any of its packages is requested: `InRelease`
/// verified with the keyring (gpgv), the Release it signs checked (suite, `Valid-Until`), each
/// `Packages` index it lists for the components and architectures fetched (or taken from the
/// copy kept by its SHA-256) and checked against the Release's size and SHA-256, decompressed,
/// and read. The slices are the index files themselves (so apt can use the mirror) and every
/// package file the indexes list, each with its size and SHA-256.
struct DebianCatalog {
    var catalog: CatalogSource
    var selection: DebianSelection
    /// The repository's root: the resource's first origin, ending with `/`.
    var root: String
    /// Every origin of the resource, in order (the index's by-hash URLs at each).
    var roots: [String] = []
    var cache: CatalogCache
    /// Fetches an index (its URL and the Release's size for it) when it is not kept.
    var fetch: ((_ url: String, _ size: Int64) -> Result<[UInt8], CatalogFetchError>)?
    /// The current time, in seconds since the epoch, for `Valid-Until`.
    var now: Int64
    var gpgv: String?
    /// The `Date` of the Release the mirror was last made from: a Release older than it is a
    /// rollback, refused.
    var keptDate: Int64?
    /// Whether the Release must be current (`Valid-Until`, a `Date` not in the future): when it
    /// is fetched, not when `verify` reads the copy the mirror was made from.
    var judgesCurrency = true

    /// How far a Release's `Date` may be ahead of this machine's clock.
    static let clockSkew: Int64 = 600
    /// Bytes an index may decompress to at most.
    static let maximumIndexBytes = 1 << 30

    struct Read {
        var slices: [Slice]
        /// Every index read, to keep by its SHA-256.
        var indexes: [(sha256: Digest, bytes: [UInt8])]
        /// Some index was fetched rather than taken from the kept copy.
        var fetchedIndex: Bool
        /// What was found wrong that did not refuse the catalog.
        var warnings: [Diagnostic] = []
        /// The Release's `Date` and `Valid-Until`.
        var releaseDate: Int64?
        var validUntil: Int64?
    }

    private var suiteFolder: String { "dists/" + selection.suite + "/" }
    private var inReleaseURL: String { catalog.url }

    func read(inRelease: [UInt8], sources: inout [(name: String, bytes: [UInt8])]) -> Result<Read, CatalogRefusal> {
        guard let keyring = catalog.keyring else { return .failure(CatalogRefusal("a Debian repository needs its keyring", at: catalog.location)) }
        let text: [UInt8]
        switch OpenPGPVerifier(keyring: keyring, program: gpgv).verify(inRelease, name: inReleaseURL) {
        case .failure(let error): return .failure(CatalogRefusal(error.message + "; nothing of the repository is used", at: catalog.location))
        case .success(let t): text = t
        }
        sources.append((inReleaseURL, text))
        var diagnostics = DiagnosticCollector(limit: CatalogRefusal.reportedProblems)
        guard let release = DebianRelease.parse(text, file: inReleaseURL, diagnostics: &diagnostics), !diagnostics.hasErrors else {
            return .failure(CatalogRefusal(diagnostics.diagnostics))
        }
        if let problem = check(release) { return .failure(CatalogRefusal(problem, at: catalog.location)) }

        var slices: [Slice] = []
        let at = SourceLocation(file: inReleaseURL, line: 1, column: 1)
        slices.append(Slice(path: suiteFolder + "InRelease", size: Int64(inRelease.count), digests: Self.sha256(inRelease).map { [$0] } ?? [], location: at))
        var read = Read(slices: [], indexes: [], fetchedIndex: false)
        var pool: [Slice] = []
        var seen: [String: Int] = [:]
        for component in selection.components {
            for architecture in selection.architectures {
                let folder = component + "/binary-" + architecture + "/"
                // As apt: the first compression the Release lists that the origin has.
                let candidates = ["Packages.xz", "Packages.gz", "Packages"].compactMap { release.indexes[folder + $0] }
                guard !candidates.isEmpty else {
                    return .failure(
                        CatalogRefusal(
                            "the Release of '\(selection.suite)' lists no Packages index for \(component)/binary-\(architecture)", at: catalog.location))
                }
                var found: (index: DebianRelease.Index, bytes: [UInt8])?
                for (k, candidate) in candidates.enumerated() {
                    switch indexBytes(candidate, byHash: release.acquiresByHash, absentIsNext: k < candidates.count - 1) {
                    case .failure(let refusal): return .failure(refusal)
                    case .success(nil): continue
                    case .success(let (b, fetched)?):
                        found = (candidate, b)
                        read.fetchedIndex = read.fetchedIndex || fetched
                    }
                    break
                }
                guard let (index, bytes) = found, let format = Decompression.Format(path: index.path) else {
                    return .failure(CatalogRefusal("no Packages index for \(component)/binary-\(architecture) could be read", at: catalog.location))
                }
                read.indexes.append((index.sha256, bytes))
                let indexURL = root + suiteFolder + index.path
                let indexAt = SourceLocation(file: inReleaseURL, line: index.line, column: 1)
                if release.acquiresByHash {
                    // Fetched by hash: what the Release signs, even once the name holds a newer index.
                    let byHash = suiteFolder + Self.byHashPath(of: index)
                    // By hash at each origin first, then by name (a mirror without by-hash copies).
                    let urls = roots.map { $0 + ParsedURL.percentEncodePath(byHash) } + roots.map { $0 + ParsedURL.percentEncodePath(suiteFolder + index.path) }
                    slices.append(Slice(path: suiteFolder + index.path, urls: urls, size: index.size, digests: [index.sha256], location: indexAt))
                    slices.append(Slice(path: byHash, size: index.size, digests: [index.sha256], location: indexAt))
                } else {
                    slices.append(Slice(path: suiteFolder + index.path, size: index.size, digests: [index.sha256], location: indexAt))
                }
                let packages: [UInt8]
                switch Decompression.decompress(bytes, format: format, limit: Self.maximumIndexBytes) {
                case .failure(let error): return .failure(CatalogRefusal("'\(indexURL)' cannot be decompressed: \(error.message)", at: indexAt))
                case .success(let p): packages = p
                }
                DebianPackages.read(packages, file: indexURL, keeps: keeps, into: &pool, seen: &seen, diagnostics: &diagnostics)
                if diagnostics.hasErrors {
                    sources.append((indexURL, packages))
                    return .failure(CatalogRefusal(diagnostics.diagnostics))
                }
            }
        }
        if pool.isEmpty, !catalog.include.isEmpty || !catalog.exclude.isEmpty {
            return .failure(CatalogRefusal("'include' and 'exclude' keep none of the repository's packages", at: catalog.location))
        }
        read.slices = slices + pool
        read.releaseDate = release.date
        read.validUntil = release.validUntil
        return .success(read)
    }

    /// What makes the Release unfit: another suite, out of date, or without what is asked of it.
    func check(_ release: DebianRelease) -> String? {
        guard release.names(selection.suite) else {
            let named = [release.suite, release.codename].compactMap { $0 }.map { "'\($0)'" }.joined(separator: " or ")
            return "the Release is of \(named.isEmpty ? "no suite" : named), not '\(selection.suite)'"
        }
        if judgesCurrency {
            if let validUntil = release.validUntil, validUntil < now {
                return
                    "the Release of '\(selection.suite)' expired on \(RFC3339.utcDateTime(secondsSince1970: validUntil))Z (Valid-Until); a mirror made from it would be stale"
            }
            if let date = release.date, date > now + Self.clockSkew {
                return
                    "the Release of '\(selection.suite)' is dated \(RFC3339.utcDateTime(secondsSince1970: date))Z, in the future: it is not valid yet (or this machine's clock is wrong)"
            }
            if release.date == nil, keptDate != nil {
                return "the Release of '\(selection.suite)' has no Date, and the one this mirror was made from had one: it cannot be told from an older one"
            }
            if let date = release.date, let keptDate, date < keptDate {
                return
                    "the Release of '\(selection.suite)' is dated \(RFC3339.utcDateTime(secondsSince1970: date))Z, before the one this mirror was made from (\(RFC3339.utcDateTime(secondsSince1970: keptDate))Z): a rollback"
            }
        }
        if !release.components.isEmpty, let missing = selection.components.first(where: { !release.components.contains($0) }) {
            return "the Release of '\(selection.suite)' has no component '\(missing)' (it has \(release.components.joined(separator: ", ")))"
        }
        if !release.architectures.isEmpty, let missing = selection.architectures.first(where: { !release.architectures.contains($0) }) {
            return "the Release of '\(selection.suite)' has no architecture '\(missing)' (it has \(release.architectures.joined(separator: ", ")))"
        }
        return nil
    }

    /// The index's bytes, from the kept copy or fetched, checked against the Release; `nil` when
    /// the origin has no such file and `absentIsNext` (another compression is listed).
    private func indexBytes(_ index: DebianRelease.Index, byHash: Bool, absentIsNext: Bool) -> Result<([UInt8], fetched: Bool)?, CatalogRefusal> {
        if let kept = cache.readIndex(index.sha256), kept.count == index.size { return .success((kept, false)) }
        var url = root + suiteFolder + index.path
        let at = SourceLocation(file: inReleaseURL, line: index.line, column: 1)
        guard let fetch else {
            // Only what is kept is read: another compression may be.
            if absentIsNext { return .success(nil) }
            return .failure(CatalogRefusal("'\(url)' has not been fetched into this mirror yet ('jobrun apply' fetches it)", at: at))
        }
        var answer: Result<[UInt8], CatalogFetchError>
        if byHash {
            // By its hash, as apt asks when the Release offers it: the name may already be a newer index's.
            let hashed = root + suiteFolder + Self.byHashPath(of: index)
            answer = fetch(hashed, index.size)
            if case .failure(let error) = answer, error.isAbsent { answer = fetch(url, index.size) } else { url = hashed }
        } else {
            answer = fetch(url, index.size)
        }
        let bytes: [UInt8]
        switch answer {
        case .failure(let error) where error.isAbsent && absentIsNext: return .success(nil)
        case .failure(let error): return .failure(CatalogRefusal("\(error.message); nothing of the repository is used", at: at))
        case .success(let b): bytes = b
        }
        guard bytes.count == index.size else {
            return .failure(CatalogRefusal("'\(url)' is \(bytes.count) bytes; the Release lists \(index.size): it is not the index the Release signs", at: at))
        }
        guard let digest = Self.sha256(bytes), digest == index.sha256 else {
            return .failure(
                CatalogRefusal("'\(url)' has another SHA256 than the Release lists (\(index.sha256.hex)): it is not the index the Release signs", at: at))
        }
        return .success((bytes, true))
    }

    /// Whether a package file is kept: `include` and `exclude` match its package's name or its path.
    private func keeps(_ package: String, _ path: String) -> Bool {
        func matches(_ glob: PathGlob) -> Bool { glob.matches(package) || glob.matches(path) }
        return (catalog.include.isEmpty || catalog.include.contains(where: matches)) && !catalog.exclude.contains(where: matches)
    }

    static func sha256(_ bytes: [UInt8]) -> Digest? { try? Digest.compute(.sha256, of: bytes) }

    /// `main/binary-amd64/by-hash/SHA256/HEX`: where a Release that says `Acquire-By-Hash: yes`
    /// keeps each index under its hash.
    static func byHashPath(of index: DebianRelease.Index) -> String {
        SlashPath.folder(of: index.path) + "/by-hash/SHA256/" + index.sha256.hex
    }
}
