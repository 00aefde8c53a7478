import Foundation
import JobrunCore
import JobrunTestSupport
import Testing
@testable import JobrunManifest
@testable import JobrunPlan

/// Whether a plan fits on disk: the margin, the fit decision, how output roots share a file
/// system, the lines and messages that say it, and the measurement itself.
@Suite struct SpaceCheckTests {
    static let MiB: Int64 = 1 << 20
    static let GiB: Int64 = 1 << 30

    @Test(arguments: [
        (Int64(0), Int64(0)),
        (100 * MiB, 10 * MiB),  // a tenth of a small file system
        (640 * MiB, 64 * MiB),  // where a tenth meets 64 MiB
        (1 * GiB, 64 * MiB),
        (6400 * MiB, 64 * MiB),  // where 1% meets 64 MiB
        (100 * GiB, 1 * GiB),  // 1% of a large one
        (Int64.max, Int64.max / 100),
        (-5, 0),
    ])
    func theMarginIsOnePercentAtLeast64MiBAtMostATenth(size: Int64, margin: Int64) {
        #expect(SpaceCheck.margin(forFileSystemOfSize: size) == margin)
    }

    @Test(arguments: [
        // needed, free, margin, fits
        (Int64(0), Int64(0), Int64(64 << 20), true),  // nothing to write fits even a full disk
        (1, 0, 0, false),
        (1, 1, 0, true),
        (900, 1000, 100, true),  // exactly free − margin
        (901, 1000, 100, false),
        (1, 100, 100, false),  // all of the free space is margin
        (1, 50, 100, false),  // less free than the margin
        (Int64.max, Int64.max, 0, true),
        (Int64.max, Int64.max, 1, false),
        (1, Int64.min, Int64.max, false),  // free − margin overflows: no room
    ])
    func knownSizesFitWhenAtMostFreeLessTheMargin(needed: Int64, free: Int64, margin: Int64, fits: Bool) {
        #expect(SpaceCheck.fits(needed: needed, free: free, margin: margin) == fits)
    }

    static let here = SourceLocation(file: "m.yaml", line: 1, column: 1)

    /// A plan entry of resource `id` in `root`, with `actions` for slices of `sizes`.
    static func entry(_ id: String, root: String, _ slices: [(SliceAction, Int64?)]) -> Plan.Entry {
        let resource = Resource(
            id: id, location: here, manifestFile: "m.yaml", baseURL: "http://h/", outputRoot: root, dest: id,
            dependsOn: [], checksum: nil, settings: ResourceSettings(),
            slices: slices.indices.map { Slice(path: "s\($0)", size: slices[$0].1, location: here) })
        var counts = PlanCounts()
        for (action, size) in slices { counts.add(action, bytes: size) }
        return Plan.Entry(resource: resource, decisions: slices.map { SliceDecision(action: $0.0) }, counts: counts)
    }

    /// Roots `a` and `b` on device 1, `c` on device 2, `d` not measurable, `e` with nothing to do.
    @Test func rootsOnOneFileSystemShareOneFigureAndTheirBytesAddUp() {
        let entries = [
            Self.entry("one", root: "b", [(.fetch, 100), (.upToDate, 5), (.fetch, nil)]),
            Self.entry("two", root: "a", [(.refetch, 20), (.resume, 3)]),
            Self.entry("three", root: "c", [(.fetch, 7)]),
            Self.entry("four", root: "d", [(.fetch, 1)]),
            Self.entry("five", root: "e", [(.upToDate, 9)]),
            Self.entry("six", root: "b", [(.fetch, nil), (.deferred, 4)]),
        ]
        var asked: [String] = []
        let needs = SpaceCheck.needs(of: entries) { root in
            asked.append(root)
            switch root {
            case "a", "b": return .success(FileSystemUsage(device: 1, freeBytes: 1_000 * Self.MiB, sizeBytes: 10 * Self.GiB))
            case "c": return .success(FileSystemUsage(device: 2, freeBytes: 5, sizeBytes: 100 * Self.MiB))
            default: return .failure(FileSystemUsage.Failure(path: root, call: "stat", message: "Permission denied"))
            }
        }
        #expect(asked.sorted() == ["a", "b", "c", "d"], "one measurement per root that receives anything")
        #expect(
            needs == [
                SpaceNeed(
                    roots: ["a", "b"], bytesToTransfer: 123, unsizedToTransfer: 2,
                    capacity: .measured(freeBytes: 1_000 * Self.MiB, marginBytes: 102 * Self.MiB + 409 * 1024 + 614)),
                SpaceNeed(roots: ["c"], bytesToTransfer: 7, unsizedToTransfer: 0, capacity: .measured(freeBytes: 5, marginBytes: 10 * Self.MiB)),
                SpaceNeed(roots: ["d"], bytesToTransfer: 1, unsizedToTransfer: 0, capacity: .unknown(reason: "stat 'd': Permission denied")),
            ])
        #expect(needs.map(\.fits) == [true, false, true], "an unmeasured file system is never refused on a guess")
        #expect(needs.map(\.shortage) == [nil, "not enough space for 'c': 7 B to fetch, 5 B free less a 10.0 MiB margin", nil])
        #expect(
            needs.map(\.line) == [
                "Space: a, b: 123 B plus 2 slices of unknown size to fetch, 1000.0 MiB free.",
                "Space: c: 7 B to fetch, 5 B free (less a 10.0 MiB margin): does not fit.",
                "Space: d: 1 B to fetch, free space unknown (stat 'd': Permission denied).",
            ])
        #expect(
            SpaceCheck.needs(of: [Self.entry("five", root: "e", [(.upToDate, 9)])]) { _ in
                Issue.record("a plan with nothing to fetch measures nothing")
                return .success(FileSystemUsage(device: 0, freeBytes: 0, sizeBytes: 0))
            }.isEmpty)
    }

    @Test func aShortageNamesEveryRootOfItsFileSystem() {
        let three = SpaceNeed(
            roots: ["m", "n", "o"], bytesToTransfer: 2 * Self.GiB, unsizedToTransfer: 1, capacity: .measured(freeBytes: Self.GiB, marginBytes: 64 * Self.MiB))
        #expect(three.shortage == "not enough space for 'm', 'n' and 'o' (one file system): 2.0 GiB to fetch, 1.0 GiB free less a 64.0 MiB margin")
        let onlyUnsized = SpaceNeed(roots: ["m"], bytesToTransfer: 0, unsizedToTransfer: 1, capacity: .measured(freeBytes: 0, marginBytes: 64 * Self.MiB))
        #expect(onlyUnsized.fits && onlyUnsized.shortage == nil)
        #expect(onlyUnsized.line == "Space: m: 1 slice of unknown size to fetch, 0 B free.")
    }

    /// Declared sizes can add up past `Int64`: the sum stops at its maximum, and never fits.
    @Test func sizesPastInt64SaturateInsteadOfTrapping() {
        let petabyte: Int64 = 1 << 50
        let entries = (0..<3).map { Self.entry("r\($0)", root: "m", Array(repeating: (SliceAction.fetch, Optional(petabyte)), count: 4_000)) }
        #expect(entries[0].counts.bytesToTransfer == 4_000 * petabyte)
        var total = PlanCounts()
        for e in entries { total += e.counts }
        #expect(total.bytesToTransfer == .max)
        let needs = SpaceCheck.needs(of: entries) { _ in .success(FileSystemUsage(device: 1, freeBytes: .max, sizeBytes: .max)) }
        #expect(needs.first?.bytesToTransfer == .max && needs.first?.fits == false)
    }

    /// A root that does not exist yet is measured on its nearest existing ancestor: the same file
    /// system as that folder, also through a regular file in the way.
    @Test func aMissingRootIsMeasuredOnItsNearestExistingAncestor() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        _ = try dir.write(file: "file", contents: "x")
        let here = try FileSystemUsage.measure(nearest: dir.path).get()
        #expect(here.sizeBytes > 0 && here.freeBytes >= 0 && here.freeBytes <= here.sizeBytes)
        for missing in ["not/yet/there", "file/below/a/file"] {
            let measured = try FileSystemUsage.measure(nearest: dir.path(missing)).get()
            #expect(measured.device == here.device && measured.sizeBytes == here.sizeBytes, "\(missing)")
        }
        // A relative path climbs to the current folder.
        let relative = try FileSystemUsage.measure(nearest: "no-such-root-\(UUID().uuidString)/deeper").get()
        let current = try FileSystemUsage.measure(nearest: ".").get()
        #expect(relative.device == current.device)
    }
}
