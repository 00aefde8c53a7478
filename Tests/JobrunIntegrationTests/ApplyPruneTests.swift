import Foundation
import JobrunTestSupport
import Testing

/// `apply --prune`: after a complete run, the files of the pruned resources' folders that no slice
/// names and that jobrun fetched go to the trash, all of them or none; never after a failure,
/// never another program's file unless asked, and back with the documented copy.
@Suite struct ApplyPruneTests {
    static func manifest(_ fixture: ApplyFixture, _ names: [String], extra: String = "", prune: Bool = false) -> String {
        """
        version: 1
        resources:
          - id: r
            base_url: "\(fixture.url("/gen/500/"))"
        \(prune ? "    prune: true\n" : "")    slices:
        \(names.map { "      - {path: \($0), size: 500}" }.joined(separator: "\n"))
        \(extra)
        """
    }

    /// The manifest with `a`…`d` fetched, a foreign file beside them.
    static func fetched(_ fixture: ApplyFixture) async throws {
        try fixture.write(manifest: manifest(fixture, ["a.bin", "b.bin", "c.bin", "d.bin", "sub/e.bin"]))
        let first = try await fixture.apply()
        #expect(first.status == 0, "\(first)")
        try fixture.directory.write(file: "mirror/r/foreign.txt", contents: "someone else's")
    }

    @Test func whatTheManifestDroppedGoesToTheTrashAndComesBack() async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        try await Self.fetched(fixture)
        try fixture.write(manifest: Self.manifest(fixture, ["a.bin", "b.bin", "c.bin"]))

        let plan = try await fixture.run(["plan", "site.yaml", "--prune", "-v"])
        #expect(plan.status == 0, "\(plan)")
        #expect(plan.stdout.contains("- mirror/r/d.bin: to prune [r]\n") && plan.stdout.contains("- mirror/r/sub/e.bin: to prune [r]\n"), "\(plan)")
        #expect(plan.stdout.contains(", 0 deferred; 2 to prune;") || plan.stdout.contains(", 0 deferred; 2 to prune."), "\(plan)")
        #expect(!plan.stdout.contains("foreign.txt"), "\(plan)")
        #expect(fixture.directory.exists("mirror/r/d.bin"), "plan pruned")

        let (result, report) = try await fixture.applyJSON(["--prune", "--events", "events.ndjson", "--junit", "junit.xml", "--keep-trash", "0"])
        #expect(result.status == 0, "\(result)")
        let prune = try #require(report.prune)
        #expect(prune.state == "pruned" && prune.pruned == 2 && report.summary.pruned == 2, "\(result)")
        #expect(prune.files.map(\.path) == ["r/d.bin", "r/sub/e.bin"] && prune.files.allSatisfy { !$0.foreign })
        let trash = try #require(prune.trash)
        #expect(prune.files.map(\.trashPath) == [".jobrun/trash/\(trash)/r/d.bin", ".jobrun/trash/\(trash)/r/sub/e.bin"])
        #expect(!fixture.directory.exists("mirror/r/d.bin") && !fixture.directory.exists("mirror/r/sub/e.bin"))
        #expect(fixture.directory.exists("mirror/.jobrun/trash/\(trash)/r/d.bin") && fixture.directory.exists("mirror/r/foreign.txt"))
        #expect(fixture.directory.exists("mirror/r/a.bin") && fixture.directory.exists("mirror/r/c.bin"))
        let validation = EventSchemaCheck.validate([fixture.directory.path("events.ndjson")])
        #expect(validation.ok, "\(validation.output)")
        #expect(fixture.directory.contents(of: "events.ndjson")?.contains(#""type":"prune""#) == true)
        let junit = try JUnitFile.parse(try #require(fixture.directory.contents(of: "junit.xml")))
        #expect(junit.cases["r/prune"]?.kind == "passed", "\(junit)")
        // Their records went with them: status knows only what the manifest names.
        let status = try await fixture.run(["status", "site.yaml"])
        #expect(status.status == 0 && status.stdout.contains("3 of 3 slices proven"), "\(status)")
        // The next prune finds nothing more; --keep-trash 0 kept this run's trash until the next apply, the one after keeps it.
        #expect(fixture.directory.exists("mirror/.jobrun/trash/\(trash)/r/d.bin"))
        let again = try await fixture.apply(["--prune"])
        #expect(again.status == 0 && !again.stdout.contains("pruned"), "\(again)")
        #expect(fixture.directory.exists("mirror/.jobrun/trash/\(trash)/r/d.bin"))

        // The documented restore: hard links back, then the trash folder goes.
        let shell = BinaryRunner(executable: "/bin/sh", defaultTimeout: Harness.timeout)
        let restore = try await shell.run(
            ["-c", "cp -al mirror/.jobrun/trash/\(trash)/. mirror/ && rm -r mirror/.jobrun/trash/\(trash)"], workingDirectory: fixture.directory.path)
        #expect(restore.status == 0, "\(restore)")
        #expect(fixture.directory.bytes(of: "mirror/r/d.bin") == Generated.bytes(size: 500, name: "d.bin"))
        #expect(fixture.directory.bytes(of: "mirror/r/sub/e.bin") == Generated.bytes(size: 500, name: "sub/e.bin"))
    }

    @Test func overTheLimitNothingIsPrunedAndTheRunSaysWhy() async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        try await Self.fetched(fixture)
        // 4 of the 5 files go: over half of them.
        try fixture.write(manifest: Self.manifest(fixture, ["a.bin"], prune: true))
        let (refused, report) = try await fixture.applyJSON(["--junit", "refused.xml"])
        #expect(refused.status == 1, "\(refused)")
        let junit = try JUnitFile.parse(try #require(fixture.directory.contents(of: "refused.xml")))
        #expect(junit.cases["r/prune"]?.kind == "failure" && junit.cases["r/prune"]?.type == "PruneRefused", "\(junit)")
        #expect(report.prune?.state == "refused" && report.prune?.pruned == 0, "\(refused)")
        #expect(report.prune?.reason == "4 files to prune, more than --max-delete 50% allows (2 of the 5 files of the pruned resources); nothing was pruned")
        #expect(["b.bin", "c.bin", "d.bin", "sub/e.bin"].allSatisfy { fixture.directory.exists("mirror/r/\($0)") })
        let text = try await fixture.apply()
        #expect(text.status == 1 && text.stdout.contains("! prune refused: 4 files to prune") && text.stdout.contains("; prune refused;"), "\(text)")
        // A limit that allows them: all four go.
        let allowed = try await fixture.apply(["--max-delete", "4"])
        #expect(allowed.status == 0 && allowed.stdout.contains("; 4 pruned;"), "\(allowed)")
        #expect(!fixture.directory.exists("mirror/r/b.bin"))
    }

    @Test func aFailedRunPrunesNothingAndForeignFilesOnlyWhenAsked() async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        try await Self.fetched(fixture)
        let failing = """
              - id: broken
                slices: [{path: x.bin, url: "\(fixture.url("/status/404"))"}]
            """
        try fixture.write(manifest: Self.manifest(fixture, ["a.bin", "b.bin", "c.bin", "sub/e.bin"], extra: failing, prune: true))
        let failed = try await fixture.apply()
        #expect(failed.status == 1, "\(failed)")
        #expect(failed.stdout.contains("- prune: 1 file no slice names stay: 1 slice failed; nothing was pruned"), "\(failed)")
        #expect(fixture.directory.exists("mirror/r/d.bin"))

        try fixture.write(manifest: Self.manifest(fixture, ["a.bin", "b.bin", "c.bin", "sub/e.bin"], prune: true))
        let (result, report) = try await fixture.applyJSON(["--prune-foreign"])
        #expect(result.status == 0, "\(result)")
        // The foreign file first, said so.
        #expect(report.prune?.files.map(\.path) == ["r/foreign.txt", "r/d.bin"] && report.prune?.files.map(\.foreign) == [true, false], "\(result)")
        #expect(!fixture.directory.exists("mirror/r/foreign.txt") && !fixture.directory.exists("mirror/r/d.bin"))
    }
}
