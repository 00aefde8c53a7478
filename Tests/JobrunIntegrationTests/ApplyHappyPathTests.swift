import Foundation
import JobrunTestSupport
import Testing

/// `jobrun apply` when nothing goes wrong: every slice verified, dependencies in order, the
/// stable summary line, nothing transferred on the second run, and saved plans.
@Suite struct ApplyHappyPathTests {
    /// Three resources, `lessons` after `intro`, `extras` after both; sizes and digests of the
    /// server's generated content (one slice without a size).
    static func manifest(_ fixture: ApplyFixture) -> String {
        let base = fixture.server.baseURL
        return """
            version: 1
            defaults:
              output: ./mirror
              retries: {attempts: 2, backoff: {initial: 50ms, max: 200ms}}
            resources:
              - id: extras
                base_url: \(base)/gen/500/
                depends_on: [intro, lessons]
                slices:
                  - path: notes.txt
                    sha256: \(Generated.sha256Hex(size: 500, name: "notes.txt"))
              - id: intro
                base_url: \(base)/gen/1000/
                slices:
                  - path: index.json
                    size: 1000
                    sha256: \(Generated.sha256Hex(size: 1_000, name: "index.json"))
              - id: lessons
                base_url: \(base)/gen/3000/lessons/
                dest: lessons/a
                depends_on: [intro]
                slices:
                  - path: one.ts
                    size: 3000
                    sha256: \(Generated.sha256Hex(size: 3_000, name: "lessons/one.ts"))
                  - path: two.ts
                    size: 3000
                    sha256: \(Generated.sha256Hex(size: 3_000, name: "lessons/two.ts"))

            """
    }

    @Test func aCompleteMirrorThenNothingToDo() async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        try fixture.write(manifest: Self.manifest(fixture))

        let first = try await fixture.apply()
        #expect(first.status == 0, "\(first)")
        // One line per resource in completion order (dependencies force it), then the summary.
        // 7,500 bytes = 7.3 KiB; lessons: 6,000 bytes = 5.9 KiB.
        #expect(
            first.stdout == """
                + intro: 1 fetched (1000 B)
                + lessons: 2 fetched (5.9 KiB)
                + extras: 1 fetched (500 B)
                Apply complete! Slices: 4 fetched (7.3 KiB), 0 resumed, 0 up to date, 0 failed, 0 deferred.

                """, "\(first)")
        #expect(first.stderr.isEmpty, "\(first)")
        #expect(try fixture.sha256(ofFile: "mirror/lessons/a/two.ts") == Generated.sha256Hex(size: 3_000, name: "lessons/two.ts"))
        #expect(fixture.size(of: "mirror/extras/notes.txt") == 500)
        // No partial or metadata file is left beside the destinations.
        let entries = DirectoryTree.entries(under: fixture.directory.path("mirror"))
        #expect(!entries.contains { $0.contains("jobrun-") }, "\(entries)")
        try await fixture.expectVerified()

        // Dependents start only after what they depend on is complete, on the wire too.
        let log = try await fixture.server.waitForRequests { $0.count == 4 }
        let intro = try #require(log.first { $0.path == "/gen/1000/index.json" })
        let lessons = log.filter { $0.path.hasPrefix("/gen/3000/") }
        let extras = try #require(log.first { $0.path == "/gen/500/notes.txt" })
        #expect(lessons.count == 2 && lessons.allSatisfy { $0.time >= intro.endTime }, "\(log)")
        #expect(lessons.allSatisfy { extras.time >= $0.endTime }, "\(log)")
        #expect(log.allSatisfy { $0.method == "GET" && $0.status == 200 && $0.header(named: "Range") == nil }, "\(log)")

        let second = try await fixture.apply()
        #expect(second.status == 0, "\(second)")
        #expect(
            second.stdout == """
                = intro: 1 up to date
                = lessons: 2 up to date
                = extras: 1 up to date
                Apply complete! Slices: 0 fetched (0 B), 0 resumed, 4 up to date, 0 failed, 0 deferred.

                """, "\(second)")
        let after = try await fixture.server.settledRequests()
        #expect(after.count == 4, "the second apply sent requests: \(after)")
    }

    @Test func aSavedPlanAppliesAndAStaleOneIsRefusedUnlessRefreshed() async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        let manifest = """
            version: 1
            resources:
              - id: saved
                slices:
                  - path: a.bin
                    url: \(fixture.url("/gen/1000/a.bin"))
                    size: 1000
                    sha256: \(Generated.sha256Hex(size: 1_000, name: "a.bin"))

            """
        try fixture.write(manifest: manifest)
        let plan = try await fixture.run(["plan", "site.yaml", "--out", "plans/p.json"])
        #expect(plan.status == 0, "\(plan)")

        let applied = try await fixture.run(["apply", "plans/p.json"])
        #expect(applied.status == 0, "\(applied)")
        #expect(applied.stdout.hasSuffix("Apply complete! Slices: 1 fetched (1000 B), 0 resumed, 0 up to date, 0 failed, 0 deferred.\n"), "\(applied)")
        try await fixture.expectVerified()

        // A plan saved now, then the manifest edited (a slice added): stale.
        #expect(try await fixture.run(["plan", "site.yaml", "--out", "plans/q.json"]).status == 0)
        try fixture.write(
            manifest: manifest + """
                      - path: b.bin
                        url: \(fixture.url("/gen/700/b.bin"))
                        size: 700

                """)
        let stale = try await fixture.run(["apply", "plans/q.json"])
        #expect(stale.status == 1, "\(stale)")
        #expect(stale.stderr.contains("stale") && stale.stderr.contains("site.yaml"), "\(stale)")
        #expect(!fixture.directory.exists("mirror/saved/b.bin"))
        #expect(try fixture.server.requests(path: "/gen/700/b.bin").isEmpty)

        let refreshed = try await fixture.run(["apply", "plans/q.json", "--refresh"])
        #expect(refreshed.status == 0, "\(refreshed)")
        // b.bin declares a size and no digest: the lines say so.
        #expect(refreshed.stdout.hasPrefix("+ saved: 1 fetched, 1 up to date (700 B), 1 size only\n"), "\(refreshed)")
        #expect(
            refreshed.stdout.hasSuffix(
                "Apply complete! Slices: 1 fetched (700 B), 0 resumed, 1 up to date, 0 failed, 0 deferred; 1 without digests (1 size only, 0 unverified).\n"),
            "\(refreshed)")
        #expect(fixture.size(of: "mirror/saved/b.bin") == 700)
    }

    @Test func aFailedDependencySkipsItsDependentsWithoutARequest() async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        try fixture.write(
            manifest: """
                version: 1
                resources:
                  - id: a
                    slices:
                      - {path: ok.bin, url: "\(fixture.url("/gen/100/a-ok.bin"))", size: 100}
                      - {path: gone.bin, url: "\(fixture.url("/status/404"))"}
                  - id: b
                    depends_on: [a]
                    slices:
                      - {path: one.bin, url: "\(fixture.url("/gen/100/b-one.bin"))"}
                      - {path: two.bin, url: "\(fixture.url("/gen/100/b-two.bin"))"}
                  - id: c
                    depends_on: [b]
                    slices:
                      - {path: three.bin, url: "\(fixture.url("/gen/100/c-three.bin"))"}

                """)
        let (result, report) = try await fixture.applyJSON(["--junit", "junit.xml"])
        #expect(result.status == 1, "\(result)")
        for (id, path) in [("b", "one.bin"), ("b", "two.bin"), ("c", "three.bin")] {
            let record = try report.slice(id, path)
            #expect(record.status == "skipped" && record.attempts == 0, "\(record)")
            #expect(record.skipReason?.contains("depends on") == true, "\(record)")
        }
        #expect(try report.slice("a", "gone.bin").error?.type == "HTTP404")
        #expect(report.summary.skipped == 3 && report.summary.failed == 1 && report.summary.fetched == 1)
        #expect(result.stderr.contains("- b: skipped (depends on 'a', which did not complete)\n"), "\(result)")
        #expect(result.stderr.contains("- c: skipped (depends on 'b', which did not complete)\n"), "\(result)")

        let junit = fixture.directory.contents(of: "junit.xml") ?? ""
        #expect(
            junit.contains(#"<skipped message="depends on &apos;a&apos;, which did not complete"/>"#)
                || junit.contains(#"<skipped message="depends on 'a', which did not complete"/>"#), "\(junit)")
        let log = try await fixture.server.settledRequests()
        #expect(!log.contains { $0.path.contains("b-") || $0.path.contains("c-") }, "dependents were requested: \(log)")
        #expect(!fixture.directory.exists("mirror/b") && !fixture.directory.exists("mirror/c"))
    }
}
