import Foundation
import JobrunCore
import JobrunManifest
import JobrunTestSupport
import JobrunState
import JobrunFiles
import Testing
@testable import JobrunPlan
import JobrunSystem

@Suite struct PlannerTests {
    static let here = JobrunCore.SourceLocation(file: "m.yaml", line: 1, column: 1)
    static let digest = Digest(algorithm: .sha256, bytes: Array(repeating: 0xAB, count: 32))
    static let other = Digest(algorithm: .sha256, bytes: Array(repeating: 0xCD, count: 32))

    @Test func decisionTable() {
        let s = Slice(path: "x", size: 3, digests: [Self.digest], location: Self.here)
        #expect(Planner.decide(.missing, for: s) == SliceDecision(action: .fetch))
        #expect(Planner.decide(.ok(size: 3, digests: [Self.digest]), for: s) == SliceDecision(action: .upToDate))
        #expect(Planner.decide(.sizeMismatch(expected: 3, actual: 5), for: s) == SliceDecision(action: .refetch, reason: "size is 5 bytes, expected 3"))
        #expect(
            Planner.decide(.digestMismatch(expected: Self.digest, actual: [Self.other], size: 3), for: s)
                == SliceDecision(action: .refetch, reason: "sha256 differs: expected \(Self.digest.hex), actual \(Self.other.hex)"))
        #expect(
            Planner.decide(.notRegularFile(path: "m/x", kind: "symbolic link"), for: s)
                == SliceDecision(action: .refetch, reason: "'m/x' is a symbolic link, not a regular file"))
        #expect(
            Planner.decide(.ioError(path: "m/x", errno: 13, message: "Permission denied"), for: s)
                == SliceDecision(action: .refetch, reason: "cannot read 'm/x': Permission denied"))
    }

    @Test func countsAddUpAndTrackUnsizedSlices() {
        var c = PlanCounts()
        c.add(.fetch, bytes: 10)
        c.add(.fetch, bytes: nil)
        c.add(.refetch, bytes: 5)
        c.add(.upToDate, bytes: 100)
        c.add(.deferred, bytes: 7)
        #expect(c.fetch == 2 && c.refetch == 1 && c.upToDate == 1 && c.deferred == 1 && c.resume == 0)
        #expect(c.bytesToTransfer == 15)
        #expect(c.unsizedToTransfer == 1)
        #expect(c.slices == 5)
        #expect(c.hasChanges)
        var d = PlanCounts()
        d.add(.upToDate, bytes: 1)
        d.add(.deferred, bytes: 1)
        #expect(!d.hasChanges)
    }

    /// A real mirror on disk: one file right, one wrong size, one wrong digest, one missing.
    @Test func plansAgainstTheDisk() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let abc = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"  // sha256("abc")
        _ = try dir.write(
            file: "m.yaml",
            contents: """
                version: 1
                resources:
                  - id: second
                    base_url: https://h/s/
                    depends_on: [first]
                    slices:
                      - {path: ok.txt, size: 3, sha256: \(abc)}
                      - {path: short.txt, size: 4}
                      - {path: wrong.txt, sha256: \(abc)}
                      - {path: sub/missing.txt, size: 64KiB}
                      - {path: any.txt}
                  - id: first
                    base_url: https://h/f/
                    slices: [{path: a.bin, size: 1.5KiB}]
                """)
        _ = try dir.write(file: "mirror/second/ok.txt", contents: "abc")
        _ = try dir.write(file: "mirror/second/short.txt", contents: "abc")
        _ = try dir.write(file: "mirror/second/wrong.txt", contents: "abd")
        _ = try dir.write(file: "mirror/second/any.txt", contents: "whatever")
        let manifest = try Self.manifestWithMirror(in: dir)
        // A fixed file system: the text below must not depend on this machine's free space.
        let plan = Planner.plan(for: manifest, parallelism: 2) { _ in
            .success(FileSystemUsage(device: 1, freeBytes: 10 << 30, sizeBytes: 100 << 30))
        }
        #expect(plan.entries.map(\.resource.id) == ["first", "second"])
        #expect(plan.entries[1].decisions.map(\.action) == [.upToDate, .refetch, .refetch, .fetch, .upToDate])
        #expect(plan.counts.fetch == 2 && plan.counts.refetch == 2 && plan.counts.upToDate == 2)
        #expect(plan.counts.bytesToTransfer == 1536 + 4 + 65536)
        #expect(plan.counts.unsizedToTransfer == 1)
        // Slices without a digest are counted whatever their action: three declare a size, one nothing.
        #expect(plan.counts.integrity.sizeOnly == 3 && plan.counts.integrity.unverified == 1)
        #expect(plan.entries[0].counts.integrity.sizeOnly == 1 && plan.entries[0].counts.integrity.unverified == 0)
        #expect(
            plan.summaryLine
                == "Plan: 2 to fetch, 0 to resume, 2 to refetch (65.5 KiB + 1 of unknown size), 2 up to date, 0 deferred; 4 without digests (3 size only, 1 unverified)."
        )
        let text = plan.renderText(verbose: true).replacingOccurrences(of: dir.path("mirror"), with: "mirror")
        #expect(
            text
                == """
                ~ first -> mirror/first/: 1 to fetch (1.5 KiB)
                    + a.bin (1.5 KiB) [size only]
                ~ second -> mirror/second/: 1 to fetch, 2 to refetch, 2 up to date (64.0 KiB + 1 of unknown size)
                    = ok.txt (3 B)
                    ~ short.txt (4 B) [size only]: size is 3 bytes, expected 4
                    ~ wrong.txt: sha256 differs: expected \(abc), actual a5c7f3a3ab12d4c2ea6d16e1a3b0a4b0fa1f17e2f0a3d5fdc87a1f3b1f0b5c6f
                    + sub/missing.txt (64.0 KiB) [size only]
                    = any.txt [unverified]
                @ https://h: 4 slices to transfer, 4 at once over HTTP/1.1, up to 128 over HTTP/2 (4 connections of 32 streams)
                Space: mirror: 65.5 KiB plus 1 slice of unknown size to fetch, 10.0 GiB free.
                Plan: 2 to fetch, 0 to resume, 2 to refetch (65.5 KiB + 1 of unknown size), 2 up to date, 0 deferred; 4 without digests (3 size only, 1 unverified).

                """.replacingOccurrences(of: "a5c7f3a3ab12d4c2ea6d16e1a3b0a4b0fa1f17e2f0a3d5fdc87a1f3b1f0b5c6f", with: Self.sha256Hex("abd")))
    }

    /// Two resources at one origin: its connections carry the fewer streams of the two, as the
    /// run's slots do, and its most in flight is the larger slots times those streams.
    @Test func anOriginSharedByResourcesCarriesTheFewestStreams() throws {
        let resources = [
            #"{id: wide, base_url: "https://h/w/", concurrency: {per_host: 2, streams: 64}, slices: [{path: a}]}"#,
            #"{id: narrow, base_url: "https://h/n/", concurrency: {per_host: 6, streams: 8}, slices: [{path: b}]}"#,
        ]
        let plan = try Self.plan(resources)
        #expect(plan.origins.map(\.line) == ["@ https://h: 2 slices to transfer, 6 at once over HTTP/1.1, up to 48 over HTTP/2 (6 connections of 8 streams)"])
    }

    @Test func dotGraphIsSortedAndQuoted() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        _ = try dir.write(
            file: "m.yaml",
            contents: """
                version: 1
                resources:
                  - {id: b, base_url: "https://h/", depends_on: [a.x], slices: [{path: p, size: 10}]}
                  - {id: a.x, base_url: "https://h/", slices: [{path: q}]}
                """)
        let manifest = try #require(ManifestLoader.load(paths: [dir.path("m.yaml")]).manifest)
        #expect(
            manifest.renderDOT() == """
                digraph jobrun {
                    rankdir=LR;
                    node [shape=box];
                    "a.x" [label="a.x\\n1 slice, size unknown"];
                    "b" [label="b\\n1 slice, 10 B"];
                    "a.x" -> "b";
                }

                """)
    }

    /// `plan` says `resume` exactly where `apply` will send a range request: both ask
    /// `PartialDownload.Found.continues`, and both read the metadata without following a link.
    @Test func resumesOnlyPartialsThatApplyWillContinue() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let names = ["ok", "resized", "foreign", "linked", "longer", "empty"]
        let slices = names.map { "      - {path: \($0).bin, size: 2MiB}" }.joined(separator: "\n")
        _ = try dir.write(file: "m.yaml", contents: "version: 1\nresources:\n  - id: r\n    base_url: https://h/s/\n    slices:\n\(slices)\n")
        func meta(_ name: String, identity: String? = nil, total: Int64? = 2 << 20) -> [UInt8] {
            PartialDownload.Metadata(identity: identity ?? "https://h/s/\(name).bin", validator: .init(value: "\"v1\"", kind: .etag), totalSize: total)
                .encoded()
        }
        for name in names {
            let size = name == "longer" ? (2 << 20) + 1 : (name == "empty" ? 0 : 1000)
            _ = try dir.write(file: "mirror/r/.\(name).bin.jobrun-part", bytes: Array(repeating: 7, count: size))
        }
        _ = try dir.write(file: "mirror/r/.ok.bin.jobrun-meta", bytes: meta("ok"))
        _ = try dir.write(file: "mirror/r/.resized.bin.jobrun-meta", bytes: meta("resized", total: 3 << 20))
        _ = try dir.write(file: "mirror/r/.foreign.bin.jobrun-meta", bytes: meta("foreign", identity: "https://other/s/foreign.bin"))
        let elsewhere = try dir.write(file: "elsewhere.json", bytes: meta("linked"))
        try FileManager.default.createSymbolicLink(atPath: dir.path("mirror/r/.linked.bin.jobrun-meta"), withDestinationPath: elsewhere)
        _ = try dir.write(file: "mirror/r/.longer.bin.jobrun-meta", bytes: meta("longer"))
        _ = try dir.write(file: "mirror/r/.empty.bin.jobrun-meta", bytes: meta("empty"))

        let manifest = try Self.manifestWithMirror(in: dir)
        let plan = Planner.plan(for: manifest, parallelism: 1)
        #expect(plan.entries[0].decisions.map(\.action) == [.resume, .fetch, .fetch, .fetch, .fetch, .fetch])
        #expect(plan.entries[0].decisions[0].reason == "1000 bytes already downloaded")
        #expect(plan.counts.bytesToTransfer == 6 * (2 << 20) - 1000)
    }

    @Test func whatAPartialMustBeToBeContinued() {
        let m = PartialDownload.Metadata(identity: "https://h/a", validator: .init(value: "\"v\"", kind: .etag), totalSize: 100)
        #expect(PartialDownload.Found(size: 40, metadata: m).continues(identity: "https://h/a", expectedSize: 100, hasDigest: false))
        #expect(
            PartialDownload.Found(size: 100, metadata: m).continues(identity: "https://h/a", expectedSize: 100, hasDigest: false),
            "complete: apply verifies it after a 416")
        #expect(PartialDownload.Found(size: 40, metadata: m).continues(identity: "https://h/a", expectedSize: nil, hasDigest: false))
        #expect(!PartialDownload.Found(size: 0, metadata: m).continues(identity: "https://h/a", expectedSize: 100, hasDigest: false))
        #expect(!PartialDownload.Found(size: 40, metadata: m).continues(identity: "https://h/b", expectedSize: 100, hasDigest: false))
        #expect(
            PartialDownload.Found(size: 40, metadata: m).continues(identity: "https://h/b", expectedSize: 100, hasDigest: true),
            "another URL of the file (a moved base_url, another mirror): the digest decides")
        #expect(
            PartialDownload.Found(size: 40, metadata: m).validator(for: "https://h/b") == nil
                && PartialDownload.Found(size: 40, metadata: m).validator(for: "https://h/a") != nil)
        #expect(
            !PartialDownload.Found(size: 40, metadata: m).continues(identity: "https://h/a", expectedSize: 120, hasDigest: false),
            "cut from a representation of another size")
        var unsized = m
        unsized.totalSize = nil
        #expect(
            !PartialDownload.Found(size: 101, metadata: unsized).continues(identity: "https://h/a", expectedSize: 100, hasDigest: false),
            "longer than the slice")
        #expect(PartialDownload.Found(size: 100, metadata: unsized).continues(identity: "https://h/a", expectedSize: 100, hasDigest: false))
    }

    /// Without a validator the digest decides: such a partial continues only for a slice that
    /// declares one, by the same rule for `plan` and `apply`, and its metadata reads back as
    /// written.
    @Test func aPartialWithoutAValidatorContinuesOnlyWhenADigestDecides() throws {
        let bare = PartialDownload.Metadata(identity: "https://h/a", validator: nil, totalSize: 100)
        let found = PartialDownload.Found(size: 40, metadata: bare)
        #expect(found.obstacle(identity: "https://h/a", expectedSize: 100, hasDigest: true) == nil)
        #expect(found.obstacle(identity: "https://h/a", expectedSize: 100, hasDigest: false) == .noValidatorNoDigest)
        #expect(found.obstacle(identity: "https://h/b", expectedSize: 100, hasDigest: true) == nil)
        #expect(found.obstacle(identity: "https://h/b", expectedSize: 100, hasDigest: false) == .otherSlice)
        #expect(found.obstacle(identity: "https://h/a", expectedSize: 120, hasDigest: true) == .otherSize)
        #expect(PartialDownload.Metadata.decode(bare.encoded()) == bare)
        #expect(!String(decoding: bare.encoded(), as: UTF8.self).contains("validator"))

        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        _ = try dir.write(
            file: "m.yaml",
            contents: """
                version: 1
                resources:
                  - id: r
                    base_url: https://h/s/
                    slices:
                      - {path: digest.bin, size: 2MiB, sha256: \(String(repeating: "ab", count: 32))}
                      - {path: bare.bin, size: 2MiB}

                """)
        for name in ["digest", "bare"] {
            _ = try dir.write(file: "mirror/r/.\(name).bin.jobrun-part", bytes: Array(repeating: 7, count: 1000))
            let meta = PartialDownload.Metadata(identity: "https://h/s/\(name).bin", validator: nil, totalSize: 2 << 20)
            _ = try dir.write(file: "mirror/r/.\(name).bin.jobrun-meta", bytes: meta.encoded())
        }
        let plan = Planner.plan(for: try Self.manifestWithMirror(in: dir), parallelism: 1)
        #expect(plan.entries[0].decisions.map(\.action) == [.resume, .fetch])
    }

    /// With a mirror memory: a file with its recorded identity is not read (its bytes here would
    /// not even match); the others are hashed and collected to record; a record whose file is
    /// missing or different is stale, to forget before apply writes that path.
    @Test func aPlanWithTheMirrorMemoryReadsOnlyWhatChanged() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let names = ["kept", "hashed", "changed", "gone"]
        _ = try dir.write(
            file: "m.yaml",
            contents: """
                version: 1
                resources:
                  - id: r
                    base_url: https://h/s/
                    slices:
                \(names.map { "      - {path: \($0).bin, size: 5, sha256: \(Self.sha256Hex(String($0.prefix(5)).padding(toLength: 5, withPad: "-", startingAt: 0)))}" }.joined(separator: "\n"))
                """)
        _ = try dir.write(file: "mirror/r/hashed.bin", contents: "hashe")
        // Bytes that do not match: only a file that is not read passes.
        _ = try dir.write(file: "mirror/r/kept.bin", contents: "ZZZZZ")
        _ = try dir.write(file: "mirror/r/changed.bin", contents: "XXXXX")
        let manifest = try Self.manifestWithMirror(in: dir)
        func identity(_ name: String) throws -> FileIdentity { try .ofFile(atPath: dir.path("mirror/r/\(name).bin")) }
        let digests = manifest.resources[0].slices.map(\.digests)
        var known: [String: ProvenFile] = [:]
        let kept = try identity("kept")
        known["r/kept.bin"] = ProvenFile(file: kept, digests: digests[0], seenAtNanoseconds: kept.settlesAt, provenAtMilliseconds: 1, fetchedAtMilliseconds: 2)
        let changed = try identity("changed")
        var before = changed
        before.inode += 1
        known["r/changed.bin"] = ProvenFile(
            file: before, digests: digests[2], seenAtNanoseconds: before.settlesAt, provenAtMilliseconds: 1, fetchedAtMilliseconds: nil)
        known["r/gone.bin"] = ProvenFile(
            file: kept, digests: digests[3], seenAtNanoseconds: kept.settlesAt, provenAtMilliseconds: 1, fetchedAtMilliseconds: nil)
        let root = dir.path("mirror")

        let plan = Planner.plan(for: manifest, parallelism: 1, memory: MirrorMemory(known: [root: known]))
        #expect(plan.entries[0].decisions.map(\.action) == [.upToDate, .upToDate, .refetch, .fetch])
        #expect(plan.proofs.recognized == 1 && plan.proofs.hashed == 1)
        #expect(plan.proofs.proven[root]?.map(\.path) == ["r/hashed.bin"])
        let hashed = try #require(plan.proofs.proven[root]?.first)
        #expect(hashed.file == (try identity("hashed")) && hashed.digests == digests[1] && hashed.fetchedAtMilliseconds == nil)
        #expect(hashed.resource == "r")
        #expect(plan.proofs.stale[root]?.sorted() == ["r/changed.bin", "r/gone.bin"])

        // --rehash: every present file is read (kept's bytes are wrong), what passes collected.
        let rehashed = Planner.plan(for: manifest, parallelism: 1, memory: MirrorMemory(known: [root: known], recognizes: false))
        #expect(rehashed.entries[0].decisions.map(\.action) == [.refetch, .upToDate, .refetch, .fetch])
        #expect(rehashed.proofs.recognized == 0 && rehashed.proofs.hashed == 1)
        #expect(rehashed.proofs.proven[root]?.map(\.path) == ["r/hashed.bin"])
        #expect(rehashed.proofs.stale[root]?.sorted() == ["r/changed.bin", "r/gone.bin", "r/kept.bin"])
        // Without a memory: every file read, counted, nothing collected.
        let plain = Planner.plan(for: manifest, parallelism: 1)
        #expect(plain.entries[0].decisions.map(\.action) == [.refetch, .upToDate, .refetch, .fetch])
        #expect(plain.proofs.hashed == 1 && plain.proofs.proven.isEmpty && plain.proofs.stale.isEmpty)
    }

    /// A slice without a digest is only stat-ed: a file already recorded as it is is not recorded
    /// again (its record keeps the digests its fetch computed, and its time); a new or changed
    /// one is.
    @Test func aFileWithoutADigestIsRecordedOnlyWhenItIsNew() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        _ = try dir.write(
            file: "m.yaml",
            contents: """
                version: 1
                resources:
                  - id: r
                    base_url: https://h/s/
                    slices:
                      - {path: same.bin, size: 5}
                      - {path: new.bin}
                """)
        for name in ["same", "new"] { _ = try dir.write(file: "mirror/r/\(name).bin", contents: "12345") }
        let manifest = try Self.manifestWithMirror(in: dir)
        let same = try FileIdentity.ofFile(atPath: dir.path("mirror/r/same.bin"))
        let root = dir.path("mirror")
        let known = ["r/same.bin": Self.record(same)]
        let plan = Planner.plan(for: manifest, parallelism: 1, memory: MirrorMemory(known: [root: known]))
        #expect(plan.entries[0].decisions.map(\.action) == [.upToDate, .upToDate])
        #expect(plan.proofs.proven[root]?.map(\.path) == ["r/new.bin"] && plan.proofs.hashed == 0 && plan.proofs.stale.isEmpty)
    }

    /// Records no slice names: forgotten once their file is gone, kept while it is there
    /// (another set of manifests may mirror into the root), and left alone by a run that selects
    /// resources (the others' slices are named, just not checked).
    @Test func recordsOfFilesNoSliceNamesAreForgottenOnceTheFileIsGone() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        _ = try dir.write(
            file: "m.yaml",
            contents: """
                version: 1
                resources:
                  - id: r
                    base_url: https://h/s/
                    slices:
                      - {path: a.bin, size: 5}
                  - id: q
                    base_url: https://h/q/
                    slices:
                      - {path: b.bin, size: 5}
                """)
        _ = try dir.write(file: "mirror/r/a.bin", contents: "12345")
        _ = try dir.write(file: "mirror/old/kept.bin", contents: "12345")
        let manifest = try Self.manifestWithMirror(in: dir)
        let root = dir.path("mirror")
        let a = try FileIdentity.ofFile(atPath: dir.path("mirror/r/a.bin"))
        let kept = try FileIdentity.ofFile(atPath: dir.path("mirror/old/kept.bin"))
        let known = [
            "r/a.bin": Self.record(a), "q/b.bin": Self.record(a), "old/kept.bin": Self.record(kept), "old/gone.bin": Self.record(kept),
            "gone-folder/x/y.bin": Self.record(kept), "r/a.bin/under-a-file.bin": Self.record(kept),
        ]
        let memory = MirrorMemory(known: [root: known])
        let plan = Planner.plan(for: manifest, parallelism: 1, memory: memory)
        #expect(plan.proofs.stale[root]?.sorted() == ["gone-folder/x/y.bin", "old/gone.bin", "q/b.bin", "r/a.bin/under-a-file.bin"])
        #expect(plan.proofs.proven.isEmpty, "a.bin is recorded as it is")

        let selected = try #require(try? manifest.selecting(ids: ["r"]).get())
        let narrowed = Planner.plan(for: selected, parallelism: 1, memory: memory)
        #expect(narrowed.proofs.stale.isEmpty, "q/b.bin is q's, and the unnamed records are left for a whole run")

        // Every record named: nothing to look at beyond the expectations.
        let named = MirrorMemory(known: [root: ["r/a.bin": Self.record(a)]])
        #expect(Planner.plan(for: manifest, parallelism: 1, memory: named).proofs.stale.isEmpty)
    }

    /// The plan is checked a batch of slices at a time; where the batches cut (inside a
    /// resource, between two, one slice each) changes nothing it decides, counts or proves.
    @Test func batchesChangeNothing() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let abc = Self.sha256Hex("abc")
        _ = try dir.write(
            file: "m.yaml",
            contents: """
                version: 1
                resources:
                  - id: one
                    base_url: https://h/1/
                    slices: [{path: a.bin, size: 3, sha256: \(abc)}]
                  - id: five
                    base_url: https://h/5/
                    depends_on: [one]
                    slices:
                      - {path: ok.bin, size: 3, sha256: \(abc)}
                      - {path: short.bin, size: 4}
                      - {path: missing.bin, size: 2MiB}
                      - {path: partial.bin, size: 2MiB}
                      - {path: recorded.bin, size: 3, sha256: \(abc)}
                  - id: two
                    base_url: https://h/2/
                    slices: [{path: x.bin}, {path: y.bin, size: 3}]
                """)
        for file in ["mirror/one/a.bin", "mirror/five/ok.bin", "mirror/five/short.bin", "mirror/five/recorded.bin", "mirror/two/y.bin"] {
            _ = try dir.write(file: file, contents: "abc")
        }
        _ = try dir.write(file: "mirror/five/.partial.bin.jobrun-part", bytes: Array(repeating: 1, count: 1000))
        let meta = PartialDownload.Metadata(identity: "https://h/5/partial.bin", validator: .init(value: "\"v\"", kind: .etag), totalSize: 2 << 20)
        _ = try dir.write(file: "mirror/five/.partial.bin.jobrun-meta", bytes: meta.encoded())
        let manifest = try Self.manifestWithMirror(in: dir)
        let root = dir.path("mirror")
        let recorded = try FileIdentity.ofFile(atPath: dir.path("mirror/five/recorded.bin"))
        let gone = try FileIdentity.ofFile(atPath: dir.path("mirror/one/a.bin"))
        let memory = MirrorMemory(known: [root: ["five/recorded.bin": Self.record(recorded), "old/gone.bin": Self.record(gone)]])
        func summary(_ plan: Plan) -> String {
            let decisions = plan.entries.map { e in
                "\(e.resource.id): " + e.decisions.map { "\($0.action)/\($0.resumeOffset)/\($0.reason ?? "")" }.joined(separator: ", ")
            }
            let proven = plan.proofs.proven.mapValues { $0.map { "\($0.resource)/\($0.path)" }.sorted() }
            return
                "\(decisions)\n\(plan.counts)\n\(plan.warnings)\n\(proven.sorted { $0.key < $1.key })\n\(plan.proofs.stale)\n\(plan.proofs.hashed) \(plan.proofs.recognized)"
        }
        let whole = Planner.plan(for: manifest, parallelism: 1, memory: memory)
        #expect(whole.entries.map(\.resource.id) == ["one", "five", "two"])
        #expect(whole.entries[1].decisions.map(\.action) == [.upToDate, .refetch, .fetch, .resume, .upToDate])
        #expect(whole.proofs.stale[root] == ["old/gone.bin"])
        for size in [1, 2, 3, 5, 7] {
            #expect(summary(Planner.plan(for: manifest, parallelism: 2, memory: memory, batchSize: size)) == summary(whole), "batches of \(size)")
        }
        let unremembered = Planner.plan(for: manifest, parallelism: 1)
        for size in [1, 4] {
            #expect(summary(Planner.plan(for: manifest, parallelism: 1, batchSize: size)) == summary(unremembered), "batches of \(size)")
        }
    }

    /// A settled record of `file`, proven by a fetch against ``digest``.
    static func record(_ file: FileIdentity) -> ProvenFile {
        ProvenFile(file: file, digests: [digest], seenAtNanoseconds: file.settlesAt, provenAtMilliseconds: 1, fetchedAtMilliseconds: 1)
    }

    /// `m.yaml` of `dir`, loaded as from that folder, every resource writing to `dir/mirror`.
    /// The plan of a manifest of `resources` (flow mappings), nothing on disk yet.
    static func plan(_ resources: [String]) throws -> Plan {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        _ = try dir.write(file: "m.yaml", contents: "version: 1\nresources:\n" + resources.map { "  - \($0)\n" }.joined())
        return Planner.plan(for: try manifestWithMirror(in: dir), parallelism: 1) { _ in
            .success(FileSystemUsage(device: 1, freeBytes: 10 << 30, sizeBytes: 100 << 30))
        }
    }

    static func manifestWithMirror(in dir: TemporaryDirectory) throws -> Manifest {
        var options = ManifestLoader.Options()
        options.currentDirectory = dir.path
        options.outputOverride = dir.path("mirror")
        return try #require(ManifestLoader.load(paths: [dir.path("m.yaml")], options: options).manifest)
    }

    static func sha256Hex(_ s: String) -> String {
        (try? Digest.compute(.sha256, of: Array(s.utf8)))?.hex ?? ""
    }
}
