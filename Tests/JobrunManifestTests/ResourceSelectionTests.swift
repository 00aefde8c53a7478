import JobrunCore
import Testing
@testable import JobrunManifest

/// `Manifest.selecting(ids:)`: the resources asked for and everything they depend on, in the
/// manifests' order; every unknown id named.
@Suite struct ResourceSelectionTests {
    /// A manifest of resources given as `id: [dependencies]`, in this order.
    static func manifest(_ resources: [(id: String, dependsOn: [String])]) -> Manifest {
        let location = JobrunCore.SourceLocation(file: "m.yaml", line: 1, column: 1)
        return Manifest(
            files: [ManifestFile(path: "m.yaml", byteCount: 1, fingerprint: "f")],
            resources: resources.map { id, dependencies in
                Resource(
                    id: id, location: location, manifestFile: "m.yaml", baseURL: "https://example.com/", outputRoot: "mirror",
                    dest: id, dependsOn: dependencies.map { .init(id: $0, location: location) }, checksum: nil,
                    settings: ResourceSettings(), slices: [Slice(path: "\(id).bin", location: location)])
            })
    }

    /// The ids `ids` select, in order; `nil` (and a test failure) when the selection fails.
    static func selected(_ manifest: Manifest, _ ids: [String], sourceLocation: Testing.SourceLocation = #_sourceLocation) -> [String]? {
        do {
            return try manifest.selecting(ids: ids).get().resources.map(\.id)
        } catch {
            Issue.record("unexpected failure: \(error)", sourceLocation: sourceLocation)
            return nil
        }
    }

    @Test func aChainIsFollowedToItsEnd() {
        let chain = Self.manifest([("a", []), ("b", ["a"]), ("c", ["b"]), ("d", ["c"])])
        #expect(Self.selected(chain, ["c"]) == ["a", "b", "c"])
        #expect(Self.selected(chain, ["a"]) == ["a"])
        #expect(Self.selected(chain, ["d"]) == ["a", "b", "c", "d"])
    }

    @Test func aDiamondSelectsItsSharedBaseOnce() {
        let diamond = Self.manifest([("top", ["left", "right"]), ("left", ["base"]), ("right", ["base"]), ("base", []), ("other", [])])
        #expect(Self.selected(diamond, ["top"]) == ["top", "left", "right", "base"])
        #expect(Self.selected(diamond, ["left"]) == ["left", "base"])
    }

    @Test func independentResourcesStayOut() {
        let independent = Self.manifest([("x", []), ("y", []), ("z", [])])
        #expect(Self.selected(independent, ["y"]) == ["y"])
        let narrowed = try? independent.selecting(ids: ["y"]).get()
        #expect(narrowed?.selection?.unselected.map(\.id) == ["x", "z"])
        #expect(narrowed?.declaredResources.map(\.id) == ["y", "x", "z"])
        #expect(narrowed?.files == independent.files)
    }

    @Test func anIdAskedForTwiceOrAlsoADependencyCountsOnce() throws {
        let chain = Self.manifest([("a", []), ("b", ["a"]), ("c", ["b"])])
        #expect(Self.selected(chain, ["b", "b"]) == ["a", "b"])
        #expect(Self.selected(chain, ["a", "c"]) == ["a", "b", "c"])
        let narrowed = try chain.selecting(ids: ["c", "a", "c"]).get()
        #expect(narrowed.selection?.requested == ["c", "a"])
        #expect(narrowed.selection?.unselected.isEmpty == true)
    }

    @Test func theManifestsOrderIsKeptWhateverTheOrderAskedIn() {
        let manifest = Self.manifest([("m", []), ("k", ["z"]), ("z", []), ("a", ["k"])])
        #expect(Self.selected(manifest, ["a", "m"]) == ["m", "k", "z", "a"])
        #expect(Self.selected(manifest, ["m", "a"]) == ["m", "k", "z", "a"])
    }

    @Test func noIdsIsNoSelection() throws {
        let manifest = Self.manifest([("a", []), ("b", [])])
        let same = try manifest.selecting(ids: []).get()
        #expect(same.resources.map(\.id) == ["a", "b"])
        #expect(same.selection == nil)
    }

    @Test func everyUnknownIdIsNamedWithTheClosestKnownOne() {
        let manifest = Self.manifest([("download", []), ("lessons", ["download"])])
        let result = manifest.selecting(ids: ["downlaod", "lessons", "zzz", "zzz"])
        #expect(
            throws: ResourceSelection.UnknownIDs(ids: [
                .init(id: "downlaod", suggestion: "download"), .init(id: "zzz", suggestion: nil),
            ])
        ) { try result.get() }
        #expect(
            ResourceSelection.UnknownID(id: "downlaod", suggestion: "download").description
                == "no resource 'downlaod' in the manifests (did you mean 'download'?)")
        #expect(ResourceSelection.UnknownID(id: "zzz", suggestion: nil).description == "no resource 'zzz' in the manifests")
    }

    /// Selecting again from a selection keeps every resource declared, once.
    @Test func aSelectionOfASelectionStillKnowsEveryResource() throws {
        let manifest = Self.manifest([("a", []), ("b", ["a"]), ("c", [])])
        let twice = try manifest.selecting(ids: ["b"]).get().selecting(ids: ["a"]).get()
        #expect(twice.resources.map(\.id) == ["a"])
        #expect(twice.declaredResources.map(\.id).sorted() == ["a", "b", "c"])
    }

    /// Every dependency graph on four resources (edges only towards earlier ones, so no cycle),
    /// every non-empty set of ids: the result is the smallest set that holds the ids and is
    /// closed under `depends_on`, in the manifests' order.
    @Test func theResultIsTheSmallestClosedSetForEveryGraphOfFour() throws {
        let ids = ["r0", "r1", "r2", "r3"]
        let pairs = [(1, 0), (2, 0), (2, 1), (3, 0), (3, 1), (3, 2)]
        for edges in 0..<(1 << pairs.count) {
            var dependencies = [[String]](repeating: [], count: ids.count)
            for (bit, (from, to)) in pairs.enumerated() where edges & (1 << bit) != 0 {
                dependencies[from].append(ids[to])
            }
            let manifest = Self.manifest(zip(ids, dependencies).map { (id: $0, dependsOn: $1) })
            for mask in 1..<(1 << ids.count) {
                let asked = ids.indices.filter { mask & (1 << $0) != 0 }.map { ids[$0] }
                var closure = Set(asked)
                var grew = true
                while grew {
                    let before = closure.count
                    for (i, id) in ids.enumerated() where closure.contains(id) { closure.formUnion(dependencies[i]) }
                    grew = closure.count != before
                }
                let narrowed = try manifest.selecting(ids: asked.reversed()).get()
                #expect(narrowed.resources.map(\.id) == ids.filter(closure.contains), "edges \(edges), asked \(asked)")
                #expect(narrowed.selection?.unselected.map(\.id) == ids.filter { !closure.contains($0) })
            }
        }
    }
}
