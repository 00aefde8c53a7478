import JobrunCore
public import JobrunManifest

/// How the slices a catalog yields changed from one version to the next.
public enum CatalogChanges {
    /// New paths, paths gone, and paths whose size or digests differ.
    public static func between(_ before: [Slice], _ after: [Slice]) -> CatalogReport.Changes {
        var old: [String: Int] = [:]
        old.reserveCapacity(before.count)
        for (i, s) in before.enumerated() { old[s.path] = i }
        var changes = CatalogReport.Changes()
        var seen = 0
        for s in after {
            guard let i = old[s.path] else {
                changes.added += 1
                continue
            }
            seen += 1
            if before[i].size != s.size || before[i].digests != s.digests { changes.changed += 1 }
        }
        changes.removed = before.count - seen
        return changes
    }
}
