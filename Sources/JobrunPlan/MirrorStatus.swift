public import JobrunCore
public import JobrunManifest
public import JobrunState
public import JobrunFiles
public import JobrunSystem

/// What `jobrun status` reports: per resource, how its slices stand against the mirror state
/// (``SliceStatus``), when it was last wholly proven and last fetched; the roots' stores; the
/// last runs. Built from stats and records only (``survey(_:states:runLimit:maxAgeMilliseconds:clock:)``):
/// no file is read.
public struct MirrorStatus: Sendable {
    /// One resource.
    public struct Entry: Sendable {
        public var resource: Resource
        /// One per slice, in the resource's order.
        public var statuses: [SliceStatus]
        public var counts: StatusCounts
        /// The oldest proof among its slices when every one is proven (the resource has been
        /// whole since then at least); `nil` otherwise, and for a resource without slices.
        public var fullyProvenAtMilliseconds: Int64?
        /// The oldest proof among its proven slices.
        public var oldestProofAtMilliseconds: Int64?
        /// The newest fetch its slices' records hold: when jobrun last fetched one of them.
        public var lastFetchedAtMilliseconds: Int64?

        /// Every slice proven, and none longer ago than the maximum age.
        public var isOK: Bool { counts.isAllProven && counts.olderThanMaxAge == 0 }
    }

    /// An output root and its store.
    public struct Root: Sendable, Hashable {
        public enum Store: String, Sendable, Hashable {
            /// Read.
            case inUse = "in_use"
            /// There is none: nothing was recorded there yet.
            case none
            /// There is one that cannot be used (damaged, newer, locked; said on stderr).
            case unusable
        }

        /// As the manifests name it.
        public var path: String
        public var store: Store

        public init(path: String, store: Store) {
            self.path = path
            self.store = store
        }
    }

    /// By resource id.
    public var entries: [Entry]
    /// The sum of the entries' counts.
    public var counts: StatusCounts
    /// The selected resources' output roots, sorted.
    public var roots: [Root]
    /// Newest first.
    public var runs: [StateStore.Run]
    /// When the status was taken (ms since the epoch): ages are counted from it.
    public var nowMilliseconds: Int64
    /// `--max-age`: a proof older than this counts against the status.
    public var maxAgeMilliseconds: Int64?

    /// The oldest proof among every proven slice.
    public var oldestProofAtMilliseconds: Int64? { entries.compactMap(\.oldestProofAtMilliseconds).min() }

    /// Every slice proven, and none longer ago than the maximum age: exit status 0.
    public var isOK: Bool { counts.isAllProven && counts.olderThanMaxAge == 0 }

    /// The status of `manifest`'s resources, from each slice's stat in resource order (`checks`
    /// against the declared size only, and the `identities` the stats gave), what the stores
    /// recorded (`records`, by root then path relative to it), the partial downloads found
    /// beside missing files (`partials`, alike), the roots' stores and runs. Pure.
    public init(
        manifest: Manifest, checks: [FileCheck], identities: [FileIdentity?], records: [String: [String: ProvenFile]],
        partials: [String: [String: PartialDownload.Found]], roots: [Root], runs: [StateStore.Run], nowMilliseconds: Int64,
        maxAgeMilliseconds: Int64?
    ) {
        self.roots = roots
        self.runs = runs
        self.nowMilliseconds = nowMilliseconds
        self.maxAgeMilliseconds = maxAgeMilliseconds
        var entries: [Entry] = []
        var total = StatusCounts()
        var k = 0
        for r in manifest.resources {
            var entry = Entry(resource: r, statuses: [], counts: StatusCounts())
            entry.statuses.reserveCapacity(r.slices.count)
            let known = records[r.outputRoot] ?? [:]
            for s in r.slices {
                defer { k += 1 }
                let path = r.relativePath(of: s)
                let record = known[path]
                let check = k < checks.count ? checks[k] : .missing
                let status = SliceStatus.classify(
                    check, identity: k < identities.count ? identities[k] : nil, record: record, size: s.size, digests: s.digests,
                    refresh: r.refresh(of: s), now: nowMilliseconds)
                entry.statuses.append(status)
                entry.counts.add(status)
                if let fetched = record?.fetchedAtMilliseconds {
                    entry.lastFetchedAtMilliseconds = max(entry.lastFetchedAtMilliseconds ?? fetched, fetched)
                }
                switch status {
                case .proven:
                    guard let proven = record?.provenAtMilliseconds else { break }
                    entry.oldestProofAtMilliseconds = min(entry.oldestProofAtMilliseconds ?? proven, proven)
                    if let maxAge = maxAgeMilliseconds, nowMilliseconds - proven > maxAge { entry.counts.olderThanMaxAge += 1 }
                case .missing:
                    if let partial = partials[r.outputRoot]?[path],
                        partial.continues(identity: r.identity(of: s), expectedSize: s.size, hasDigest: !s.digests.isEmpty)
                    {
                        entry.counts.resumable += 1
                    }
                case .changed, .moved, .unproven, .stale, .error:
                    break
                }
            }
            if entry.counts.isAllProven, !r.slices.isEmpty { entry.fullyProvenAtMilliseconds = entry.oldestProofAtMilliseconds }
            total += entry.counts
            entries.append(entry)
        }
        // Resource ids are unique across the manifests: the same manifests in any order give
        // the same report.
        self.entries = entries.sorted { $0.resource.id < $1.resource.id }
        counts = total
    }
}
