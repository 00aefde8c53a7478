import JobrunCore

/// Which of `count` shards each slice belongs to (`--shard K/N`, docs/sharding.md): a pure
/// function of the manifests, the same on every machine that reads them, whatever the order in
/// which the manifests were given.
///
/// 1. Resources joined by `depends_on` (either way, transitively) form a component, and a
///    component never splits: a dependent resource runs where its dependency runs.
/// 2. Weights are declared bytes; when any slice declares no size, every weight is a count of
///    slices instead (one unit for all).
/// 3. A component of one resource (no dependency, no dependent, no hook: a hook tells of the
///    whole resource) heavier than an even share (total / count) is split: each of its slices
///    goes to the shard its identity hashes to (FNV-1a of the resource id and the slice path,
///    mixed), so that a slice stays on its shard while the resource stays split and the count
///    stays the same.
/// 4. The other components go whole, heaviest first (ties: the smallest resource id), each to the
///    least loaded shard so far (ties: the lowest index), the split resources' slices counted.
///
/// Every slice thus belongs to exactly one shard, and no shard carries more than an even share
/// plus its heaviest whole component and what the hash gives it of the split resources beyond
/// their even shares.
public struct ShardLayout: Sendable, Hashable {
    /// What the layout is made from: a resource's id, the ids it depends on, and its slices.
    public struct Unit: Sendable, Hashable {
        public var id: String
        public var dependsOn: [String]
        public var paths: [String]
        public var sizes: [Int64?]
        /// May be spread over the shards when it is alone and large (not with hooks).
        public var isSplittable: Bool

        public init(id: String, dependsOn: [String], paths: [String], sizes: [Int64?], isSplittable: Bool = true) {
            self.id = id
            self.dependsOn = dependsOn
            self.paths = paths
            self.sizes = sizes
            self.isSplittable = isSplittable
        }
    }

    /// Where a resource goes.
    public enum Placement: Sendable, Hashable {
        /// Every slice on this shard.
        case whole(shard: Int)
        /// Each slice on the shard of its identity's hash.
        case split
    }

    public let count: Int
    /// By resource, in the order given.
    public let placements: [Placement]
    /// Each shard's weight: declared bytes, or slices when ``isByBytes`` is false.
    public let loads: [Int64]
    public let isByBytes: Bool
    /// By split resource, the shard of each of its slices, hashed once.
    private let splitShards: [Int: [UInt32]]

    /// The layout of `units` over `count` shards (at least 1).
    public init(units: [Unit], count: Int) {
        let count = max(1, count)
        self.count = count
        let isByBytes = units.allSatisfy { $0.sizes.allSatisfy { $0 != nil } } && units.contains { $0.sizes.contains { ($0 ?? 0) > 0 } }
        self.isByBytes = isByBytes
        func weight(_ u: Unit) -> Int64 {
            isByBytes ? u.sizes.reduce(Int64(0)) { $0.saturatingAdding($1 ?? 0) } : Int64(u.paths.count)
        }
        let components = Self.components(units)
        let total = units.reduce(Int64(0)) { $0.saturatingAdding(weight($1)) }
        let share = total / Int64(count)

        var placements = [Placement](repeating: .whole(shard: 0), count: units.count)
        var loads = [Int64](repeating: 0, count: count)
        var splitShards: [Int: [UInt32]] = [:]
        var whole: [(weight: Int64, key: String, members: [Int])] = []
        for members in components {
            let w = members.reduce(Int64(0)) { $0.saturatingAdding(weight(units[$1])) }
            if members.count == 1, count > 1, w > share, let r = members.first, units[r].isSplittable {
                placements[r] = .split
                let unit = units[r]
                var shards = [UInt32](repeating: 0, count: unit.paths.count)
                for s in unit.paths.indices {
                    let k = Self.shard(ofSlice: unit.paths[s], resource: unit.id, count: count)
                    shards[s] = UInt32(k)
                    loads[k] = loads[k].saturatingAdding(isByBytes ? unit.sizes[s] ?? 0 : 1)
                }
                splitShards[r] = shards
            } else {
                whole.append((w, members.map { units[$0].id }.min() ?? "", members))
            }
        }
        whole.sort { ($0.weight, $1.key) > ($1.weight, $0.key) }
        for component in whole {
            var target = 0
            for k in loads.indices where loads[k] < loads[target] { target = k }
            loads[target] = loads[target].saturatingAdding(component.weight)
            for r in component.members { placements[r] = .whole(shard: target) }
        }
        self.placements = placements
        self.loads = loads
        self.splitShards = splitShards
    }

    /// The shard of slice `path` of resource `resource`, a split one.
    public static func shard(ofSlice path: String, resource: String, count: Int) -> Int {
        Int(SplitMix64.mix(identityHash(resource, path).value) % UInt64(max(1, count)))
    }

    /// The slices (by index) of resource `r`, which has `sliceCount` of them, on shard `index`.
    public func slices(ofResource r: Int, sliceCount: Int, onShard index: Int) -> [Int] {
        switch placements[r] {
        case .whole(let shard):
            return shard == index ? Array(0..<sliceCount) : []
        case .split:
            let shards = splitShards[r] ?? []
            return shards.indices.filter { shards[$0] == UInt32(index) }
        }
    }

    // MARK: Helpers

    /// Resources joined by `depends_on`, either way: each component's members in the order given.
    static func components(_ units: [Unit]) -> [[Int]] {
        var parent = Array(units.indices)
        func root(_ i: Int) -> Int {
            var i = i
            while parent[i] != i {
                parent[i] = parent[parent[i]]
                i = parent[i]
            }
            return i
        }
        var indexByID: [String: Int] = [:]
        for (i, u) in units.enumerated() where indexByID[u.id] == nil { indexByID[u.id] = i }
        for (i, u) in units.enumerated() {
            for d in u.dependsOn {
                guard let j = indexByID[d] else { continue }
                let (a, b) = (root(i), root(j))
                if a != b { parent[max(a, b)] = min(a, b) }
            }
        }
        var members: [Int: [Int]] = [:]
        var order: [Int] = []
        for i in units.indices {
            let r = root(i)
            if members[r] == nil { order.append(r) }
            members[r, default: []].append(i)
        }
        return order.map { members[$0] ?? [] }
    }

    /// One slice's part of the manifests' fingerprint (``ShardSelection/planFingerprint``): its
    /// identity, its declared size and digests.
    public static func fingerprint(resource: String, path: String, size: Int64?, digests: [(algorithm: String, bytes: [UInt8])]) -> UInt64 {
        var hash = identityHash(resource, path)
        withUnsafeBytes(of: (size ?? -1).littleEndian) { hash.add($0) }
        for d in digests {
            hash.add(d.algorithm)
            hash.add(d.bytes)
        }
        return SplitMix64.mix(hash.value)
    }

    /// FNV-1a of the resource id, a NUL, and the path's UTF-8.
    static func identityHash(_ resource: String, _ path: String) -> FNV1a {
        var hash = FNV1a()
        hash.add(resource)
        hash.add(0)
        hash.add(path)
        return hash
    }
}
