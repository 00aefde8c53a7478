import JobrunCore
import JobrunManifest
import JobrunState
import JobrunSystem
import JobrunTestSupport
import Testing
@testable import JobrunPlan

/// What a prune removes: a pure rule over the manifests, the records and what is on disk (the
/// lookups faked here), and the limit that makes it all or nothing.
@Suite struct PrunePlanTests {
    /// `m.yaml` of resources (flow mappings) below `dir`, every resource writing to `dir/mirror`.
    static func manifest(_ resources: [String], in dir: TemporaryDirectory) throws -> Manifest {
        _ = try dir.write(file: "m.yaml", contents: "version: 1\nresources:\n" + resources.map { "  - \($0)\n" }.joined())
        return try PlannerTests.manifestWithMirror(in: dir)
    }

    /// The identity every fake file has, and another one.
    static let file = FileIdentity(device: 1, inode: 2, size: 3, mtimeNanoseconds: 4, ctimeNanoseconds: 5)
    static let other = FileIdentity(device: 1, inode: 9, size: 3, mtimeNanoseconds: 4, ctimeNanoseconds: 5)

    static func recorded(_ pairs: [(String, String, Bool)]) -> [StateStore.RecordedFile] {
        pairs.map { StateStore.RecordedFile(path: $0.0, resource: $0.1, wasFetched: $0.2, file: file) }
    }

    @Test func onlyUnnamedFilesJobrunFetchedForAPrunedResource() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let manifest = try Self.manifest(
            [
                "{id: r, base_url: 'https://a.example/', dest: r, slices: [{path: kept.bin}, {path: sub/kept.bin}]}",
                "{id: s, base_url: 'https://a.example/', dest: s, slices: [{path: x.bin}]}",
            ], in: dir)
        let records = Self.recorded([
            ("r/kept.bin", "r", true), ("r/gone.bin", "r", true), ("r/found.bin", "r", false), ("r/deleted.bin", "r", true),
            ("r/s-owned.bin", "s", true), ("s/dropped.bin", "s", true), ("elsewhere/a.bin", "r", true), ("r/replaced.bin", "r", true),
        ])
        let root = manifest.resources[0].outputRoot
        func make(_ options: PrunePlan.Options) -> PrunePlan {
            PrunePlan.make(
                manifest, options: options, recorded: { $0 == root ? records : nil },
                identity: { _, path in path == "r/deleted.bin" ? nil : path == "r/replaced.bin" ? Self.other : Self.file },
                foreign: { _, folders, expected in
                    folders.contains("r") ? ["r/kept.bin", "r/stray.txt", "r/found.bin"].filter { !expected.contains($0) } : []
                })
        }
        // `prune: true` on no resource, and no --prune: nothing to prune.
        #expect(make(PrunePlan.Options()).files.isEmpty && make(PrunePlan.Options()).resources.isEmpty)
        let all = make(PrunePlan.Options(all: true))
        // s's dropped file is s's; a record of r outside r's folder, one gone, one found there, one
        // replaced by another file since, and one of another resource in r's folder are never r's to prune.
        #expect(all.files.map(\.path) == ["r/gone.bin", "s/dropped.bin"], "\(all.files)")
        #expect(all.resources == ["r", "s"] && all.total == 3 + 2 && all.refusal == nil)
        let foreign = make(PrunePlan.Options(all: true, foreign: true))
        // Foreign ones first: the record jobrun only found, the one replaced, and the file nothing records.
        #expect(foreign.files.map(\.path) == ["r/found.bin", "r/replaced.bin", "r/stray.txt", "r/gone.bin", "s/dropped.bin"], "\(foreign.files)")
        #expect(foreign.files.map(\.isForeign) == [true, true, true, false, false])
    }

    @Test func aNestedFolderAndAShardKeepWhatIsNotTheirs() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let whole = try Self.manifest(
            [
                "{id: top, base_url: 'https://a.example/', dest: '', prune: true, slices: [{path: index.html}]}",
                "{id: inner, base_url: 'https://a.example/', dest: inner, prune: true, slices: [{path: a.bin}]}",
            ], in: dir)
        let root = whole.resources[0].outputRoot
        let plan = PrunePlan.make(
            whole, options: PrunePlan.Options(foreign: true), recorded: { _ in [] }, identity: { _, _ in Self.file },
            foreign: { _, folders, expected in
                // The root's walk sees inner's folder too; a file there belongs to inner.
                (folders.contains("") ? ["inner/stray.bin", "top-stray.bin", "inner/a.bin", "index.html"] : ["inner/stray.bin", "inner/a.bin"])
                    .filter { !expected.contains($0) }
            })
        #expect(plan.files.map { "\($0.resource):\($0.path)" } == ["inner:inner/stray.bin", "top:top-stray.bin"], "\(plan.files)")
        #expect(plan.files.allSatisfy { $0.root == root })

        // A resource split over two shards: each shard prunes only the paths the layout puts on it.
        let paths = (0..<40).map { "{path: f\($0).bin}" }.joined(separator: ", ")
        let split = try Self.manifest(["{id: big, base_url: 'https://a.example/', dest: big, prune: true, slices: [\(paths)]}"], in: dir)
        let dropped = (40..<80).map { ("big/f\($0).bin", "big", true) }
        var owners: [[String]] = []
        for index in 0..<2 {
            let shard = split.sharding(ShardSpec(index: index, count: 2))
            let p = PrunePlan.make(
                shard, options: PrunePlan.Options(limit: .count(1_000)), recorded: { _ in Self.recorded(dropped) }, identity: { _, _ in Self.file },
                foreign: { _, _, _ in [] })
            owners.append(p.files.map(\.path))
        }
        #expect(Set(owners[0]).isDisjoint(with: owners[1]) && owners[0].count + owners[1].count == 40, "\(owners)")
        #expect(!owners[0].isEmpty && !owners[1].isEmpty)
    }

    /// Another output root nested in a pruned one, and the `.jobrun` folders: never pruned, whatever
    /// a record or a walk says.
    @Test func aNestedRootAndStateFoldersAreNeverPruned() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        _ = try dir.write(
            file: "m.yaml",
            contents: """
                version: 1
                defaults: {output: mirror}
                resources:
                  - {id: outer, base_url: 'https://a.example/', dest: '', prune: true, slices: [{path: index.html}]}

                """)
        _ = try dir.write(
            file: "n.yaml",
            contents: """
                version: 1
                defaults: {output: mirror/sub}
                resources:
                  - {id: inner, base_url: 'https://a.example/', dest: c, slices: [{path: c.bin}]}

                """)
        var options = ManifestLoader.Options()
        options.currentDirectory = dir.path
        let loaded = ManifestLoader.load(paths: [dir.path("m.yaml"), dir.path("n.yaml")], options: options)
        let manifest = try #require(loaded.manifest, "\(loaded.diagnostics)")
        let outer = manifest.resources[0].outputRoot
        #expect(PrunePlan.relative(manifest.resources[1].outputRoot, below: outer) == "sub", "\(manifest.resources.map(\.outputRoot))")
        let plan = PrunePlan.make(
            manifest, options: PrunePlan.Options(foreign: true, limit: .count(100)),
            recorded: { $0 == outer ? Self.recorded([("sub/c/c.bin", "outer", true), ("sub/c/old.bin", "outer", true)]) : [] },
            identity: { _, _ in Self.file },
            foreign: { _, _, expected in
                ["sub/c/c.bin", "sub/.jobrun/state.sqlite", ".jobrun/x", "a/.jobrun/y", "stray.txt"].filter { !expected.contains($0) }
            })
        #expect(plan.files.map(\.path) == ["stray.txt"], "\(plan.files)")
    }

    /// A root around the pruned one names files inside it: they stay.
    @Test func aRootAroundThePrunedOneKeepsWhatItNames() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        _ = try dir.write(
            file: "m.yaml",
            contents:
                "version: 1\ndefaults: {output: mirror}\nresources:\n  - {id: outer, base_url: 'https://a.example/', dest: '', slices: [{path: sub/x.bin}]}\n")
        _ = try dir.write(
            file: "n.yaml",
            contents:
                "version: 1\ndefaults: {output: mirror/sub}\nresources:\n  - {id: inner, base_url: 'https://a.example/', dest: '', prune: true, slices: [{path: y.bin}]}\n"
        )
        var options = ManifestLoader.Options()
        options.currentDirectory = dir.path
        let loaded = ManifestLoader.load(paths: [dir.path("m.yaml"), dir.path("n.yaml")], options: options)
        let manifest = try #require(loaded.manifest, "\(loaded.diagnostics)")
        let plan = PrunePlan.make(
            manifest, options: PrunePlan.Options(foreign: true, limit: .count(100)), recorded: { _ in [] }, identity: { _, _ in Self.file },
            foreign: { _, _, expected in ["x.bin", "z.bin"].filter { !expected.contains($0) } }, currentDirectory: dir.path)
        #expect(plan.files.map(\.path) == ["z.bin"], "\(plan.files)")
    }

    @Test func theLimitIsAllOrNothing() {
        #expect(DeleteLimit(parsing: "25%") == .percent(25) && DeleteLimit(parsing: "12.5%") == .percent(12.5))
        #expect(DeleteLimit(parsing: "100") == .count(100) && DeleteLimit(parsing: "0") == .count(0))
        for bad in ["", "%", "-1", "+3", "101%", "-5%", "nan%", "1e3", "ten"] { #expect(DeleteLimit(parsing: bad) == nil, "\(bad)") }
        #expect(DeleteLimit.percent(50).allowance(of: 5) == 2 && DeleteLimit.percent(100).allowance(of: 5) == 5)
        #expect(DeleteLimit.count(3).allowance(of: 1_000) == 3 && DeleteLimit.standard == .percent(50))
        let file = PruneFile(resource: "r", root: "m", path: "r/a", isForeign: false)
        var plan = PrunePlan(files: [file, file, file], resources: ["r"], total: 6, limit: .percent(50))
        #expect(plan.refusal == nil)
        plan.total = 5
        #expect(plan.refusal == "3 files to prune, more than --max-delete 50% allows (2 of the 5 files of the pruned resources); nothing was pruned")
        plan.limit = .count(2)
        #expect(plan.refusal == "3 files to prune, more than --max-delete 2 allows (2); nothing was pruned")
    }
}
