import Foundation
import JobrunState
import JobrunTestSupport
import Testing

/// `jobrun status` against mirrors `apply` made from the fault server: what the stores prove
/// after a complete apply, after a file is changed or deleted, with a maximum age, without a
/// store, with two output roots, and as JSON; its exit status is what a monitoring check reads.
@Suite struct StatusTests {
    /// `notes`, in `./other`: a second output root beside `./mirror`, where
    /// ``ApplyHappyPathTests/manifest(_:)`` puts `extras` (one slice), `intro` (one) and
    /// `lessons` (two).
    static func otherManifest(_ fixture: ApplyFixture) -> String {
        """
        version: 1
        defaults:
          output: ./other
        resources:
          - id: notes
            base_url: \(fixture.server.baseURL)/gen/500/
            slices:
              - path: notes.txt
                sha256: \(Generated.sha256Hex(size: 500, name: "notes.txt"))

        """
    }

    /// A mirror partly there (`intro`'s file put in place by hand, and with `other`, `notes`'s
    /// too), then `apply` (run id `fetch`: it proves those by hashing and fetches the rest) and
    /// `apply` again (`again`: nothing to do).
    static func applyRecorded(_ fixture: ApplyFixture, other: Bool = false) async throws {
        try fixture.directory.write(file: "mirror/intro/index.json", bytes: Generated.bytes(size: 1_000, name: "index.json"))
        var manifests = ["site.yaml"]
        if other {
            try fixture.write(manifest: Self.otherManifest(fixture), to: "other.yaml")
            try fixture.directory.write(file: "other/notes/notes.txt", bytes: Generated.bytes(size: 500, name: "notes.txt"))
            manifests.append("other.yaml")
        }
        for runID in ["fetch", "again"] {
            let result = try await fixture.run(["apply"] + manifests, environment: ["JOBRUN_RUN_ID": runID])
            try #require(result.status == 0, "\(result)")
        }
    }

    /// The lines of `text` that start with `prefix`.
    static func lines(_ text: String, startingWith prefix: String) -> [Substring] {
        text.split(separator: "\n").filter { $0.hasPrefix(prefix) }
    }

    /// A first apply that fails before it records any file still records the run, so that
    /// `status` can say it failed.
    @Test func aFirstRunThatFailsIsRecorded() async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        try fixture.write(
            manifest: """
                version: 1
                defaults: {retries: {attempts: 1}}
                resources:
                  - id: r
                    slices: [{path: gone.bin, url: "\(fixture.url("/status/404"))"}]

                """)
        let apply = try await fixture.run(["apply", "site.yaml"], environment: ["JOBRUN_RUN_ID": "first"])
        #expect(apply.status == 1, "\(apply)")
        let status = try await fixture.run(["status", "site.yaml"])
        #expect(status.status == 1, "\(status)")
        #expect(Self.lines(status.stdout, startingWith: "  first apply: started ").first?.contains(", exit 1; failed=1") == true, "\(status)")
        #expect(!status.stderr.contains("no mirror state"), "\(status)")
    }

    @Test func everySliceProvenThenOneChangedThenOneMissing() async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        try fixture.write(manifest: ApplyHappyPathTests.manifest(fixture))
        try await Self.applyRecorded(fixture)

        let proven = try await fixture.run(["status", "site.yaml"])
        #expect(proven.status == 0, "\(proven)")
        #expect(proven.stderr.isEmpty, "\(proven)")
        // `intro` was proven by hashing, `lessons` by fetching.
        let intro = Self.lines(proven.stdout, startingWith: "= intro -> mirror/intro/: 1 proven; fully proven ")
        #expect(intro.count == 1 && intro.allSatisfy { $0.hasSuffix(" ago)") && !$0.contains("fetched") }, "\(proven)")
        let lessons = Self.lines(proven.stdout, startingWith: "= lessons -> mirror/lessons/a/: 2 proven; fully proven ")
        #expect(lessons.count == 1 && lessons.allSatisfy { $0.contains(" ago); last fetched ") }, "\(proven)")
        // The runs, newest first, with their ids and outcome.
        let runs = Self.lines(proven.stdout, startingWith: "  ")
        try #require(runs.count == 2, "\(proven)")
        #expect(runs[0].hasPrefix("  again apply: started ") && runs[1].hasPrefix("  fetch apply: started "), "\(proven)")
        #expect(runs.allSatisfy { $0.contains(", exit 0") }, "\(proven)")
        #expect(runs[1].contains("fetched=3") && runs[1].contains("up_to_date=1"), "\(proven)")
        let summary = try #require(proven.stdout.split(separator: "\n").last)
        #expect(summary.hasPrefix("Status: 4 of 4 slices proven, oldest proof 20") && summary.hasSuffix("Z."), "\(proven)")
        #expect(try await fixture.run(["status", "site.yaml", "--runs", "1"]).stdout.contains("  again apply:"))
        #expect(!(try await fixture.run(["status", "site.yaml", "--runs", "0"]).stdout.contains("Last runs")))

        // One byte changed in place, same size: changed.
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: fixture.directory.path("mirror/lessons/a/one.ts")))
        try handle.seek(toOffset: 1_500)
        let byte = try #require(try handle.read(upToCount: 1)?.first)
        try handle.seek(toOffset: 1_500)
        try handle.write(contentsOf: Data([byte ^ 0xFF]))
        try handle.close()
        #expect(fixture.size(of: "mirror/lessons/a/one.ts") == 3_000)
        let changed = try await fixture.run(["status", "site.yaml"])
        #expect(changed.status == 1, "\(changed)")
        #expect(Self.lines(changed.stdout, startingWith: "~ lessons -> mirror/lessons/a/: 1 proven, 1 changed").count == 1, "\(changed)")
        #expect(Self.lines(changed.stdout, startingWith: "= intro ").count == 1, "\(changed)")
        #expect(changed.stdout.contains("\nStatus: 3 of 4 slices proven (1 changed), oldest proof "), "\(changed)")

        // One file deleted: missing. Status writes nothing: the mirror and the store stay as they were.
        try FileManager.default.removeItem(atPath: fixture.directory.path("mirror/intro/index.json"))
        let entries = DirectoryTree.entries(under: fixture.directory.path("mirror"))
        let store = try Data(contentsOf: URL(fileURLWithPath: fixture.directory.path("mirror/.jobrun/state.sqlite")))
        let missing = try await fixture.run(["status", "site.yaml"])
        #expect(DirectoryTree.entries(under: fixture.directory.path("mirror")) == entries)
        #expect(try Data(contentsOf: URL(fileURLWithPath: fixture.directory.path("mirror/.jobrun/state.sqlite"))) == store)
        #expect(missing.status == 1, "\(missing)")
        #expect(Self.lines(missing.stdout, startingWith: "~ intro -> mirror/intro/: 1 missing").count == 1, "\(missing)")
        #expect(missing.stdout.contains("\nStatus: 2 of 4 slices proven (1 changed, 1 missing), oldest proof "), "\(missing)")

        // What status called changed, verify (which reads the bytes) finds wrong.
        let verify = try await fixture.run(["verify", "site.yaml", "-q"])
        #expect(verify.status == 1 && verify.stdout.contains("* mirror/lessons/a/one.ts: sha256 differs"), "\(verify)")
    }

    /// `--max-age`: proofs younger than it pass; once a proof is older, exit 1 and say how many.
    @Test func proofsOlderThanTheMaximumAgeFail() async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        try fixture.write(manifest: ApplyHappyPathTests.manifest(fixture))
        try await Self.applyRecorded(fixture)

        let recent = try await fixture.run(["status", "site.yaml", "--max-age", "1d"])
        #expect(recent.status == 0, "\(recent)")
        #expect(recent.stdout.contains("\nStatus: 4 of 4 slices proven, 0 older than 1d, oldest proof "), "\(recent)")

        // The proofs made an hour older: each is older than 30m (no wait for the clock).
        let aged = try await BinaryRunner(executable: "/usr/bin/env").run([
            "python3", "-c",
            "import sqlite3, sys; db = sqlite3.connect(sys.argv[1]); db.execute('UPDATE slices SET proven_at_ms = proven_at_ms - 3600000'); db.commit()",
            fixture.directory.path("mirror/.jobrun/state.sqlite"),
        ])
        try #require(aged.status == 0, "\(aged)")
        let old = try await fixture.run(["status", "site.yaml", "--max-age", "30m"])
        #expect(old.status == 1, "\(old)")
        #expect(Self.lines(old.stdout, startingWith: "~ intro -> mirror/intro/: 1 proven (1 older than 30m); fully proven ").count == 1, "\(old)")
        #expect(old.stdout.contains("\nStatus: 4 of 4 slices proven, 4 older than 30m, oldest proof "), "\(old)")
    }

    /// A root without a store: said once on stderr, every file there unproven, exit 1.
    @Test func withoutAStoreEveryFileIsUnproven() async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        try fixture.write(manifest: ApplyHappyPathTests.manifest(fixture))
        try await Self.applyRecorded(fixture)
        try FileManager.default.removeItem(atPath: fixture.directory.path("mirror/.jobrun"))

        let result = try await fixture.run(["status", "site.yaml"])
        #expect(result.status == 1, "\(result)")
        #expect(result.stderr == "jobrun: warning: no mirror state in 'mirror': run 'jobrun apply' to record one\n", "\(result)")
        #expect(
            result.stdout == """
                ~ extras -> mirror/extras/: 1 unproven
                ~ intro -> mirror/intro/: 1 unproven
                ~ lessons -> mirror/lessons/a/: 2 unproven
                Status: 0 of 4 slices proven (4 unproven).

                """, "\(result)")
        #expect(!fixture.directory.exists("mirror/.jobrun"), "status never creates a store")
    }

    /// Two output roots: each root's store is read for its own files, and a run both stores
    /// hold is listed once.
    @Test func eachRootsStoreIsRead() async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        try fixture.write(manifest: ApplyHappyPathTests.manifest(fixture))
        try await Self.applyRecorded(fixture, other: true)
        #expect(fixture.directory.exists("mirror/.jobrun/state.sqlite") && fixture.directory.exists("other/.jobrun/state.sqlite"))

        let both = try await fixture.run(["status", "site.yaml", "other.yaml"])
        #expect(both.status == 0, "\(both)")
        #expect(Self.lines(both.stdout, startingWith: "= notes -> other/notes/: 1 proven; fully proven ").count == 1, "\(both)")
        #expect(Self.lines(both.stdout, startingWith: "  again apply:").count == 1, "\(both)")
        #expect(Self.lines(both.stdout, startingWith: "  fetch apply:").count == 1, "\(both)")
        #expect(both.stdout.contains("\nStatus: 5 of 5 slices proven, oldest proof "), "\(both)")

        // Without the second root's store, only its files lose their proof.
        try FileManager.default.removeItem(atPath: fixture.directory.path("other/.jobrun"))
        let one = try await fixture.run(["status", "site.yaml", "other.yaml"])
        #expect(one.status == 1, "\(one)")
        #expect(one.stderr == "jobrun: warning: no mirror state in 'other': run 'jobrun apply' to record one\n", "\(one)")
        #expect(Self.lines(one.stdout, startingWith: "~ notes -> other/notes/: 1 unproven").count == 1, "\(one)")
        #expect(Self.lines(one.stdout, startingWith: "= intro ").count == 1 && Self.lines(one.stdout, startingWith: "= lessons ").count == 1, "\(one)")
        #expect(one.stdout.contains("\nStatus: 4 of 5 slices proven (1 unproven), oldest proof "), "\(one)")
        // --resource narrows the report to the selection.
        let selected = try await fixture.run(["status", "site.yaml", "other.yaml", "--resource", "lessons"])
        #expect(selected.status == 0, "\(selected)")
        #expect(selected.stdout.contains("\nStatus: 3 of 3 slices proven, oldest proof "), "\(selected)")
        #expect(!selected.stdout.contains("extras") && !selected.stdout.contains("notes"), "\(selected)")
        #expect(selected.stderr == "Selected 2 of 4 resources (--resource lessons): intro, lessons.\n", "\(selected)")
    }

    /// Puts a copy of each file of the mirror (its `.jobrun` aside) in its place with the
    /// original's times, as `cp -a` and a restore of a backup or CI cache do: a new inode and
    /// change time, the same bytes, size and modification time.
    static func restoreCopies(in root: String) throws {
        for path in DirectoryTree.files(under: root) where !path.hasPrefix(root + "/.jobrun/") {
            var original = stat()
            try #require(stat(path, &original) == 0)
            try FileManager.default.copyItem(atPath: path, toPath: path + ".copy")
            let times = [original.st_atim, original.st_mtim]
            try #require(utimensat(AT_FDCWD, path + ".copy", times, 0) == 0)
            try #require(rename(path + ".copy", path) == 0)
        }
    }

    /// A mirror copied or restored with its times: every slice is moved or restored, not
    /// re-proven (exit 1), until one `verify` or `plan` reads them again; the re-proof keeps
    /// when each file was fetched.
    @Test(arguments: ["verify", "plan"])
    func aRestoredMirrorIsMovedUntilProvenAgain(command: String) async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        try fixture.write(manifest: ApplyHappyPathTests.manifest(fixture))
        try await Self.applyRecorded(fixture)
        let root = fixture.directory.path("mirror")
        let fetched = try StateStore(root: root, readOnly: true).provenFiles().mapValues(\.fetchedAtMilliseconds)
        #expect(fetched.values.compactMap { $0 }.count == 3, "\(fetched)")
        try Self.restoreCopies(in: root)
        let restored = Date()

        let moved = try await fixture.run(["status", "site.yaml", "--runs", "0"])
        #expect(moved.status == 1 && moved.stderr.isEmpty, "\(moved)")
        #expect(
            Self.lines(moved.stdout, startingWith: "~ lessons -> mirror/lessons/a/: 2 moved or restored (not re-proven); last fetched ").count == 1, "\(moved)")
        #expect(moved.stdout.hasSuffix("\nStatus: 0 of 4 slices proven (4 moved or restored).\n"), "\(moved)")
        let json = try await fixture.run(["status", "site.yaml", "--json"])
        let document = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any], "\(json)")
        let summary = try #require(document["summary"] as? [String: Any])
        #expect(summary["moved"] as? Int == 4 && summary["changed"] as? Int == 0 && summary["proven"] as? Int == 0, "\(json)")
        let resources = try #require(document["resources"] as? [[String: Any]])
        let statuses = resources.flatMap { ($0["not_proven"] as? [[String: String]] ?? []).map { $0["status"] } }
        #expect(statuses == Array(repeating: "moved", count: 4), "\(json)")

        // Proven again once the copies' change time is a time step old (a record taken sooner
        // is not trusted): the kernel's clock, which no test can move, has to pass it.
        #expect(await Poll.until(timeout: .seconds(5)) { Date().timeIntervalSince(restored) > 0.1 })
        let proof = try await fixture.run([command, "site.yaml"] + (command == "verify" ? ["-q"] : []))
        #expect(proof.status == 0 && proof.stderr.isEmpty, "\(proof)")
        let proven = try await fixture.run(["status", "site.yaml", "--runs", "0"])
        #expect(proven.status == 0, "\(proven)")
        #expect(proven.stdout.hasPrefix("= extras -> mirror/extras/: 1 proven; fully proven "), "\(proven)")
        #expect(
            Self.lines(proven.stdout, startingWith: "= lessons -> mirror/lessons/a/: 2 proven; fully proven ").allSatisfy {
                $0.contains("; last fetched ")
            }, "\(proven)")
        #expect(try StateStore(root: root, readOnly: true).provenFiles().mapValues(\.fetchedAtMilliseconds) == fetched)
    }

    @Test func jsonHasTheDocumentedFields() async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        try fixture.write(manifest: ApplyHappyPathTests.manifest(fixture))
        try await Self.applyRecorded(fixture)
        try FileManager.default.removeItem(atPath: fixture.directory.path("mirror/lessons/a/two.ts"))

        let result = try await fixture.run(["status", "site.yaml", "--json", "--max-age", "7d"], environment: ["JOBRUN_RUN_ID": "check-1"])
        #expect(result.status == 1, "\(result)")
        #expect(result.stderr.isEmpty, "\(result)")
        let document = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], "\(result)")
        #expect(document["format_version"] as? Int == 2)
        #expect(document["run_id"] as? String == "check-1")
        #expect(document["jobrun_version"] is String && document["checked_at"] is String && document["checked_at_ms"] is Int)
        #expect(document["max_age"] as? String == "7d" && document["max_age_ms"] as? Int == 604_800_000)
        let summary = try #require(document["summary"] as? [String: Any])
        for (key, value) in [
            "slices": 4, "proven": 3, "changed": 0, "moved": 0, "unproven": 0, "missing": 1, "resumable": 0, "errors": 0, "older_than_max_age": 0,
        ] {
            #expect(summary[key] as? Int == value, "summary.\(key): \(result)")
        }
        #expect(summary["all_proven"] as? Bool == false && summary["ok"] as? Bool == false)
        #expect(summary["oldest_proof"] is String && summary["oldest_proof_ms"] is Int)
        #expect((document["roots"] as? [[String: String]]) == [["path": "mirror", "store": "in_use"]])

        let resources = try #require(document["resources"] as? [[String: Any]])
        #expect(resources.map { $0["id"] as? String } == ["extras", "intro", "lessons"])
        #expect(resources[0]["fully_proven"] is String && resources[0]["last_fetched_ms"] is Int && resources[0]["ok"] as? Bool == true)
        #expect(resources[1]["fully_proven"] is String && resources[1]["last_fetched_ms"] is NSNull, "proven by hashing only")
        #expect(resources[2]["fully_proven"] is NSNull && resources[2]["oldest_proof_ms"] is Int && resources[2]["last_fetched"] is String)
        #expect((resources[2]["not_proven"] as? [[String: String]]) == [["path": "two.ts", "file": "mirror/lessons/a/two.ts", "status": "missing"]])

        let runs = try #require(document["runs"] as? [[String: Any]])
        #expect(runs.map { $0["run_id"] as? String } == ["again", "fetch"], "\(result)")
        #expect(runs.allSatisfy { $0["command"] as? String == "apply" && $0["exit_status"] as? Int == 0 && $0["duration_ms"] is Int })
        #expect((runs.last?["counts"] as? [String: Int])?["fetched"] == 3, "\(result)")
    }

    /// A first apply into an empty output root records what it fetched: `status` right after
    /// it proves everything.
    @Test func theFirstApplyIntoAnEmptyRootIsRecorded() async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        try fixture.write(manifest: ApplyHappyPathTests.manifest(fixture))
        let applied = try await fixture.apply(environment: ["JOBRUN_RUN_ID": "only"])
        try #require(applied.status == 0, "\(applied)")
        let result = try await fixture.run(["status", "site.yaml"])
        #expect(result.status == 0, "\(result)")
        #expect(Self.lines(result.stdout, startingWith: "= ").count == 3, "\(result)")
        #expect(Self.lines(result.stdout, startingWith: "  only apply: started ").count == 1, "\(result)")
        #expect(result.stdout.contains("\nStatus: 4 of 4 slices proven, oldest proof "), "\(result)")
    }
}
