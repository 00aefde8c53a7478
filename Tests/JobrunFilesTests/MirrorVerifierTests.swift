import JobrunCore
import JobrunManifest
import JobrunState
import JobrunFiles
import Testing
import JobrunSystem

/// What `verify` counts: files that passed without a digest are counted by kind, as ok unless
/// digests are required; `alsoComputing` gives every passing file that digest.
struct MirrorVerifierTests {
    static let manifest = """
        version: 1
        defaults: {output: ./mirror}
        resources:
          - id: r
            base_url: https://h/
            slices:
              - {path: proven.txt, size: 3, md5: 900150983cd24fb0d6963f7d28e17f72}
              - {path: sized.txt, size: 3}
              - {path: bare.txt}
              - {path: short.txt, size: 9}
              - {path: gone.txt}

        """

    static func verify(requiresDigests: Bool, alsoComputing: DigestAlgorithm? = nil) throws -> MirrorVerification {
        try withTemporaryDirectory { root in
            try writeFile(root, "m.yaml", Array(manifest.utf8))
            for name in ["proven.txt", "sized.txt", "bare.txt", "short.txt"] { try writeFile(root, "mirror/r/\(name)", FileCheckerTests.abc) }
            let loaded = ManifestLoader.load(paths: [root + "/m.yaml"])
            let manifest = try #require(loaded.manifest, "\(loaded.diagnostics)")
            return MirrorVerifier.verify(manifest, parallelism: 2, requiresDigests: requiresDigests, alsoComputing: alsoComputing)
        }
    }

    @Test func filesWithoutADigestAreOkButCountedByKind() throws {
        let v = try Self.verify(requiresDigests: false)
        #expect(v.counts.ok == 3 && v.counts.mismatched == 1 && v.counts.missing == 1 && v.counts.errors == 0)
        // A slice without a digest that failed its other checks is a failure, not "without digests".
        #expect(v.counts.withoutDigests.sizeOnly == 1 && v.counts.withoutDigests.unverified == 1)
        #expect(v.counts.slices == 5 && !v.counts.isAllOK)
        // Nothing asked for: files without digests are not read.
        #expect(v.entries[0].checks[1] == .ok(size: 3, digests: []))
    }

    @Test func requiringDigestsFailsThemWithoutCountingThemOk() throws {
        let v = try Self.verify(requiresDigests: true)
        #expect(v.counts.ok == 1 && v.counts.refusedWithoutDigests == 2 && v.counts.slices == 5)
        #expect(v.entries[0].counts.ok == 1 && v.entries[0].counts.requiresDigests)
        #expect(!v.counts.isAllOK)
    }

    @Test func alsoComputingGivesEveryPassingFileThatDigest() throws {
        let v = try Self.verify(requiresDigests: false, alsoComputing: .sha256)
        let checks = v.entries[0].checks
        #expect(checks[0] == .ok(size: 3, digests: [FileCheckerTests.abcMD5, FileCheckerTests.abcSHA256]))
        #expect(checks[1] == .ok(size: 3, digests: [FileCheckerTests.abcSHA256]))
        #expect(checks[2] == .ok(size: 3, digests: [FileCheckerTests.abcSHA256]))
        #expect(checks[3] == .sizeMismatch(expected: 9, actual: 3) && checks[4] == .missing)
    }

    /// With `--resource`, only the selected resources' folders are walked for extra files, and a
    /// file a resource left out names is not extra, though it lies in a selected folder.
    @Test func extraFilesOfASelectionKnowTheResourcesLeftOut() throws {
        let yaml = """
            version: 1
            defaults: {output: ./mirror}
            resources:
              - {id: whole, dest: "", base_url: "https://h/", slices: [{path: top.txt}]}
              - {id: part, dest: part, base_url: "https://h/", slices: [{path: in.txt}]}
              - {id: apart, dest: apart, base_url: "https://h/", slices: [{path: a.txt}]}

            """
        let extra: [String: [String]] = try withTemporaryDirectory { root in
            try writeFile(root, "m.yaml", Array(yaml.utf8))
            for name in ["top.txt", "part/in.txt", "part/stray.txt", "apart/a.txt", "apart/stray.txt", "stray.txt"] {
                try writeFile(root, "mirror/\(name)", FileCheckerTests.abc)
            }
            let loaded = ManifestLoader.load(paths: [root + "/m.yaml"])
            let manifest = try #require(loaded.manifest, "\(loaded.diagnostics)")
            var found: [String: [String]] = [:]
            for ids in [[], ["whole"], ["part"], ["apart"]] {
                let selected = try manifest.selecting(ids: ids).get()
                let files = MirrorVerifier.verify(selected, parallelism: 1, findExtraFiles: true).extraFiles ?? []
                found[ids.first ?? "all"] = files.map { $0.components(separatedBy: "/mirror/").last ?? $0 }
            }
            return found
        }
        #expect(extra["all"] == ["apart/stray.txt", "part/stray.txt", "stray.txt"])
        // The root is walked: part/in.txt and apart/a.txt are named by resources left out.
        #expect(extra["whole"] == ["apart/stray.txt", "part/stray.txt", "stray.txt"])
        #expect(extra["part"] == ["part/stray.txt"])
        #expect(extra["apart"] == ["apart/stray.txt"])
    }

    /// Checked a batch at a time, a verification is the same whatever the batch's size: every
    /// check in order, the counts, the times, and what the mirror state learns.
    @Test func batchesOfAnySizeGiveTheSameVerification() throws {
        try withTemporaryDirectory { root in
            let sha = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
            try writeFile(
                root, "m.yaml",
                Array(
                    """
                    version: 1
                    defaults: {output: ./mirror}
                    resources:
                      - id: five
                        base_url: https://h/5/
                        depends_on: [one]
                        slices:
                          - {path: ok.bin, size: 3, sha256: \(sha)}
                          - {path: short.bin, size: 4}
                          - {path: missing.bin, size: 2MiB}
                          - {path: recorded.bin, size: 3, sha256: \(sha)}
                          - {path: bare.bin}
                      - id: two
                        base_url: https://h/2/
                        slices: [{path: x.bin}, {path: y.bin, size: 3}]
                      - id: one
                        base_url: https://h/1/
                        slices: [{path: a.bin, size: 3, sha256: \(sha)}]

                    """.utf8))
            for file in ["one/a.bin", "five/ok.bin", "five/short.bin", "five/recorded.bin", "five/bare.bin", "two/y.bin"] {
                try writeFile(root, "mirror/" + file, FileCheckerTests.abc)
            }
            let loaded = ManifestLoader.load(paths: [root + "/m.yaml"])
            let manifest = try #require(loaded.manifest, "\(loaded.diagnostics)")
            let mirror = manifest.resources[0].outputRoot
            // Checked in dependency order, which is not the order declared.
            let order = manifest.dependencyOrder.map { manifest.resources[$0].id }
            #expect(order != manifest.resources.map(\.id))
            let recorded = try FileIdentity.ofFile(atPath: root + "/mirror/five/recorded.bin")
            let gone = try FileIdentity.ofFile(atPath: root + "/mirror/one/a.bin")
            let record = { (file: FileIdentity) in
                ProvenFile(
                    file: file, digests: [FileCheckerTests.abcSHA256], seenAtNanoseconds: file.settlesAt, provenAtMilliseconds: 1, fetchedAtMilliseconds: 1)
            }
            let memory = MirrorMemory(known: [mirror: ["five/recorded.bin": record(recorded), "old/gone.bin": record(gone)]])
            func summary(_ v: MirrorVerification) -> String {
                let entries = v.entries.map { "\($0.resource.id): \($0.checks) \($0.seconds.count) \($0.counts)" }
                let proven = v.proofs.proven.mapValues { $0.map { "\($0.resource)/\($0.path)/\($0.digests)" } }
                return "\(entries)\n\(v.counts)\n\(proven.sorted { $0.key < $1.key })\n\(v.proofs.stale)\n\(v.proofs.hashed) \(v.proofs.recognized)"
            }
            let whole = MirrorVerifier.verify(manifest, parallelism: 1, alsoComputing: .sha256, timesChecks: true, memory: memory)
            #expect(whole.entries.map(\.resource.id) == order)
            let sizes = ["one": 1, "five": 5, "two": 2]
            #expect(whole.entries.map(\.checks.count) == order.map { sizes[$0] ?? 0 } && whole.entries.allSatisfy { $0.seconds.count == $0.checks.count })
            #expect(whole.counts.ok == 5 && whole.counts.mismatched == 1 && whole.counts.missing == 2)
            #expect(whole.proofs.recognized == 1 && whole.proofs.stale[mirror] == ["old/gone.bin"])
            for size in [1, 2, 3, 5, 7] {
                let batched = MirrorVerifier.verify(manifest, parallelism: 2, alsoComputing: .sha256, timesChecks: true, memory: memory, batchSize: size)
                #expect(summary(batched) == summary(whole), "batches of \(size)")
            }
            let unremembered = MirrorVerifier.verify(manifest, parallelism: 1)
            for size in [1, 4] {
                #expect(summary(MirrorVerifier.verify(manifest, parallelism: 1, batchSize: size)) == summary(unremembered), "batches of \(size)")
            }
        }
    }
}
