import JobrunCore

/// What `--shard K/N` kept of the manifests (``ShardLayout``): the resources placed whole on this
/// shard and this shard's slices of the split ones.
public struct ShardSelection: Sendable {
    public var spec: ShardSpec
    /// The resources before sharding, every slice of them: a file of another shard's slice is no
    /// stranger where shards share an output root (`verify --extra`).
    public var declared: [Resource]
    /// Resources split over the shards with slices on this one (the others here are whole).
    public var splitCount: Int
    /// Slices on this shard, and in all.
    public var sliceCount: Int
    public var totalSliceCount: Int
    /// This shard's weight and all shards' together: bytes, or slices when ``isByBytes`` is false.
    public var load: Int64
    public var totalLoad: Int64
    public var isByBytes: Bool
    /// What every shard of one plan agrees on: a fingerprint of every slice's identity, size and
    /// digests (their order aside), 16 hex digits. `report merge` refuses shards that differ.
    public var planFingerprint: String
}

extension Manifest {
    /// The manifest narrowed to shard `spec` of its resources (already narrowed by `--resource`
    /// when that was given): the resources placed on it whole, and its slices of those split over
    /// every shard, in load order. Resources with no slice here are left out.
    public func sharding(_ spec: ShardSpec) -> Manifest {
        let units = resources.map { r in
            ShardLayout.Unit(
                id: r.id, dependsOn: r.dependsOn.map(\.id), paths: r.slices.map(\.path), sizes: r.slices.map(\.size),
                // A resource with hooks, or published atomically (one stage, one switch), stays whole.
                isSplittable: r.settings.hooks.commands.isEmpty && !r.settings.publish.isAtomic)
        }
        let layout = ShardLayout(units: units, count: spec.count)
        var narrowed = self
        narrowed.resources = []
        var split = 0
        for (r, resource) in resources.enumerated() {
            let kept = layout.slices(ofResource: r, sliceCount: resource.slices.count, onShard: spec.index)
            guard !kept.isEmpty || layout.placements[r] == .whole(shard: spec.index) else { continue }
            var part = resource
            if kept.count != resource.slices.count { part.slices = kept.map { resource.slices[$0] } }
            if layout.placements[r] == .split { split += 1 }
            narrowed.resources.append(part)
        }
        narrowed.shard = ShardSelection(
            spec: spec, declared: resources, splitCount: split, sliceCount: narrowed.sliceCount,
            totalSliceCount: sliceCount, load: layout.loads[spec.index], totalLoad: layout.loads.reduce(0) { $0.saturatingAdding($1) },
            isByBytes: layout.isByBytes, planFingerprint: planFingerprint(count: spec.count))
        return narrowed
    }

    /// 16 hex digits every shard of one plan shares: a sum (so the order of the manifests changes
    /// nothing) of every slice's identity, size and digests, and of what else the layout depends
    /// on: each resource's dependencies, hooks and atomic publication, the count, and the jobrun that made it.
    func planFingerprint(count: Int) -> String {
        var fingerprint = ShardLayout.fingerprint(resource: "jobrun", path: JobrunVersion.current, size: Int64(count), digests: [])
        for r in resources {
            let edges =
                r.dependsOn.map(\.id).sorted().joined(separator: "\u{0}") + (r.settings.hooks.commands.isEmpty ? "" : "\u{0}hooks")
                + (r.settings.publish.isAtomic ? "\u{0}atomic" : "")
            fingerprint &+= ShardLayout.fingerprint(resource: r.id, path: "\u{0}" + edges, size: nil, digests: [])
            for s in r.slices {
                fingerprint &+= ShardLayout.fingerprint(
                    resource: r.id, path: s.path, size: s.size, digests: s.digests.map { ($0.algorithm.rawValue, $0.bytes) })
            }
        }
        let hex = String(fingerprint, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }
}
