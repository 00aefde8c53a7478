import Dispatch
import JobrunCore
import Synchronization
import JobrunSystem

/// Turns one file's YAML tree into resources, collecting every problem as a diagnostic.
///
/// Cross-file rules (unique ids, dependencies, colliding destinations) belong to ``ManifestValidator``.
struct ManifestDecoder {
    var doc: YAMLDocument
    /// The `slices` lists the parser decoded as it read them (``SliceListReader``), by the
    /// number the document keeps for each.
    let sliceLists: [SliceListReader.List]
    /// Folder of the manifest, relative paths (output, slices_from) are resolved against it.
    let manifestDirectory: String
    let options: ManifestLoader.Options
    var diagnostics = DiagnosticCollector()
    /// Files read on the way (`slices_from` lists), for the caller's source cache and the
    /// manifest's record of its inputs.
    var auxiliaryFiles: [(path: String, bytes: [UInt8])] = []
    /// Literal credentials written in the manifest (secret headers' values, URL user-info):
    /// quoted source lines show them as `<redacted>`.
    var secretLiterals: Set<String> = []
    /// Zones looked up so far, by name, found or not.
    var timeZones: [String: Result<TimeZoneRules, TimeZoneRules.LoadError>] = [:]
    /// The database's zone names, read at the first unknown one (for suggestions).
    var timeZoneNames: [String]?
    /// Which of the `defaults`' network keys change some resource.
    var networkDefaultsUse = NetworkDefaultsUse()

    static let topKeys = ["version", "defaults", "resources"]
    static let settingKeys = [
        "concurrency", "retries", "timeouts", "network", "headers", "max_size", "tls", "priority", "hooks", "refresh", "prune", "publish",
    ]
    static let defaultsKeys = ["output"] + settingKeys
    static let resourceKeys = ["id", "base_url", "base_urls", "dest", "depends_on", "checksum", "slices", "slices_from"] + settingKeys
    static let sliceKeys = ["path", "url", "urls", "size", "headers", "refresh"] + DigestAlgorithm.allCases.map(\.rawValue)
    static let concurrencyKeys = ["total", "per_host", "streams", "adaptive"]
    static let retriesKeys = ["attempts", "backoff", "host_failures"]
    static let backoffKeys = ["initial", "max", "multiplier"]
    static let timeoutsKeys = ["connect", "request", "resource"]
    static let tlsKeys = ["ca_file"]

    /// Every mapping a manifest has and the keys the decoder knows in it, by the name
    /// `docs/manifest.schema.json` describes it under (its `$defs`): the schema's test holds the
    /// two to the same keys.
    static let keyTables: [(name: String, keys: [String])] = [
        ("manifest", topKeys), ("defaults", defaultsKeys), ("resource", resourceKeys), ("slice", sliceKeys), ("origin", originKeys),
        ("slices_from", sliceSourceKeys), ("concurrency", concurrencyKeys), ("retries", retriesKeys), ("backoff", backoffKeys),
        ("timeouts", timeoutsKeys), ("tls", tlsKeys), ("network", networkKeys), ("hooks", hookKeys), ("refresh", refreshKeys),
        ("publish", publishKeys),
    ]

    init(doc: YAMLDocument, manifestDirectory: String, options: ManifestLoader.Options, sliceLists: [SliceListReader.List] = []) {
        self.doc = doc
        self.sliceLists = sliceLists
        self.manifestDirectory = manifestDirectory
        self.options = options
    }

    var file: String { doc.file }

    /// Decodes the document; resources come back even when some have errors (the caller checks).
    mutating func decode() -> [Resource] {
        guard let root = doc.root else {
            diagnostics.error("the manifest is empty; it needs 'version: 1' and a list of 'resources'", at: SourceLocation(file: file, line: 1, column: 1))
            return []
        }
        guard requireMapping(root, "a manifest") else { return [] }
        checkKeys(root, allowed: Self.topKeys, in: "the manifest")

        if let v = doc.value(forKey: "version", in: root) {
            if doc.kind(v) == .scalar, doc.style(v) == .plain, !doc.isNull(v), Self.parseInteger(doc.scalar(v)) == nil,
                Self.looksNumeric(doc.scalar(v))
            {
                // Too large for any integer type: say what is supported, not the range of Int64.
                diagnostics.error("'version' is out of range: \(doc.scalar(v)); this jobrun reads version 1", at: location(v))
            } else if let version = integer(v, "version", in: Int64.min...Int64.max), version != 1 {
                diagnostics.error("unsupported manifest version \(version); this jobrun reads version 1", at: location(v))
            }
        } else {
            diagnostics.error("missing required key 'version' (write 'version: 1')", at: location(root))
        }

        var settings = ResourceSettings()
        settings.concurrency = settings.concurrency.overridden(by: options.concurrency)
        var output = "mirror"
        var cleanDefaults: YAMLNode?
        if let d = doc.value(forKey: "defaults", in: root), !doc.isNull(d), requireMapping(d, "'defaults'") {
            let errorsBefore = diagnostics.errorCount
            checkKeys(d, allowed: Self.defaultsKeys, in: "'defaults'")
            if let o = doc.value(forKey: "output", in: d), let text = string(o, "output"),
                isFreeOfDeceptiveCharacters(text, node: o, field: "'output'")
            {
                output = text
            }
            readSettings(from: d, into: &settings, scope: .defaults)
            if diagnostics.errorCount == errorsBefore { cleanDefaults = d }
        }
        var outputRoot = PathRules.join(manifestDirectory, output)
        if let override = options.outputOverride { outputRoot = PathRules.lexicallyNormalized(override) }

        guard let list = doc.value(forKey: "resources", in: root) else {
            diagnostics.error("missing required key 'resources' (a list of resources)", at: location(root))
            return []
        }
        guard requireSequence(list, "'resources'") else { return [] }
        if doc.count(list) == 0 {
            diagnostics.error("'resources' is empty; a manifest must declare at least one resource", at: location(list))
            return []
        }
        let resources = decodeResources(Array(doc.items(list)), defaults: settings, outputRoot: outputRoot)
        // Defaults with a mistake of their own would be judged on what was left of them.
        if let d = cleanDefaults { checkNetworkDefaultsUse(d) }
        return resources
    }

    /// Resources are independent once the tree is built, so a large list is decoded on every core,
    /// in contiguous chunks whose results and diagnostics are joined back in document order.
    mutating func decodeResources(_ items: [YAMLNode], defaults: ResourceSettings, outputRoot: String) -> [Resource] {
        let chunks = items.count >= 64 ? min(ProcessInfo.processInfo.activeProcessorCount, 8, items.count / 32) : 1
        if chunks <= 1 { return Self.decode(items[...], with: &self, defaults: defaults, outputRoot: outputRoot) }
        let template = self
        let results = Mutex<[Int: ManifestDecoder.ChunkResult]>([:])
        DispatchQueue.concurrentPerform(iterations: chunks) { chunk in
            var decoder = ManifestDecoder(
                doc: template.doc, manifestDirectory: template.manifestDirectory, options: template.options, sliceLists: template.sliceLists)
            let lower = items.count * chunk / chunks
            let upper = items.count * (chunk + 1) / chunks
            let resources = Self.decode(items[lower..<upper], with: &decoder, defaults: defaults, outputRoot: outputRoot)
            let result = ChunkResult(
                resources: resources, diagnostics: decoder.diagnostics.diagnostics,
                auxiliaryFiles: decoder.auxiliaryFiles, secretLiterals: decoder.secretLiterals,
                networkDefaultsUse: decoder.networkDefaultsUse)
            results.withLock { $0[chunk] = result }
        }
        var resources: [Resource] = []
        resources.reserveCapacity(items.count)
        let all = results.withLock { $0 }
        for chunk in 0..<chunks {
            guard let r = all[chunk] else { continue }
            resources.append(contentsOf: r.resources)
            diagnostics.append(contentsOf: r.diagnostics)
            auxiliaryFiles.append(contentsOf: r.auxiliaryFiles)
            secretLiterals.formUnion(r.secretLiterals)
            networkDefaultsUse.formUnion(r.networkDefaultsUse)
        }
        return resources
    }

    /// The resources of `items`, in order, decoded by `decoder` (which collects the diagnostics).
    private static func decode(_ items: ArraySlice<YAMLNode>, with decoder: inout ManifestDecoder, defaults: ResourceSettings, outputRoot: String) -> [Resource]
    {
        var resources: [Resource] = []
        resources.reserveCapacity(items.count)
        for item in items {
            if let r = decoder.resource(item, defaults: defaults, outputRoot: outputRoot) { resources.append(r) }
        }
        return resources
    }

    struct ChunkResult: Sendable {
        var resources: [Resource]
        var diagnostics: [Diagnostic]
        var auxiliaryFiles: [(path: String, bytes: [UInt8])]
        var secretLiterals: Set<String>
        var networkDefaultsUse: NetworkDefaultsUse
    }

    // MARK: Settings shared by `defaults` and resources

    mutating func readSettings(from mapping: YAMLNode, into settings: inout ResourceSettings, scope: SettingsScope) {
        for pair in doc.pairs(mapping) {
            let v = pair.value
            if doc.scalar(pair.key, equals: "concurrency") {
                readConcurrency(v, into: &settings.concurrency)
            } else if doc.scalar(pair.key, equals: "retries") {
                readRetries(v, into: &settings.retries)
            } else if doc.scalar(pair.key, equals: "timeouts") {
                readTimeouts(v, into: &settings.timeouts)
            } else if doc.scalar(pair.key, equals: "network") {
                readNetwork(v, into: &settings.network, scope: scope)
            } else if doc.scalar(pair.key, equals: "headers") {
                if let h = headers(v) { settings.headers = HeaderField.merge(settings.headers, over: h) }
            } else if doc.scalar(pair.key, equals: "tls") {
                readTLS(v, into: &settings)
            } else if doc.scalar(pair.key, equals: "max_size") {
                if let n = byteCount(v, "max_size", in: 1...(1 << 50)) { settings.maxSize = ByteCount(n) }
            } else if doc.scalar(pair.key, equals: "priority") {
                if let n = integer(v, "priority", in: -1000...1000) { settings.priority = Int(n) }
            } else if doc.scalar(pair.key, equals: "hooks") {
                readHooks(v, into: &settings.hooks)
            } else if doc.scalar(pair.key, equals: "refresh") {
                if let policy = refreshPolicy(v, over: settings.refresh) { settings.refresh = policy }
            } else if doc.scalar(pair.key, equals: "prune") {
                if let b = boolean(v, "prune") { settings.prune = b }
            } else if doc.scalar(pair.key, equals: "publish") {
                if let policy = publishPolicy(v, over: settings.publish) { settings.publish = policy }
            }
        }
    }

    mutating func readConcurrency(_ node: YAMLNode, into c: inout ConcurrencyLimits) {
        guard requireMapping(node, "'concurrency'") else { return }
        checkKeys(node, allowed: Self.concurrencyKeys, in: "'concurrency'")
        if let n = doc.value(forKey: "total", in: node), let v = integer(n, "total", in: ConcurrencyLimits.totalRange) { c.total = v }
        if let n = doc.value(forKey: "per_host", in: node), let v = integer(n, "per_host", in: ConcurrencyLimits.perHostRange) { c.perHost = v }
        if let n = doc.value(forKey: "streams", in: node), let v = integer(n, "streams", in: ConcurrencyLimits.streamsRange) { c.streams = v }
        if let n = doc.value(forKey: "adaptive", in: node), let v = boolean(n, "adaptive") { c.adaptive = v }
        // Limits given on the command line replace these; the warning would be about values not used.
        if options.concurrency.isEmpty, c.perHost > c.total, let n = doc.value(forKey: "per_host", in: node) {
            diagnostics.warning("'per_host' (\(c.perHost)) is larger than 'total' (\(c.total)); at most \(c.total) slots are in use at once", at: location(n))
        }
        c = c.overridden(by: options.concurrency)
    }

    mutating func readRetries(_ node: YAMLNode, into r: inout RetryPolicy) {
        guard requireMapping(node, "'retries'") else { return }
        checkKeys(node, allowed: Self.retriesKeys, in: "'retries'")
        if let n = doc.value(forKey: "attempts", in: node), let v = integer(n, "attempts", in: 1...100) { r.attempts = Int(v) }
        if let n = doc.value(forKey: "host_failures", in: node), let v = integer(n, "host_failures", in: 0...1_000_000) { r.hostFailures = Int(v) }
        if let b = doc.value(forKey: "backoff", in: node), requireMapping(b, "'backoff'") {
            checkKeys(b, allowed: Self.backoffKeys, in: "'backoff'")
            if let n = doc.value(forKey: "initial", in: b), let d = duration(n, "initial", in: 0...86_400_000) { r.backoff.initial = d }
            if let n = doc.value(forKey: "max", in: b), let d = duration(n, "max", in: 0...86_400_000) { r.backoff.maximum = d }
            if let n = doc.value(forKey: "multiplier", in: b), let m = number(n, "multiplier", in: 1...10) { r.backoff.multiplier = m }
            if r.backoff.initial > r.backoff.maximum, let n = doc.value(forKey: "initial", in: b) {
                diagnostics.error(
                    "'initial' backoff (\(DurationParser.format(milliseconds: r.backoff.initial.wholeMilliseconds))) is longer than 'max' (\(DurationParser.format(milliseconds: r.backoff.maximum.wholeMilliseconds)))",
                    at: location(n))
            }
        }
    }

    mutating func readTimeouts(_ node: YAMLNode, into t: inout Timeouts) {
        guard requireMapping(node, "'timeouts'") else { return }
        checkKeys(node, allowed: Self.timeoutsKeys, in: "'timeouts'")
        let week: Int64 = 7 * 86_400_000
        if let n = doc.value(forKey: "connect", in: node), let d = duration(n, "connect", in: 1...3_600_000) { t.connect = d }
        if let n = doc.value(forKey: "request", in: node), let d = duration(n, "request", in: 1...week) { t.request = d }
        if let n = doc.value(forKey: "resource", in: node), let d = duration(n, "resource", in: 1...week) { t.resource = d }
    }

    mutating func readTLS(_ node: YAMLNode, into settings: inout ResourceSettings) {
        guard requireMapping(node, "'tls'") else { return }
        checkKeys(node, allowed: Self.tlsKeys, in: "'tls'")
        if let n = doc.value(forKey: "ca_file", in: node), let text = string(n, "ca_file"),
            isFreeOfDeceptiveCharacters(text, node: n, field: "'ca_file'")
        {
            let path = PathRules.join(manifestDirectory, text)
            if options.files.isReadable(path) {
                settings.caFile = path
            } else {
                diagnostics.error("'ca_file' '\(path)' does not exist or cannot be read", at: location(n))
            }
        }
    }
}
