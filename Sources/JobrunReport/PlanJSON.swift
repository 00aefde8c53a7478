import JobrunCore
public import JobrunManifest
public import JobrunPlan
import JobrunFiles
import JobrunJSON

/// The plan as a versioned JSON document (`jobrun plan --json`, and the saved plan of `--out`).
///
/// Field names are a public contract; `format_version` changes when one does. Secret header values
/// are written as `<redacted>`, and URLs only as identities (no query: signed URLs carry secrets).
public enum PlanJSON {
    public static let formatVersion: Int64 = 2
    /// The document's `kind`, which `jobrun apply PLANFILE` looks for.
    public static let kind = "jobrun-plan"

    /// What a saved plan records besides the plan, so `apply` can refuse a stale one.
    public struct SavedPlanOptions: Sendable {
        public var outputOverride: String?
        public var allowFileURLs: Bool
        /// `--concurrency` and `--per-host`, which `apply` uses unless given its own.
        public var concurrency: ConcurrencyOverride
        public init(outputOverride: String?, allowFileURLs: Bool, concurrency: ConcurrencyOverride = ConcurrencyOverride()) {
            self.outputOverride = outputOverride
            self.allowFileURLs = allowFileURLs
            self.concurrency = concurrency
        }
    }

    /// `runID`: the run's id (``RunID``) as `run_id`, for `plan --json` (a saved plan has none).
    public static func render(_ plan: Plan, pretty: Bool, savedPlan: SavedPlanOptions? = nil, runID: String? = nil) -> [UInt8] {
        var document: [UInt8] = []
        write(plan, pretty: pretty, savedPlan: savedPlan, runID: runID, chunkSize: .max) { document = $0 }
        return document
    }

    /// ``render(_:pretty:savedPlan:runID:)`` handed to `sink` a part at a time: a part ends after
    /// the first slice that brings it to `chunkSize` bytes (the last part holds the rest), so a
    /// plan of a million slices is never held as a whole document. The first error `sink` throws
    /// ends the writing.
    public static func write<Failure: Error>(
        _ plan: Plan, pretty: Bool, savedPlan: SavedPlanOptions? = nil, runID: String? = nil, chunkSize: Int = 1 << 20,
        to sink: ([UInt8]) throws(Failure) -> Void
    ) throws(Failure) {
        var w = JSONWriter(pretty: pretty, reservingCapacity: min(chunkSize, 256 * max(1, plan.counts.slices)) + 4_096)
        let flush = { (w: inout JSONWriter) throws(Failure) in
            if w.bytes.count >= chunkSize { try sink(w.takeBytes()) }
        }
        w.beginObject()
        w.key("format_version"); w.int(formatVersion)
        if let savedPlan {
            w.key("kind"); w.string(kind)
            w.key("options")
            w.beginObject()
            w.key("output"); if let o = savedPlan.outputOverride { w.string(o) } else { w.null() }
            w.key("allow_file_urls"); w.bool(savedPlan.allowFileURLs)
            w.key("concurrency"); if let n = savedPlan.concurrency.total { w.int(Int64(n)) } else { w.null() }
            w.key("per_host"); if let n = savedPlan.concurrency.perHost { w.int(Int64(n)) } else { w.null() }
            w.endObject()
        }
        w.key("jobrun_version"); w.string(JobrunVersion.current)
        if let runID { w.key("run_id"); w.string(runID) }
        w.key("manifests")
        writeFiles(plan.manifest.files, into: &w)
        w.key("slice_lists")
        writeFiles(plan.manifest.sliceLists, into: &w)
        w.key("selection")
        writeSelection(of: plan, into: &w)
        // `null` without `--shard`; else the shard (`index`, 0-based, of `count`) and its slices
        // against all the manifests' (after `--resource`).
        w.key("shard")
        w.shard(plan.manifest.shard)
        w.key("summary")
        writeCounts(plan.counts, resources: plan.entries.count, proofs: plan.proofs, into: &w)
        w.key("space")
        w.beginArray()
        for need in plan.space { writeSpace(need, into: &w) }
        w.endArray()
        w.catalogs(plan.catalogs)
        // `null` unless a prune is asked for: what apply would prune after a complete run.
        w.key("prune")
        if let prune = plan.prune {
            w.beginObject()
            w.key("max_delete"); w.string(prune.limit.description)
            w.key("refusal"); if let refusal = prune.refusal { w.string(refusal) } else { w.null() }
            w.key("resources"); w.strings(prune.resources)
            w.key("files")
            w.beginArray()
            for file in prune.files {
                w.beginObject()
                w.pruneFileFields(file)
                w.endObject()
            }
            w.endArray()
            w.endObject()
        } else {
            w.null()
        }
        w.key("resources")
        w.beginArray()
        for entry in plan.entries { try writeEntry(entry, into: &w, afterSlice: flush) }
        w.endArray()
        w.endObject()
        try sink(w.finish())
    }

    /// Input files by path, each with its size and SHA-256 (what a saved plan's staleness check compares).
    static func writeFiles(_ files: [ManifestFile], into w: inout JSONWriter) {
        w.beginArray()
        for f in files.sorted(by: { $0.path < $1.path }) {
            w.beginObject()
            w.key("path"); w.string(f.path)
            w.key("bytes"); w.int(Int64(f.byteCount))
            w.key("sha256"); if let fp = f.fingerprint { w.string(fp) } else { w.null() }
            w.endObject()
        }
        w.endArray()
    }

    /// `null` for every resource; with `--resource`, the ids asked for (sorted, so the order
    /// they were given in does not change the document), the resources planned and how many
    /// the manifests declare.
    static func writeSelection(of plan: Plan, into w: inout JSONWriter) {
        guard let selection = plan.manifest.selection else {
            w.null()
            return
        }
        w.beginObject()
        w.key("requested"); w.strings(selection.requested.sorted())
        w.key("selected"); w.strings(plan.entries.map(\.resource.id))
        w.key("declared"); w.int(Int64(plan.manifest.declaredResources.count))
        w.endObject()
    }

    static func writeCounts(_ c: PlanCounts, resources: Int?, proofs: CheckProofs? = nil, into w: inout JSONWriter) {
        w.beginObject()
        if let resources { w.key("resources"); w.int(Int64(resources)) }
        w.key("slices"); w.int(Int64(c.slices))
        w.key("fetch"); w.int(Int64(c.fetch))
        w.key("resume"); w.int(Int64(c.resume))
        w.key("refetch"); w.int(Int64(c.refetch))
        w.key("up_to_date"); w.int(Int64(c.upToDate))
        w.key("revalidate"); w.int(Int64(c.revalidate))
        w.key("deferred"); w.int(Int64(c.deferred))
        w.key("bytes_to_transfer"); w.int(c.bytesToTransfer)
        w.key("unsized_to_transfer"); w.int(Int64(c.unsizedToTransfer))
        w.key("size_only"); w.int(Int64(c.integrity.sizeOnly))
        w.key("unverified"); w.int(Int64(c.integrity.unverified))
        if let proofs {
            w.key("proven_by_hashing"); w.int(Int64(proofs.hashed))
            w.key("unchanged_since_proven"); w.int(Int64(proofs.recognized))
        }
        w.key("changes"); w.bool(c.hasChanges)
        w.endObject()
    }

    /// A file system the plan writes to: its roots, the bytes to fetch there and its room.
    static func writeSpace(_ need: SpaceNeed, into w: inout JSONWriter) {
        w.beginObject()
        w.key("roots"); w.strings(need.roots)
        w.key("bytes_to_transfer"); w.int(need.bytesToTransfer)
        w.key("unsized_to_transfer"); w.int(Int64(need.unsizedToTransfer))
        switch need.capacity {
        case .measured(let free, let margin):
            w.key("free_bytes"); w.int(free)
            w.key("margin_bytes"); w.int(margin)
            w.key("error"); w.null()
        case .unknown(let reason):
            w.key("free_bytes"); w.null()
            w.key("margin_bytes"); w.null()
            w.key("error"); w.string(reason)
        }
        w.key("fits"); w.bool(need.fits)
        w.endObject()
    }

    /// `afterSlice` is called after each slice's object (a streaming writer takes its output there).
    static func writeEntry<Failure: Error>(
        _ entry: Plan.Entry, into w: inout JSONWriter, afterSlice: (inout JSONWriter) throws(Failure) -> Void
    ) throws(Failure) {
        let r = entry.resource
        w.beginObject()
        w.key("id"); w.string(r.id)
        w.key("manifest"); w.string(r.location.description)
        w.key("output"); w.string(r.outputRoot)
        w.key("dest"); w.string(r.dest)
        // In the order they are tried; each one's own headers redacted as the resource's are.
        w.key("origins")
        w.beginArray()
        for origin in r.origins {
            w.beginObject()
            w.key("url"); w.string(origin.url)
            w.key("origin"); w.string((try? ParsedURL.parse(origin.url).get())?.origin ?? origin.url)
            w.key("per_host"); if let n = origin.perHost { w.int(Int64(n)) } else { w.null() }
            w.key("weight"); w.int(Int64(origin.weight))
            w.key("headers")
            writeHeaders(origin.headers, into: &w)
            w.endObject()
        }
        w.endArray()
        w.key("depends_on"); w.strings(r.dependsOn.map(\.id).sorted())
        w.key("counts")
        writeCounts(entry.counts, resources: nil, into: &w)
        w.deferral(entry.deferral)
        w.key("settings")
        writeSettings(r.settings, into: &w)
        w.key("slices")
        w.beginArray()
        for (s, d) in zip(r.slices, entry.decisions) {
            w.beginObject()
            w.key("path"); w.string(s.path)
            w.key("file"); w.string(r.filePath(of: s))
            w.key("identity"); w.string(r.identity(of: s))
            // A slice's own URLs beyond its first, as identities (a query may hold a signature).
            if s.ownURLCount > 1 { w.key("urls"); w.strings(s.urls.map { (try? ParsedURL.parse($0).get())?.identity ?? $0 }) }
            w.key("size"); if let size = s.size { w.int(size) } else { w.null() }
            w.key("digests")
            w.beginObject()
            for digest in s.digests { w.key(digest.algorithm.rawValue); w.string(digest.hex) }
            w.endObject()
            w.key("integrity"); w.string(s.integrity.rawValue)
            if !s.headers.isEmpty {
                w.key("headers")
                writeHeaders(s.headers, into: &w)
            }
            w.key("action"); w.string(d.action.rawValue)
            if let reason = d.reason { w.key("reason"); w.string(reason) }
            w.endObject()
            try afterSlice(&w)
        }
        w.endArray()
        w.endObject()
    }

    static func writeSettings(_ s: ResourceSettings, into w: inout JSONWriter) {
        w.beginObject()
        w.key("concurrency")
        w.beginObject()
        w.key("total"); w.int(Int64(s.concurrency.total))
        w.key("per_host"); w.int(Int64(s.concurrency.perHost))
        w.key("streams"); w.int(Int64(s.concurrency.streams))
        w.key("adaptive"); w.bool(s.concurrency.adaptive)
        w.endObject()
        w.key("retries")
        w.beginObject()
        w.key("attempts"); w.int(Int64(s.retries.attempts))
        w.key("backoff")
        w.beginObject()
        w.key("initial_ms"); w.int(s.retries.backoff.initial.wholeMilliseconds)
        w.key("max_ms"); w.int(s.retries.backoff.maximum.wholeMilliseconds)
        w.key("multiplier"); w.double(s.retries.backoff.multiplier)
        w.endObject()
        w.endObject()
        w.key("timeouts")
        w.beginObject()
        w.key("connect_ms"); w.int(s.timeouts.connect.wholeMilliseconds)
        w.key("request_ms"); w.int(s.timeouts.request.wholeMilliseconds)
        w.key("resource_ms"); w.int(s.timeouts.resource.wholeMilliseconds)
        w.endObject()
        w.key("network")
        w.beginObject()
        w.key("cellular"); w.bool(s.network.allowsCellular)
        w.key("discretionary"); w.bool(s.network.isDiscretionary)
        w.key("window"); if let window = s.network.window { w.string(window.description) } else { w.null() }
        w.key("timezone"); if let zone = s.network.timeZone { w.string(zone.identifier) } else { w.null() }
        w.key("not_before")
        if let instant = s.network.notBefore {
            w.string(RFC3339.utc(milliseconds: Int64((instant.timeIntervalSince1970 * 1000).rounded())))
        } else {
            w.null()
        }
        w.key("max_deferral_ms"); if let d = s.network.maxDeferral { w.int(d.wholeMilliseconds) } else { w.null() }
        w.endObject()
        w.key("max_size"); w.int(s.maxSize.value)
        w.key("ca_file"); if let ca = s.caFile { w.string(ca) } else { w.null() }
        w.key("headers")
        writeHeaders(s.headers, into: &w)
        w.endObject()
    }

    static func writeHeaders(_ headers: [HeaderField], into w: inout JSONWriter) {
        w.beginObject()
        for h in headers.sorted(by: { $0.name.lowercased() < $1.name.lowercased() }) {
            w.key(h.name)
            w.string(h.displayValue)
        }
        w.endObject()
    }
}
