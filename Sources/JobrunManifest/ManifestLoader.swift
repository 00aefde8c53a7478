public import JobrunCore
public import JobrunSystem

/// Loads manifest files and folders, decodes and validates them, and reports every problem at once.
public enum ManifestLoader {
    public struct Options: Sendable {
        /// Admit `file://` URLs (`--allow-file-urls`).
        public var allowFileURLs = false
        /// Replaces every file's output root (`--output DIR`), relative to the current directory.
        public var outputOverride: String?
        /// Values for `${VAR}` in headers, and `TZDIR`, the time zone database `timezone:` names a zone of.
        public var environment: [String: String] = ProcessInfo.processInfo.environment
        /// Folder relative paths are resolved against (the process's current directory by default).
        public var currentDirectory: String = FileManager.default.currentDirectoryPath
        /// Computes a file's fingerprint for saved plans (the plan stage passes a SHA-256 hasher).
        public var fingerprint: (@Sendable ([UInt8]) -> String)?
        /// Called with each manifest file's bytes as it is read, in that order (`slices_from`
        /// lists are not manifests): the event stream's digest of the manifests.
        public var manifestRead: (@Sendable ([UInt8]) -> Void)?
        /// Where manifests, `slices_from` lists and `ca_file` are looked up.
        var files: FileSource = .fileSystem
        /// Makes every slice that declares no digest an error (`--require-digests`).
        public var requiresDigests = false
        /// Replaces every resource's transfer limits (`--concurrency`, `--per-host`).
        public var concurrency = ConcurrencyOverride()

        public init() {}
    }

    /// A file or folder that could not be read at all (exit 66), as opposed to an invalid manifest (65).
    public struct Unreadable: Sendable, Hashable {
        public var path: String
        public var reason: String
    }

    public struct Result: Sendable {
        /// The validated manifest, `nil` when there was any error or unreadable input.
        public var manifest: Manifest?
        /// Every diagnostic, sorted by location.
        public var diagnostics: [Diagnostic]
        public var unreadable: [Unreadable]
        /// Sources for rendering diagnostics with their lines.
        public var sources: SourceFiles

        public var hasErrors: Bool { !unreadable.isEmpty || diagnostics.contains { $0.severity == .error } }
    }

    /// The folder jobrun reads when no manifest is named and it is there.
    public static let defaultFolder = "manifests"

    /// What jobrun reads when no manifest is named: the folder `manifests` of `directory` when
    /// there is one, else `directory`'s files named `jobrun.yaml`, `jobrun.yml`, `*.jobrun.yaml`
    /// or `*.jobrun.yml` (paths relative to it, in name order), never any other YAML file that
    /// happens to be there (a `docker-compose.yml`, a CI pipeline); empty when there are none.
    public static func defaultPaths(in directory: String = ".") -> [String] {
        let prefix = directory == "." ? "" : (directory.hasSuffix("/") ? directory : directory + "/")
        if FileStatus.kind(atPath: prefix + defaultFolder) == .directory { return [prefix + defaultFolder] }
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return names.filter { name in
            ["jobrun.yaml", "jobrun.yml"].contains(name) || name.hasSuffix(".jobrun.yaml") || name.hasSuffix(".jobrun.yml")
        }
        .filter { FileStatus.kind(atPath: prefix + $0) != .directory }
        .sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
        .map { prefix + $0 }
    }

    /// Loads `paths` (files, or folders whose `*.yaml`/`*.yml` files are read in name order);
    /// with none, ``defaultPaths(in:)``.
    public static func load(paths: [String], options: Options = Options()) -> Result {
        var unreadable: [Unreadable] = []
        var files: [String] = []
        let paths = paths.isEmpty ? defaultPaths() : paths
        if paths.isEmpty {
            unreadable.append(
                Unreadable(
                    path: ".",
                    reason: "no manifests named, no folder '\(defaultFolder)' here and no file named jobrun.yaml or *.jobrun.yaml; name the manifests to read"))
        }
        for path in paths {
            guard let kind = FileStatus.kind(atPath: path) else {
                unreadable.append(Unreadable(path: path, reason: "No such file or directory"))
                continue
            }
            if kind == .directory {
                let names: [String]
                do {
                    names = try FileManager.default.contentsOfDirectory(atPath: path)
                } catch {
                    unreadable.append(Unreadable(path: path, reason: "cannot list the folder"))
                    continue
                }
                let manifests = names.filter { $0.hasSuffix(".yaml") || $0.hasSuffix(".yml") }
                    .sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
                if manifests.isEmpty {
                    unreadable.append(Unreadable(path: path, reason: "the folder has no *.yaml or *.yml manifests"))
                }
                let base = path.hasSuffix("/") ? String(path.dropLast()) : path
                files.append(contentsOf: manifests.map { base + "/" + $0 })
            } else {
                files.append(path)
            }
        }
        return load(files: files, unreadable: unreadable, options: options)
    }

    /// Reads, decodes and validates `files` (manifest files, not folders) through
    /// `options.files`; `unreadable` holds the paths that could not be listed.
    static func load(files: [String], unreadable: [Unreadable], options: Options) -> Result {
        var unreadable = unreadable
        // The same file named twice (directly and through its folder) is read once.
        var seen = Set<String>()
        let files = files.filter { seen.insert(PathRules.join(options.currentDirectory, $0)).inserted }

        var collector = DiagnosticCollector()
        var sources = SourceFiles()
        var loaded: [ManifestFile] = []
        // By path: resources (and manifests) naming the same list read it once each.
        var sliceLists: [String: ManifestFile] = [:]
        var resources: [Resource] = []
        for file in files {
            let bytes: [UInt8]
            switch options.files.read(file) {
            case .success(let b): bytes = b
            case .failure(.tooLarge(let size)):
                collector.error("manifest is \(size) bytes; the limit is 256 MiB", at: SourceLocation(file: file, line: 1, column: 1))
                continue
            case .failure(let failure):
                unreadable.append(Unreadable(path: file, reason: FileReader.describe(failure)))
                continue
            }
            sources.add(file, bytes: bytes)
            options.manifestRead?(bytes)
            loaded.append(ManifestFile(path: file, byteCount: bytes.count, fingerprint: options.fingerprint?(bytes)))
            let directory = SlashPath.folder(of: file)
            let reader = SliceListReader(file: file, manifestDirectory: directory, options: options)
            let (document, yamlDiagnostics) = YAMLParser.parse(file: file, bytes: bytes, itemSink: reader)
            collector.append(contentsOf: yamlDiagnostics)
            if let document {
                var decoder = ManifestDecoder(doc: document, manifestDirectory: directory, options: options, sliceLists: reader.lists)
                resources.append(contentsOf: decoder.decode())
                // The slices' own problems (a document with YAML errors is not decoded, so theirs
                // are not reported either).
                collector.append(contentsOf: reader.decoder.diagnostics.diagnostics)
                sources.redact(reader.decoder.secretLiterals)
                collector.append(contentsOf: decoder.diagnostics.diagnostics)
                for aux in decoder.auxiliaryFiles {
                    sources.add(aux.path, bytes: aux.bytes)
                    if sliceLists[aux.path] == nil {
                        sliceLists[aux.path] = ManifestFile(path: aux.path, byteCount: aux.bytes.count, fingerprint: options.fingerprint?(aux.bytes))
                    }
                }
                sources.redact(decoder.secretLiterals)
            } else if yamlDiagnostics.isEmpty {
                collector.error("the manifest is empty; it needs 'version: 1' and a list of 'resources'", at: SourceLocation(file: file, line: 1, column: 1))
            }
        }
        // Cross-file rules run even after other errors, so every mistake is reported in one go.
        ManifestValidator.validate(resources, currentDirectory: options.currentDirectory, into: &collector)
        if options.requiresDigests { DigestRequirement.check(resources, into: &collector) }
        let ok = !collector.hasErrors && unreadable.isEmpty
        return Result(
            manifest: ok ? Manifest(files: loaded, sliceLists: sliceLists.values.sorted { $0.path < $1.path }, resources: resources) : nil,
            diagnostics: collector.sorted, unreadable: unreadable, sources: sources)
    }
}
