import Foundation
import JobrunCore
import JobrunState
import JobrunTestSupport
import Testing
import JobrunSystem

/// The mirror state in use (docs/state.md): a file unchanged since its last proof is not read
/// again; anything else about it (its bytes, its times, the digests the manifest expects) makes
/// it read; a store that is missing or damaged costs hashing, never the mirror; each output
/// root has its own; a killed apply leaves no record of a file that is not on disk.
@Suite struct MirrorStateTests {
    static let size = 3_000
    static let names = (1...6).map { "f\($0).bin" }

    static func manifest(_ fixture: ApplyFixture, output: String = "mirror", id: String = "r", names: [String] = names, route: String = "") -> String {
        """
        version: 1
        defaults:
          output: \(output)
          retries: {attempts: 1}
        resources:
          - id: \(id)
            base_url: \(fixture.url("\(route)/gen/\(size)/"))
            slices:
        \(names.map { "      - {path: \($0), size: \(size), sha256: \(Generated.sha256Hex(size: size, name: $0))}" }.joined(separator: "\n"))

        """
    }

    /// `plan --json`'s counts of files proven by hashing and passed as unchanged since proven.
    static func planProofs(
        _ fixture: ApplyFixture, _ extra: [String] = [], sourceLocation: Testing.SourceLocation = #_sourceLocation
    )
        async throws -> (hashed: Int, unchanged: Int, summary: [String: Any], stderr: String)
    {
        let plan = try await fixture.run(["plan", "site.yaml", "--json"] + extra, sourceLocation: sourceLocation)
        #expect(plan.status == 0, "\(plan)", sourceLocation: sourceLocation)
        let document = try JSONSerialization.jsonObject(with: Data(plan.stdout.utf8)) as? [String: Any]
        let summary = try #require(document?["summary"] as? [String: Any], "\(plan)", sourceLocation: sourceLocation)
        let hashed = try #require(summary["proven_by_hashing"] as? Int, sourceLocation: sourceLocation)
        let unchanged = try #require(summary["unchanged_since_proven"] as? Int, sourceLocation: sourceLocation)
        return (hashed, unchanged, summary, plan.stderr)
    }

    static func records(_ root: String) throws -> [String: ProvenFile] {
        try StateStore(root: root).provenFiles()
    }

    @Test func anUnchangedMirrorIsPlannedAndVerifiedQuicklyWithoutReadingIt() async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        try fixture.write(manifest: Self.manifest(fixture))
        #expect(try await fixture.apply().status == 0)
        #expect(try Self.records(fixture.directory.path("mirror")).count == 6)

        let quick = try await Self.planProofs(fixture)
        #expect(quick.hashed == 0 && quick.unchanged == 6 && quick.summary["up_to_date"] as? Int == 6, "\(quick)")
        let rehashed = try await Self.planProofs(fixture, ["--rehash"])
        #expect(rehashed.hashed == 6 && rehashed.unchanged == 0, "\(rehashed)")

        let verify = try await fixture.run(["verify", "site.yaml", "-q"])
        #expect(verify.status == 0 && verify.stdout == "Verify: 6 ok, 0 mismatched, 0 missing, 0 errors; 6 proven by hashing.\n", "\(verify)")
        let verifyQuick = try await fixture.run(["verify", "site.yaml", "-q", "--quick"])
        #expect(
            verifyQuick.status == 0
                && verifyQuick.stdout == "Verify: 6 ok, 0 mismatched, 0 missing, 0 errors; 0 proven by hashing, 6 unchanged since proven.\n",
            "\(verifyQuick)")
    }

    /// Changed bytes are found even when the modification time is put back (the change time
    /// cannot be); a digest the manifest adds is not in the record, so that file is read.
    @Test func aChangedFileOrANewDigestIsReadAgain() async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        try fixture.write(manifest: Self.manifest(fixture))
        #expect(try await fixture.apply().status == 0)
        let changed = fixture.directory.path("mirror/r/f2.bin")
        let modified = try #require(try FileManager.default.attributesOfItem(atPath: changed)[.modificationDate] as? Date)
        let handle = try #require(FileHandle(forUpdatingAtPath: changed))
        try handle.seek(toOffset: 100)
        try handle.write(contentsOf: Data("tampered".utf8))
        try handle.close()
        try FileManager.default.setAttributes([.modificationDate: modified], ofItemAtPath: changed)

        let plan = try await Self.planProofs(fixture)
        #expect(plan.hashed == 0 && plan.unchanged == 5 && plan.summary["refetch"] as? Int == 1, "\(plan)")
        let (apply, report) = try await fixture.applyJSON()
        #expect(apply.status == 0 && report.summary.repaired == 1 && report.summary.upToDate == 5, "\(apply)")
        #expect(try report.slice("r", "f2.bin").status == "repaired")
        let after = try await Self.planProofs(fixture)
        #expect(after.hashed + after.unchanged == 6 && after.summary["up_to_date"] as? Int == 6, "\(after)")

        // The manifest now also expects an MD5 of f3.bin: the record proved only its SHA-256.
        let md5 = try fixture.digest("/gen/\(Self.size)/f3.bin", algorithm: "md5")
        try fixture.write(
            manifest: Self.manifest(fixture).replacingOccurrences(
                of: "{path: f3.bin, size: \(Self.size), ", with: "{path: f3.bin, size: \(Self.size), md5: \(md5), "))
        let more = try await Self.planProofs(fixture)
        #expect(more.hashed >= 1 && more.summary["up_to_date"] as? Int == 6, "\(more)")
        let again = try await Self.planProofs(fixture)
        #expect(again.hashed == 0 && again.unchanged == 6, "\(again)")
    }

    /// Deleted: plan hashes and creates nothing, apply starts a new store. Damaged (garbage, cut
    /// short, a schema version its tables are not, a folder in its place): plan says so once and
    /// hashes, apply sets it aside and starts anew, and status is right afterwards. The mirror is
    /// never the worse for it.
    @Test(arguments: ["deleted", "garbage", "truncated", "version", "folder"])
    func aMissingOrDamagedStoreCostsOnlyHashing(damage: String) async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        try fixture.write(manifest: Self.manifest(fixture))
        #expect(try await fixture.apply().status == 0)
        let folder = fixture.directory.path("mirror/.jobrun")
        let database = folder + "/state.sqlite"
        switch damage {
        case "deleted":
            try FileManager.default.removeItem(atPath: folder)
        case "garbage":
            try Data(repeating: 0x5A, count: 20_000).write(to: URL(fileURLWithPath: database))
        case "version":
            // Sound bytes whose schema version (the header's user_version) says 1 over the tables of a later one.
            _ = try StateStore(root: fixture.directory.path("mirror"))  // opening and closing checkpoints the log
            var whole = try Data(contentsOf: URL(fileURLWithPath: database))
            whole.replaceSubrange(60..<64, with: [0, 0, 0, 1])
            try whole.write(to: URL(fileURLWithPath: database))
        case "folder":
            try FileManager.default.removeItem(atPath: database)
            try FileManager.default.createDirectory(atPath: database, withIntermediateDirectories: false)
        default:
            // Everything in the database file itself, then cut to its first page.
            _ = try StateStore(root: fixture.directory.path("mirror"))  // opening and closing checkpoints the log
            let whole = try Data(contentsOf: URL(fileURLWithPath: database))
            try whole.prefix(4_096).write(to: URL(fileURLWithPath: database))
        }
        for leftover in ["-wal", "-shm"] where damage != "deleted" { try? FileManager.default.removeItem(atPath: database + leftover) }

        let plan = try await Self.planProofs(fixture)
        #expect(plan.hashed == 6 && plan.unchanged == 0 && plan.summary["up_to_date"] as? Int == 6, "\(plan)")
        if damage == "deleted" {
            #expect(plan.stderr.isEmpty && !FileManager.default.fileExists(atPath: folder), "\(plan)")
        } else {
            #expect(plan.stderr.hasPrefix("jobrun: warning: the mirror state 'mirror/.jobrun/state.sqlite' is damaged ("), "\(plan)")
            #expect(plan.stderr.hasSuffix("; going on without it (files are hashed, nothing is recorded)\n"), "\(plan)")
            #expect(plan.stderr.split(separator: "\n").count == 1, "\(plan)")
        }

        let apply = try await fixture.apply()
        #expect(apply.status == 0 && apply.stdout.hasSuffix("0 fetched (0 B), 0 resumed, 6 up to date, 0 failed, 0 deferred.\n"), "\(apply)")
        if damage == "deleted" {
            #expect(apply.stderr.isEmpty, "\(apply)")
        } else {
            #expect(apply.stderr.contains("is damaged") && apply.stderr.contains("moved to 'mirror/.jobrun/state.sqlite.damaged'"), "\(apply)")
            #expect(FileManager.default.fileExists(atPath: database + ".damaged"))
        }
        let after = try await Self.planProofs(fixture)
        #expect(after.hashed == 0 && after.unchanged == 6 && after.stderr.isEmpty, "\(after)")
        let status = try await fixture.run(["status", "site.yaml", "--runs", "0"])
        #expect(status.status == 0 && status.stderr.isEmpty && status.stdout.hasPrefix("= r -> mirror/r/: 6 proven"), "\(status)")
        try await fixture.expectVerified()
    }

    /// An apply that refuses to start (a stale saved plan) leaves the root as it was: no store,
    /// though its plan hashed the files in place.
    @Test func aRefusedApplyRecordsNothing() async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        try fixture.write(manifest: Self.manifest(fixture))
        #expect(try await fixture.apply().status == 0)
        try FileManager.default.removeItem(atPath: fixture.directory.path("mirror/.jobrun"))
        let saved = try await fixture.run(["plan", "site.yaml", "--out", "p.json"])
        #expect(saved.status == 0, "\(saved)")
        try fixture.write(manifest: Self.manifest(fixture, names: Array(Self.names.dropLast())))
        let refused = try await fixture.run(["apply", "p.json"])
        #expect(refused.status == 1 && refused.stderr.contains("the saved plan is stale"), "\(refused)")
        #expect(!fixture.directory.exists("mirror/.jobrun"))
    }

    /// A mirror on a read-only mount: `status` reads its state, `plan` still recognizes unchanged
    /// files, and a `verify` that proved files it cannot record says so once.
    @Test(.enabled(if: DiskFull.canMount, "cannot mount here (needs root)"))
    func aReadOnlyMirrorStillHasItsState() async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        try fixture.write(manifest: Self.manifest(fixture))
        #expect(try await fixture.apply().status == 0)
        let view = try fixture.directory.makeDirectory("view")
        try #require(DiskFull.bindReadOnly(fixture.directory.path("mirror"), at: view), "mount --bind -o ro failed")
        defer { DiskFull.unmount(view) }

        let status = try await fixture.run(["status", "site.yaml", "--output", "view", "--runs", "0"])
        #expect(status.status == 0 && status.stdout.hasPrefix("= r -> view/r/: 6 proven"), "\(status)")
        let plan = try await Self.planProofs(fixture, ["--output", "view"])
        #expect(plan.unchanged == 6 && plan.hashed == 0 && plan.stderr.isEmpty, "\(plan)")
        // verify reads every file, and has proofs it cannot record: it says so once.
        let verify = try await fixture.run(["verify", "site.yaml", "--output", "view", "-q"])
        #expect(verify.status == 0 && verify.stdout.hasSuffix("; 6 proven by hashing.\n"), "\(verify)")
        #expect(
            verify.stderr == "jobrun: warning: the mirror state 'view/.jobrun/state.sqlite' can only be read here: what this run proved is not recorded\n",
            "\(verify)")
    }

    /// An output root reached through a symbolic link (a folder above it, as `/srv -> /data/srv`,
    /// or the root itself): its state is recorded and used as any other's, with no warning.
    @Test(arguments: ["above", "root"])
    func aRootReachedThroughALinkKeepsItsState(link: String) async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        _ = try fixture.directory.makeDirectory("data")
        _ = try fixture.directory.makeDirectory("data/srv")
        let output: String
        if link == "above" {
            try FileManager.default.createSymbolicLink(atPath: fixture.directory.path("srv"), withDestinationPath: "data/srv")
            output = "srv/mirror"
        } else {
            _ = try fixture.directory.makeDirectory("data/srv/mirror")
            try FileManager.default.createSymbolicLink(atPath: fixture.directory.path("mirror"), withDestinationPath: "data/srv/mirror")
            output = "mirror"
        }
        try fixture.write(manifest: Self.manifest(fixture, output: output))
        let apply = try await fixture.apply()
        #expect(apply.status == 0 && apply.stderr.isEmpty, "\(apply)")
        #expect(try Self.records(fixture.directory.path(output)).count == 6)
        #expect(fixture.directory.exists("data/srv/mirror/.jobrun/state.sqlite"))

        let plan = try await Self.planProofs(fixture)
        #expect(plan.hashed == 0 && plan.unchanged == 6 && plan.stderr.isEmpty, "\(plan)")
        let status = try await fixture.run(["status", "site.yaml", "--runs", "0"])
        #expect(status.status == 0 && status.stderr.isEmpty, "\(status)")
        #expect(status.stdout.hasPrefix("= r -> \(output)/r/: 6 proven"), "\(status)")
    }

    /// Two output roots: each has its own store, holding its own files.
    @Test func eachOutputRootHasItsOwnState() async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        try fixture.write(manifest: Self.manifest(fixture, output: "one", id: "a", names: ["a1.bin", "a2.bin"]))
        try fixture.write(manifest: Self.manifest(fixture, output: "two", id: "b", names: ["b1.bin"]), to: "other.yaml")
        let apply = try await fixture.run(["apply", "site.yaml", "other.yaml"])
        #expect(apply.status == 0, "\(apply)")
        #expect(try Set(Self.records(fixture.directory.path("one")).keys) == ["a/a1.bin", "a/a2.bin"])
        #expect(try Set(Self.records(fixture.directory.path("two")).keys) == ["b/b1.bin"])
        let verify = try await fixture.run(["verify", "site.yaml", "other.yaml", "-q", "--quick", "--extra"])
        #expect(verify.stdout == "Verify: 3 ok, 0 mismatched, 0 missing, 0 errors, 0 extra; 0 proven by hashing, 3 unchanged since proven.\n", "\(verify)")
    }

    /// SIGKILL in the middle of a run: every record names a file that is on disk with the
    /// recorded identity and bytes (records follow the renames they describe, never precede
    /// them); the next apply completes, and what was committed but not recorded is hashed.
    @Test func aKilledApplyLeavesNoRecordOfAFileThatIsNotOnDisk() async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        // Two at a time: ten quick slices (the first batch), then one that takes a minute the
        // first time it is asked for, beside four that take 0.7 s (later batches, whose syncs make
        // the earlier ones durable and recorded), then quick ones: the run is under way, waiting
        // for the slow one, whenever it is killed, and the next run gets that one at once.
        let names = (1...30).map { "s\($0).bin" }
        func route(_ k: Int) -> String {
            switch k {
            case 10: "/fault/delay_ms=60000;n=1"
            case 11..<15: "/fault/delay_ms=700;n=1"
            default: ""
            }
        }
        let slices = names.enumerated().map { k, name in
            "      - {path: \(name), url: \"\(fixture.url("\(route(k))/gen/\(Self.size)/\(name)"))\", size: \(Self.size), sha256: \(Generated.sha256Hex(size: Self.size, name: name))}"
        }
        try fixture.write(
            manifest: """
                version: 1
                defaults:
                  retries: {attempts: 1}
                  concurrency: {total: 2, per_host: 2}
                resources:
                  - id: r
                    slices:
                \(slices.joined(separator: "\n"))

                """)
        let apply = try fixture.startApply()
        defer { apply.kill() }
        let root = fixture.directory.path("mirror")
        let recorded = await Poll.until(timeout: .seconds(60)) {
            guard FileManager.default.fileExists(atPath: root + "/.jobrun/state.sqlite") else { return false }
            return ((try? Self.records(root))?.count ?? 0) >= 2
        }
        try #require(recorded, "no records while the apply ran: \(apply.stderr)")
        apply.kill()

        let records = try Self.records(root)
        #expect(records.count < names.count, "the run ended before it was killed")
        for (path, record) in records {
            var status = stat()
            try #require(lstat(root + "/" + path, &status) == 0, "\(path) is recorded but not on disk")
            #expect(FileIdentity(status) == record.file, "\(path)")
            let name = String(path.split(separator: "/").last ?? "")
            #expect(try fixture.sha256(ofFile: "mirror/" + path) == Generated.sha256Hex(size: Self.size, name: name), "\(path)")
        }

        let again = try await fixture.apply()
        #expect(again.status == 0, "\(again)")
        try await fixture.expectVerified()
        let plan = try await Self.planProofs(fixture)
        #expect(plan.hashed + plan.unchanged == names.count && plan.summary["up_to_date"] as? Int == names.count, "\(plan)")
    }
}
