import JobrunCore
public import JobrunManifest

extension Plan {
    /// The plan summary line, a stable contract:
    /// `Plan: 412 to fetch, 3 to resume, 2 to refetch (26.3 MiB), 188 up to date, 0 deferred.`
    /// The parenthesis is what the fetches, resumes and refetches transfer together
    /// (``transferText(bytes:unsized:slices:)``), left out when there is nothing to transfer.
    /// When some slices declare no digest, ``IntegrityCounts/summaryClause`` goes before the
    /// period: `…, 0 deferred; 6 without digests (2 size only, 4 unverified).` Deferred slices
    /// are broken down by cause (``deferredBreakdown``): `…, 12 deferred (metered 8, window 4).`
    /// Slices to ask their origin again (`refresh:`) follow the up-to-date ones when there are
    /// any: `…, 188 up to date, 12 to revalidate, 0 deferred.`
    public var summaryLine: String {
        let transfers = counts.fetch + counts.resume + counts.refetch
        let bytes = transfers == 0 ? "" : " (\(Self.transferText(bytes: counts.bytesToTransfer, unsized: counts.unsizedToTransfer, slices: transfers)))"
        let revalidate = counts.revalidate == 0 ? "" : ", \(counts.revalidate) to revalidate"
        return
            "Plan: \(counts.fetch) to fetch, \(counts.resume) to resume, \(counts.refetch) to refetch\(bytes), \(counts.upToDate) up to date\(revalidate), \(counts.deferred) deferred\(deferredBreakdown)\(pruneClause)\(counts.integrity.summaryClause)."
    }

    /// `; 3 to prune` (`, over --max-delete: none would be`) when a prune is asked for and has files
    /// to remove; nothing otherwise.
    var pruneClause: String {
        guard let prune, !prune.files.isEmpty else { return "" }
        return "; \(prune.files.count) to prune" + (prune.refusal == nil ? "" : " (over --max-delete \(prune.limit): none would be)")
    }

    /// What `slices` transfers of which `unsized` declare no size come to: `26.3 MiB`,
    /// `26.3 MiB + 6 of unknown size`, or `size unknown` when none declares one.
    static func transferText(bytes: Int64, unsized: Int, slices: Int) -> String {
        if unsized >= slices { return "size unknown" }
        return "\(ByteCount(bytes))\(unsized == 0 ? "" : " + \(unsized) of unknown size")"
    }

    /// Deferred slices by cause, ` (metered 8, window 4)`, or nothing when none is deferred. A
    /// resource held back for two causes counts under each.
    public var deferredBreakdown: String {
        var slices: [DeferralReason: Int] = [:]
        for entry in entries {
            guard let deferral = entry.deferral else { continue }
            for reason in deferral.reasons { slices[reason, default: 0] += entry.counts.deferred }
        }
        return DeferralReason.breakdown(slices)
    }

    /// The plan as people read it: a line per resource, a line per slice with `verbose` (marked
    /// `[size only]` or `[unverified]` when it declares no digest) and a line per origin the run
    /// will send requests to (``OriginUse/line``), a line per file system written to
    /// (``SpaceNeed/line``), and the summary; with `problemsOnly`, only the file systems short of
    /// space, and the summary.
    public func renderText(verbose: Bool, problemsOnly: Bool = false) -> String {
        var out = ""
        for entry in entries where !problemsOnly {
            let r = entry.resource
            let c = entry.counts
            let place = r.folderPath
            var parts: [String] = []
            if c.fetch > 0 { parts.append("\(c.fetch) to fetch") }
            if c.resume > 0 { parts.append("\(c.resume) to resume") }
            if c.refetch > 0 { parts.append("\(c.refetch) to refetch") }
            if c.upToDate > 0 { parts.append("\(c.upToDate) up to date") }
            if c.revalidate > 0 { parts.append("\(c.revalidate) to revalidate") }
            if c.deferred > 0 { parts.append("\(c.deferred) deferred") }
            let bytes =
                c.fetch + c.resume + c.refetch > 0
                ? " (\(Self.transferText(bytes: c.bytesToTransfer, unsized: c.unsizedToTransfer, slices: c.fetch + c.resume + c.refetch)))" : ""
            out += "\(c.hasChanges ? "~" : c.deferred > 0 ? "?" : "=") \(r.id) -> \(place)/: \(parts.joined(separator: ", "))\(bytes)\n"
            if r.origins.count > 1 { out += "    origins, in order: \(r.origins.map(\.url).joined(separator: ", "))\n" }
            if let catalog = catalogs.first(where: { $0.resource == r.id }) { out += "    \(catalog.line)\n" }
            if let deferral = entry.deferral { out += "    \(deferral.message)\n" }
            for cause in entry.overridden { out += "    warning: deferred for longer than max_deferral, runs despite: \(cause.detail)\n" }
            guard verbose else { continue }
            for (s, d) in zip(r.slices, entry.decisions) {
                let size = s.size.map { " (\(ByteCount($0)))" } ?? ""
                let reason = d.reason.map { ": \($0)" } ?? ""
                let integrity = s.integrity
                let marker = integrity == .digest ? "" : " [\(integrity.word)]"
                out += "    \(Self.sigil(d.action)) \(s.path)\(size)\(marker)\(reason)\n"
            }
        }
        for catalog in catalogs where catalog.state == .refused { out += "! \(catalog.resource): refused: \(catalog.error ?? "")\n" }
        if let prune, !problemsOnly {
            for file in prune.files where verbose || file.isForeign {
                out += "- \(file.file): to prune\(file.isForeign ? " (not jobrun's: --prune-foreign)" : "") [\(file.resource)]\n"
            }
            if let refusal = prune.refusal { out += "warning: prune: \(refusal)\n" }
        }
        if verbose && !problemsOnly { for use in origins { out += use.line + "\n" } }
        for need in space where !problemsOnly || need.shortage != nil { out += need.line + "\n" }
        out += summaryLine + "\n"
        return out
    }

    /// `+` fetch, `>` resume, `~` refetch, `=` up to date, `^` revalidate, `?` deferred.
    public static func sigil(_ action: SliceAction) -> String {
        switch action {
        case .fetch: "+"
        case .resume: ">"
        case .refetch: "~"
        case .upToDate: "="
        case .revalidate: "^"
        case .deferred: "?"
        }
    }
}

extension Manifest {
    /// The dependency graph in Graphviz DOT: an edge `a -> b` means b waits for a.
    public func renderDOT() -> String {
        var out = "digraph jobrun {\n    rankdir=LR;\n    node [shape=box];\n"
        let sorted = resources.sorted { $0.id < $1.id }
        for r in sorted {
            let unsized = r.slices.count { $0.size == nil }
            let size = r.slices.isEmpty ? "\(ByteCount(0))" : Plan.transferText(bytes: r.declaredBytes, unsized: unsized, slices: r.slices.count)
            out += "    \(Self.dotQuote(r.id)) [label=\(Self.dotQuote("\(r.id)\n\(r.slices.count) slice\(r.slices.count == 1 ? "" : "s"), \(size)"))];\n"
        }
        for r in sorted {
            for dep in r.dependsOn.map(\.id).sorted() {
                out += "    \(Self.dotQuote(dep)) -> \(Self.dotQuote(r.id));\n"
            }
        }
        out += "}\n"
        return out
    }

    static func dotQuote(_ s: String) -> String {
        var out = "\""
        for ch in s {
            switch ch {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            default: out.append(ch)
            }
        }
        return out + "\""
    }
}
