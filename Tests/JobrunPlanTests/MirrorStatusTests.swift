import JobrunCore
import JobrunManifest
import JobrunState
import JobrunTestSupport
import JobrunFiles
import Testing
@testable import JobrunPlan
import JobrunSystem

/// `jobrun status`'s judgement, without I/O: a slice is proven only when its file is what its
/// record proved and the record proves what the manifest expects now; a resource's times and
/// counts follow from its slices'.
@Suite struct MirrorStatusTests {
    static let sha = Digest(algorithm: .sha256, hex: String(repeating: "ab", count: 32))!
    static let otherSHA = Digest(algorithm: .sha256, hex: String(repeating: "ef", count: 32))!
    static let md5 = Digest(algorithm: .md5, hex: String(repeating: "cd", count: 16))!
    static let file = FileIdentity(device: 1, inode: 2, size: 3, mtimeNanoseconds: 4_000, ctimeNanoseconds: 5_000)

    static func record(
        _ file: FileIdentity = file, digests: [Digest] = [sha], provenAt: Int64 = 1_000, fetchedAt: Int64? = nil
    ) -> ProvenFile {
        ProvenFile(file: file, digests: digests, seenAtNanoseconds: file.settlesAt, provenAtMilliseconds: provenAt, fetchedAtMilliseconds: fetchedAt)
    }

    static func classify(
        _ check: FileCheck = .ok(size: 3, digests: []), identity: FileIdentity? = file, record: ProvenFile? = record(),
        size: Int64? = 3, digests: [Digest] = [sha]
    ) -> SliceStatus {
        SliceStatus.classify(check, identity: identity, record: record, size: size, digests: digests)
    }

    @Test func classificationTable() {
        // What the stat found decides first, whatever the record says.
        for record in [nil, Self.record()] {
            #expect(Self.classify(.missing, identity: nil, record: record) == .missing)
            #expect(Self.classify(.notRegularFile(path: "m/x", kind: "symbolic link"), identity: nil, record: record) == .error)
            #expect(Self.classify(.ioError(path: "m/x", errno: 13, message: "Permission denied"), identity: nil, record: record) == .error)
            #expect(Self.classify(.sizeMismatch(expected: 3, actual: 4), identity: nil, record: record) == .changed)
        }
        // A file with nothing that proves it.
        #expect(Self.classify(record: nil) == .unproven)
        // A record taken within a time step of the file's change: the quick check would read the
        // file, so it is not proven.
        var racy = Self.record()
        racy.isSettled = false
        #expect(Self.classify(record: racy) == .unproven)
        #expect(Self.classify(identity: nil) == .unproven)
        // The record proves it: same identity, every expected digest (the record may prove more).
        #expect(Self.classify() == .proven)
        #expect(Self.classify(record: Self.record(digests: [Self.md5, Self.sha])) == .proven)
        #expect(Self.classify(record: Self.record(digests: []), size: nil, digests: []) == .proven)
        #expect(Self.classify(size: nil) == .proven)
        // The manifest expects what the record does not prove.
        #expect(Self.classify(digests: [Self.md5, Self.sha]) == .changed)
        #expect(Self.classify(digests: [Self.otherSHA]) == .changed)
        #expect(Self.classify(size: 4) == .changed)
    }

    /// Another file (device or inode) with the recorded size and modification time, as `cp -a`
    /// or a restore leaves it: moved or restored, not re-proven; changed when the record does not
    /// prove what the manifest expects now, or the times or size differ too.
    @Test func anotherFileWithTheProvenSizeAndTimeIsMoved() {
        let copy = FileIdentity(device: 1, inode: 9, size: 3, mtimeNanoseconds: 4_000, ctimeNanoseconds: 9_000)
        let otherDevice = FileIdentity(device: 9, inode: 2, size: 3, mtimeNanoseconds: 4_000, ctimeNanoseconds: 5_000)
        #expect(Self.classify(identity: copy) == .moved)
        #expect(Self.classify(identity: otherDevice) == .moved)
        #expect(Self.classify(identity: copy, size: nil) == .moved)
        #expect(Self.classify(identity: copy, digests: [Self.md5, Self.sha]) == .changed)
        #expect(Self.classify(identity: copy, digests: [Self.otherSHA]) == .changed)
        var touched = copy
        touched.mtimeNanoseconds += 1
        #expect(Self.classify(identity: touched) == .changed)
        var grown = copy
        grown.size += 1
        #expect(Self.classify(.ok(size: grown.size, digests: []), identity: grown, size: nil) == .changed)
    }

    /// The same file (device and inode) with any other field of the identity than the record's:
    /// it changed since, even with its modification time put back.
    @Test(arguments: [
        FileIdentity(device: 1, inode: 2, size: 9, mtimeNanoseconds: 4_000, ctimeNanoseconds: 5_000),
        FileIdentity(device: 1, inode: 2, size: 3, mtimeNanoseconds: 4_001, ctimeNanoseconds: 5_000),
        FileIdentity(device: 1, inode: 2, size: 3, mtimeNanoseconds: 4_000, ctimeNanoseconds: 5_001),
    ])
    func anyChangeToTheIdentityIsAChange(now: FileIdentity) {
        #expect(Self.classify(.ok(size: now.size, digests: []), identity: now, size: nil) == .changed)
    }

    /// Two resources, declared out of id order: `zeta` wholly proven, `alpha` with a missing
    /// slice that can be resumed, one that cannot, a changed one and an unproven one.
    static func manifest(in dir: TemporaryDirectory) throws -> Manifest {
        let sha = Self.sha.hex
        _ = try dir.write(
            file: "m.yaml",
            contents: """
                version: 1
                defaults:
                  output: ./mirror
                resources:
                  - id: zeta
                    base_url: https://h/z/
                    slices:
                      - {path: a.bin, size: 3, sha256: \(sha)}
                      - {path: b.bin, size: 3, sha256: \(sha)}
                  - id: alpha
                    base_url: https://h/a/
                    slices:
                      - {path: one, size: 2000000}
                      - {path: two, size: 2000000}
                      - {path: three, size: 3, sha256: \(sha)}
                      - {path: four}

                """)
        var options = ManifestLoader.Options()
        options.currentDirectory = dir.path
        return try #require(ManifestLoader.load(paths: [dir.path("m.yaml")], options: options).manifest)
    }

    static func partial(for identity: String) -> PartialDownload.Found {
        PartialDownload.Found(
            size: 1_000, metadata: PartialDownload.Metadata(identity: identity, validator: .init(value: "\"v1\"", kind: .etag), totalSize: 2_000_000))
    }

    static func status(of manifest: Manifest, now: Int64, maxAge: Int64?) throws -> MirrorStatus {
        let root = try #require(manifest.resources.first?.outputRoot)
        let changed = FileIdentity(device: 1, inode: 2, size: 3, mtimeNanoseconds: 4_000, ctimeNanoseconds: 5_001)
        let ok = FileCheck.ok(size: 3, digests: [])
        // zeta's two slices, then alpha's four, in the manifest's order.
        let checks: [FileCheck] = [ok, ok, .missing, .missing, ok, .ok(size: 0, digests: [])]
        let identities: [FileIdentity?] = [file, file, nil, nil, changed, FileIdentity(device: 1, inode: 8, size: 0, mtimeNanoseconds: 0, ctimeNanoseconds: 0)]
        let records: [String: [String: ProvenFile]] = [
            root: [
                "zeta/a.bin": record(provenAt: 1_000, fetchedAt: 900),
                "zeta/b.bin": record(provenAt: 2_000, fetchedAt: 1_500),
                "alpha/three": record(provenAt: 500, fetchedAt: 3_000),
            ]
        ]
        let partials: [String: [String: PartialDownload.Found]] = [
            root: [
                "alpha/one": partial(for: "https://h/a/one"),
                "alpha/two": partial(for: "https://h/a/elsewhere"),
            ]
        ]
        return MirrorStatus(
            manifest: manifest, checks: checks, identities: identities, records: records, partials: partials,
            roots: [MirrorStatus.Root(path: root, store: .inUse)], runs: [], nowMilliseconds: now, maxAgeMilliseconds: maxAge)
    }

    @Test func resourcesAreCountedAndDatedFromTheirSlices() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let manifest = try Self.manifest(in: dir)
        let status = try Self.status(of: manifest, now: 10_000, maxAge: nil)

        #expect(status.entries.map(\.resource.id) == ["alpha", "zeta"])
        let alpha = status.entries[0]
        #expect(alpha.statuses == [.missing, .missing, .changed, .unproven])
        #expect(alpha.counts.missing == 2 && alpha.counts.resumable == 1 && alpha.counts.changed == 1 && alpha.counts.unproven == 1)
        #expect(alpha.counts.proven == 0 && alpha.counts.slices == 4)
        #expect(alpha.fullyProvenAtMilliseconds == nil && alpha.oldestProofAtMilliseconds == nil)
        // A record's fetch time counts even when its file has changed since.
        #expect(alpha.lastFetchedAtMilliseconds == 3_000)
        #expect(!alpha.isOK)

        let zeta = status.entries[1]
        #expect(zeta.statuses == [.proven, .proven])
        #expect(zeta.fullyProvenAtMilliseconds == 1_000, "the oldest of its proofs")
        #expect(zeta.lastFetchedAtMilliseconds == 1_500, "the newest of its fetches")
        #expect(zeta.isOK)

        #expect(status.counts.slices == 6 && status.counts.proven == 2 && status.counts.resumable == 1)
        #expect(status.counts.olderThanMaxAge == 0)
        #expect(status.oldestProofAtMilliseconds == 1_000)
        #expect(!status.isOK)
    }

    /// With a maximum age, a proof older than it is counted, and a resource with one is not ok.
    @Test func proofsOlderThanTheMaximumAgeAreCounted() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let manifest = try Self.manifest(in: dir)
        // 10,000 - 1,000 = 9,000 > 8,500; 10,000 - 2,000 = 8,000 is not.
        let status = try Self.status(of: manifest, now: 10_000, maxAge: 8_500)
        #expect(status.entries[1].counts.olderThanMaxAge == 1 && !status.entries[1].isOK)
        #expect(status.counts.olderThanMaxAge == 1)
        // Exactly the maximum age is not older than it.
        #expect(try Self.status(of: manifest, now: 10_000, maxAge: 9_000).counts.olderThanMaxAge == 0)
        #expect(try Self.status(of: manifest, now: 10_000, maxAge: 7_999).counts.olderThanMaxAge == 2)
    }

    /// Every slice proven, within the maximum age: the status is ok (exit 0).
    @Test func everySliceProvenIsOK() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let manifest = try Self.manifest(in: dir).selecting(ids: ["zeta"]).get()
        let root = try #require(manifest.resources.first?.outputRoot)
        let records = [root: ["zeta/a.bin": Self.record(provenAt: 1_000), "zeta/b.bin": Self.record(provenAt: 2_000)]]
        let ok = FileCheck.ok(size: 3, digests: [])
        let status = MirrorStatus(
            manifest: manifest, checks: [ok, ok], identities: [Self.file, Self.file], records: records, partials: [:], roots: [],
            runs: [], nowMilliseconds: 5_000, maxAgeMilliseconds: 4_000)
        #expect(status.isOK && status.counts.isAllProven && status.counts.proven == 2)
        #expect(status.entries.map(\.fullyProvenAtMilliseconds) == [1_000])
        // Without records the same files are unproven.
        let unrecorded = MirrorStatus(
            manifest: manifest, checks: [ok, ok], identities: [Self.file, Self.file], records: [:], partials: [:], roots: [],
            runs: [], nowMilliseconds: 5_000, maxAgeMilliseconds: nil)
        #expect(!unrecorded.isOK && unrecorded.counts.unproven == 2 && unrecorded.oldestProofAtMilliseconds == nil)
    }
}
