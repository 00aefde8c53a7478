import JobrunTestSupport
import Testing
@testable import JobrunManifest

/// The shard layout's rules, over generated dependency graphs: every slice on exactly one shard,
/// components whole, only lone heavy resources split, the same layout for the manifests in any
/// order, and loads within an even share plus the heaviest whole component.
@Suite struct ShardLayoutTests {
    typealias Unit = ShardLayout.Unit

    /// `resources` resources, each depending on up to two earlier ones (a DAG), with up to 40
    /// slices; sizes all declared, or some missing when `unsized`.
    static func units(seed: UInt64, resources: Int, unsized: Bool) -> [Unit] {
        var random = SeededGenerator(seed: seed)
        return (0..<resources).map { r in
            var dependsOn: [String] = []
            if r > 0 {
                for _ in 0..<Int.random(in: 0...2, using: &random) where Bool.random(using: &random) {
                    dependsOn.append("r\(Int.random(in: 0..<r, using: &random))")
                }
            }
            let count = Int.random(in: 0...40, using: &random)
            let paths = (0..<count).map { "d\($0 % 3)/s\($0).bin" }
            let sizes: [Int64?] = (0..<count).map { _ in
                unsized && Int.random(in: 0..<10, using: &random) == 0 ? nil : Int64.random(in: 0...1_000_000, using: &random)
            }
            return Unit(id: "r\(r)", dependsOn: dependsOn, paths: paths, sizes: sizes)
        }
    }

    /// Slice `(resource id, path)` → its shard, over every shard's selection.
    static func owners(_ layout: ShardLayout, _ units: [Unit]) -> [String: [Int]] {
        var owners: [String: [Int]] = [:]
        for k in 0..<layout.count {
            for (r, u) in units.enumerated() {
                for s in layout.slices(ofResource: r, sliceCount: u.paths.count, onShard: k) { owners[u.id + "|" + u.paths[s], default: []].append(k) }
            }
        }
        return owners
    }

    @Test(arguments: 0..<60)
    func everySliceOnExactlyOneShardAndComponentsWhole(seed: Int) {
        let count = seed % 7 + 1
        let units = Self.units(seed: UInt64(seed), resources: seed % 23 + 1, unsized: seed % 4 == 0)
        let layout = ShardLayout(units: units, count: count)
        let owners = Self.owners(layout, units)
        let all = units.flatMap { u in u.paths.map { u.id + "|" + $0 } }
        #expect(owners.count == all.count && owners.values.allSatisfy { $0.count == 1 }, "seed \(seed)")
        // A component is on one shard; only a lone resource splits.
        for members in ShardLayout.components(units) {
            let shards = Set(members.map { layout.placements[$0] })
            if members.count > 1 {
                #expect(shards.count == 1 && !shards.contains(.split), "seed \(seed): \(members)")
            }
        }
        // Loads are what the shards were given, and within an even share plus the heaviest whole
        // component (LPT's bound).
        func weight(_ u: Unit) -> Int64 { layout.isByBytes ? u.sizes.reduce(0) { $0 + ($1 ?? 0) } : Int64(u.paths.count) }
        let total = units.reduce(Int64(0)) { $0 + weight($1) }
        #expect(layout.loads.reduce(0, +) == total, "seed \(seed)")
        var heaviestWhole: Int64 = 0
        for members in ShardLayout.components(units) where layout.placements[members[0]] != .split {
            heaviestWhole = max(heaviestWhole, members.reduce(0) { $0 + weight(units[$1]) })
        }
        let splitMax = units.indices.filter { layout.placements[$0] == .split }.map { weight(units[$0]) }.max() ?? 0
        #expect(layout.loads.max() ?? 0 <= total / Int64(count) + heaviestWhole + splitMax, "seed \(seed): \(layout.loads)")
    }

    /// The manifests in another order give every slice the same shard.
    @Test(arguments: 0..<20)
    func theOrderOfTheManifestsChangesNothing(seed: Int) {
        let units = Self.units(seed: UInt64(seed) + 1_000, resources: 12, unsized: false)
        var random = SeededGenerator(seed: UInt64(seed))
        let shuffled = units.shuffled(using: &random)
        #expect(Self.owners(ShardLayout(units: units, count: 4), units) == Self.owners(ShardLayout(units: shuffled, count: 4), shuffled))
    }

    /// One large resource alone is spread over every shard by its slices' identities, evenly
    /// enough; a slice keeps its shard when others are added.
    @Test func aLoneLargeResourceIsSpreadBySliceIdentity() {
        let paths = (0..<10_000).map { "seg/\($0).ts" }
        let big = Unit(id: "video", dependsOn: [], paths: paths, sizes: paths.map { _ in 1_000 })
        let layout = ShardLayout(units: [big], count: 4)
        #expect(layout.placements == [.split])
        #expect(layout.loads.allSatisfy { abs($0 - 2_500_000) < 150_000 }, "\(layout.loads)")
        let grown = Unit(id: "video", dependsOn: [], paths: paths + ["seg/extra.ts"], sizes: paths.map { _ in 1_000 } + [1_000])
        let before = Self.owners(layout, [big])
        let after = Self.owners(ShardLayout(units: [grown], count: 4), [grown])
        #expect(before.allSatisfy { after[$0.key] == $0.value })
    }

    /// Whole components go heaviest first to the least loaded shard; ties by id and index.
    @Test func wholeComponentsAreBalancedByBytes() {
        let units = [
            Unit(id: "a", dependsOn: [], paths: ["x"], sizes: [10]),
            Unit(id: "b", dependsOn: ["a"], paths: ["x"], sizes: [50]),
            Unit(id: "c", dependsOn: [], paths: ["x"], sizes: [40]),
            Unit(id: "d", dependsOn: [], paths: ["x"], sizes: [30]),
            Unit(id: "e", dependsOn: [], paths: ["x"], sizes: [30]),
        ]
        let layout = ShardLayout(units: units, count: 2)
        // {a, b} 60 → 0; c 40 → 1; d 30 → 1 (70); e 30 → 0 (90)... the least loaded each time.
        #expect(layout.placements == [.whole(shard: 0), .whole(shard: 0), .whole(shard: 1), .whole(shard: 1), .whole(shard: 0)])
        #expect(layout.loads == [90, 70] && layout.isByBytes)
        // One unsized slice anywhere: counts instead.
        var unsized = units
        unsized[4].sizes = [nil]
        #expect(!ShardLayout(units: unsized, count: 2).isByBytes)
    }

    /// A resource with hooks stays whole, however large: its hooks tell of all of it.
    @Test func aResourceWithHooksIsNeverSplit() {
        let paths = (0..<100).map { "s\($0)" }
        let hooked = Unit(id: "site", dependsOn: [], paths: paths, sizes: paths.map { _ in 10 }, isSplittable: false)
        let layout = ShardLayout(units: [hooked, Unit(id: "small", dependsOn: [], paths: ["x"], sizes: [1])], count: 4)
        #expect(layout.placements == [.whole(shard: 0), .whole(shard: 1)])
    }

    @Test func oneShardHoldsEverything() {
        let units = Self.units(seed: 7, resources: 9, unsized: false)
        let layout = ShardLayout(units: units, count: 1)
        #expect(layout.placements.allSatisfy { $0 == .whole(shard: 0) })
    }
}
