import Foundation
import JobrunTestSupport
import Testing

/// `--resource ID` on `plan`, `apply`, `verify` and `graph`: the resources named and every
/// resource they depend on, nothing else, asserted on the wire and on disk; an unknown id is a
/// usage error before anything is done; a saved plan keeps its selection.
@Suite struct SelectionTests {
    /// `site` at the output root itself, `lessons` after it, `extras` after `lessons`, and
    /// `media` on its own.
    static func manifest(_ fixture: ApplyFixture) -> String {
        func slice(_ size: Int, _ name: String) -> String {
            "{path: \(name), size: \(size), sha256: \(Generated.sha256Hex(size: size, name: name))}"
        }
        let base = fixture.server.baseURL
        return """
            version: 1
            defaults:
              retries: {attempts: 2, backoff: {initial: 50ms, max: 200ms}}
            resources:
              - {id: site, dest: "", base_url: "\(base)/gen/100/", slices: [\(slice(100, "index.html"))]}
              - id: lessons
                dest: lessons
                base_url: \(base)/gen/200/
                depends_on: [site]
                slices: [\(slice(200, "one.ts")), \(slice(200, "two.ts"))]
              - {id: extras, base_url: "\(base)/gen/300/", depends_on: [lessons], slices: [\(slice(300, "notes.txt"))]}
              - {id: media, base_url: "\(base)/gen/400/", slices: [\(slice(400, "clip.mp4"))]}

            """
    }

    static let selectedLessons = "Selected 2 of 4 resources (--resource lessons): site, lessons.\n"
    static let lessonsPaths: Set<String> = ["/gen/100/index.html", "/gen/200/one.ts", "/gen/200/two.ts"]

    @Test func applyFetchesOnlyTheSelectionAndWhatItDependsOn() async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        try fixture.write(manifest: Self.manifest(fixture))

        let apply = try await fixture.apply(["--resource", "lessons"])
        #expect(apply.status == 0, "\(apply)")
        #expect(apply.stderr == Self.selectedLessons, "\(apply)")
        #expect(
            apply.stdout == """
                + site: 1 fetched (100 B)
                + lessons: 2 fetched (400 B)
                Apply complete! Slices: 3 fetched (500 B), 0 resumed, 0 up to date, 0 failed, 0 deferred.

                """, "\(apply)")
        try await fixture.expectRequests(Self.lessonsPaths)
        let mirror = fixture.directory.path("mirror")
        #expect(DirectoryTree.files(under: mirror) == ["index.html", "lessons/one.ts", "lessons/two.ts"].map { mirror + "/" + $0 })

        // The selection verifies; the whole mirror does not (extras and media are missing).
        let selected = try await fixture.run(["verify", "site.yaml", "--resource", "lessons", "-q"])
        #expect(selected.status == 0 && selected.stdout == "Verify: 3 ok, 0 mismatched, 0 missing, 0 errors; 3 proven by hashing.\n", "\(selected)")
        #expect(selected.stderr == Self.selectedLessons, "\(selected)")
        let whole = try await fixture.run(["verify", "site.yaml", "-q"])
        #expect(whole.status == 1 && whole.stdout.hasSuffix("Verify: 3 ok, 0 mismatched, 2 missing, 0 errors; 3 proven by hashing.\n"), "\(whole)")

        // With --json the document is all of stdout, and holds the selection only.
        let (media, report) = try await fixture.applyJSON(["--resource", "media"])
        #expect(media.status == 0, "\(media)")
        #expect(report.resources.map(\.id) == ["media"] && report.summary.fetched == 1, "\(media)")
        #expect(media.stderr.hasPrefix("Selected 1 of 4 resources (--resource media): media.\n"), "\(media)")
        try await fixture.expectRequests(Self.lessonsPaths.union(["/gen/400/clip.mp4"]))
    }

    /// Several ids, one of them also a dependency of another, each planned once.
    @Test func planSelectsEveryIdGivenOnce() async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        try fixture.write(manifest: Self.manifest(fixture))
        let plan = try await fixture.run(["plan", "site.yaml", "--resource", "media", "--resource", "extras", "--resource", "site"])
        #expect(plan.status == 0, "\(plan)")
        #expect(plan.stderr == "Selected 4 of 4 resources (--resource media, extras, site): site, lessons, extras, media.\n", "\(plan)")
        let json = try await fixture.run(["plan", "site.yaml", "--json", "--resource", "lessons", "--resource", "site"])
        let document = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any], "\(json)")
        let selection = try #require(document["selection"] as? [String: Any], "\(json)")
        #expect(selection["requested"] as? [String] == ["lessons", "site"])
        #expect(selection["selected"] as? [String] == ["site", "lessons"])
        #expect((selection["declared"] as? NSNumber)?.intValue == 4)
        #expect((document["resources"] as? [[String: Any]])?.compactMap { $0["id"] as? String } == ["site", "lessons"])
        let all = try await fixture.run(["plan", "site.yaml", "--json"])
        let whole = try #require(try JSONSerialization.jsonObject(with: Data(all.stdout.utf8)) as? [String: Any])
        #expect(whole["selection"] is NSNull, "\(all)")
    }

    @Test(arguments: ["plan", "apply", "verify", "status", "graph"])
    func anUnknownIdIsAUsageErrorAndNothingIsDone(command: String) async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        try fixture.write(manifest: Self.manifest(fixture))
        let result = try await fixture.run([command, "site.yaml", "--resource", "lesson", "--resource", "media", "--resource", "nope"])
        #expect(result.status == 64, "\(result)")
        #expect(
            result.stderr == """
                jobrun: error: --resource: no resource 'lesson' in the manifests (did you mean 'lessons'?); nothing was done
                jobrun: error: --resource: no resource 'nope' in the manifests; nothing was done

                """, "\(result)")
        #expect(result.stdout.isEmpty, "\(result)")
        #expect(!fixture.directory.exists("mirror"))
        try await fixture.expectNothingRequested()
    }

    /// terraform's contract: with `--detailed-exitcode`, any error is 1.
    @Test func anUnknownIdUnderDetailedExitcodeIsAnError() async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        try fixture.write(manifest: Self.manifest(fixture))
        let result = try await fixture.run(["plan", "site.yaml", "--detailed-exitcode", "--resource", "nope"])
        #expect(result.status == 1 && result.stdout.isEmpty, "\(result)")
        #expect(result.stderr == "jobrun: error: --resource: no resource 'nope' in the manifests; nothing was done\n", "\(result)")
    }

    @Test func graphDrawsTheSelection() async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        try fixture.write(manifest: Self.manifest(fixture))
        let graph = try await fixture.run(["graph", "site.yaml", "--resource", "extras"])
        #expect(graph.status == 0, "\(graph)")
        #expect(
            graph.stdout == """
                digraph jobrun {
                    rankdir=LR;
                    node [shape=box];
                    "extras" [label="extras\\n1 slice, 300 B"];
                    "lessons" [label="lessons\\n2 slices, 400 B"];
                    "site" [label="site\\n1 slice, 100 B"];
                    "lessons" -> "extras";
                    "site" -> "lessons";
                }

                """, "\(graph)")
        #expect(graph.stderr == "Selected 3 of 4 resources (--resource extras): site, lessons, extras.\n", "\(graph)")
    }

    /// `site` owns the output root, so selecting it walks the whole root: the files of the
    /// resources left out are named by them, not extra. Only strays are.
    @Test func verifyExtraKnowsTheFilesOfTheResourcesLeftOut() async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        try fixture.write(manifest: Self.manifest(fixture))
        #expect(try await fixture.apply().status == 0)
        for stray in ["mirror/stray.bin", "mirror/lessons/stray.bin", "mirror/media/stray.bin"] {
            try fixture.directory.write(file: stray, contents: "stray")
        }
        try FileManager.default.removeItem(atPath: fixture.directory.path("mirror/media/clip.mp4"))

        let site = try await fixture.run(["verify", "site.yaml", "--resource", "site", "--extra", "-q"])
        #expect(site.status == 0, "\(site)")
        #expect(
            site.stdout == """
                # mirror/lessons/stray.bin: named by no manifest
                # mirror/media/stray.bin: named by no manifest
                # mirror/stray.bin: named by no manifest
                Verify: 1 ok, 0 mismatched, 0 missing, 0 errors, 3 extra; 1 proven by hashing.

                """, "\(site)")

        // Only media's folder is walked; its missing file is checked.
        let media = try await fixture.run(["verify", "site.yaml", "--resource", "media", "--extra", "-q"])
        #expect(media.status == 1, "\(media)")
        #expect(
            media.stdout == """
                - mirror/media/clip.mp4: missing
                # mirror/media/stray.bin: named by no manifest
                Verify: 0 ok, 0 mismatched, 1 missing, 0 errors, 1 extra.

                """, "\(media)")
    }

    /// A plan saved with `--resource` applies that selection, and its staleness is judged on
    /// the selection: a change to a resource left out does not make it stale, a change to a
    /// selected one does.
    @Test func aSavedPlanKeepsItsSelection() async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        try fixture.write(manifest: Self.manifest(fixture))
        let plan = try await fixture.run(["plan", "site.yaml", "--resource", "lessons", "--out", "plan.json"])
        #expect(plan.status == 0, "\(plan)")
        #expect(plan.stderr == Self.selectedLessons + "Saved the plan to plan.json.\n", "\(plan)")

        // Another resource fetched since: outside the plan's selection.
        #expect(try await fixture.apply(["--resource", "media"]).status == 0)
        let refused = try await fixture.run(["apply", "plan.json", "--resource", "extras"])
        #expect(refused.status == 64, "\(refused)")
        #expect(
            refused.stderr == """
                jobrun: error: --resource cannot be given with a saved plan, which applies the resources it was made for (--resource lessons); run 'jobrun plan --resource ID --out FILE' for another selection; nothing was done

                """, "\(refused)")
        try await fixture.expectRequests(["/gen/400/clip.mp4"])

        let apply = try await fixture.run(["apply", "plan.json"])
        #expect(apply.status == 0, "\(apply)")
        #expect(apply.stderr == Self.selectedLessons, "\(apply)")
        #expect(apply.stdout.hasSuffix("Apply complete! Slices: 3 fetched (500 B), 0 resumed, 0 up to date, 0 failed, 0 deferred.\n"), "\(apply)")
        try await fixture.expectRequests(Self.lessonsPaths.union(["/gen/400/clip.mp4"]))
        #expect(!fixture.directory.exists("mirror/extras"))

        // Now the selected slices are up to date: the plan no longer says what applying would do.
        let stale = try await fixture.run(["apply", "plan.json"])
        #expect(stale.status == 1, "\(stale)")
        #expect(
            stale.stderr.hasSuffix(
                "jobrun: error: the saved plan is stale: the mirror changed since the plan was made; run 'jobrun plan' again, or apply with --refresh\n"),
            "\(stale)")
    }

    /// A resource the plan selected that the manifests no longer declare: nothing can be
    /// refreshed into that selection, so the plan is stale even with `--refresh`.
    @Test func aSavedSelectionOfAResourceNoLongerDeclaredIsStale() async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        let manifest = Self.manifest(fixture)
        try fixture.write(manifest: manifest)
        #expect(try await fixture.run(["plan", "site.yaml", "--resource", "media", "--out", "plan.json"]).status == 0)
        try fixture.write(manifest: manifest.replacingOccurrences(of: "id: media", with: "id: film"))
        for extra in [[], ["--refresh"]] {
            let stale = try await fixture.run(["apply", "plan.json"] + extra)
            #expect(stale.status == 1, "\(stale)")
            #expect(
                stale.stderr == """
                    jobrun: error: the saved plan is stale: it was made for resource 'media', which the manifests no longer declare; run 'jobrun plan' again

                    """, "\(stale)")
        }
        #expect(!fixture.directory.exists("mirror"))
        try await fixture.expectNothingRequested()
    }

    /// A saved plan edited to an impossible limit is refused, not run with a limit of 0.
    @Test func aSavedPlanWithALimitOutOfRangeIsRefused() async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        try fixture.write(manifest: Self.manifest(fixture))
        #expect(try await fixture.run(["plan", "site.yaml", "--per-host", "2", "--out", "plan.json"]).status == 0)
        let saved = try #require(fixture.directory.contents(of: "plan.json"))
        try fixture.directory.write(file: "plan.json", contents: saved.replacingOccurrences(of: "\"per_host\": 2", with: "\"per_host\": 0"))
        let refused = try await fixture.run(["apply", "plan.json"])
        #expect(refused.status == 65, "\(refused)")
        #expect(refused.stderr == "jobrun: error: 'plan.json' records a per_host of 0, outside 1 to 256; run 'jobrun plan' again\n", "\(refused)")
        try await fixture.expectNothingRequested()
    }
}

extension ApplyFixture {
    /// The server received exactly one request for each of `paths` (without query) and nothing
    /// else: a request of our own, sent after the run, marks the end of what it sent.
    func expectRequests(_ paths: Set<String>, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let sentinel = "/gen/1/sentinel-\(UUID().uuidString)"
        _ = try HTTPGet.body(port: server.port, target: sentinel)
        let log = try await server.waitForRequests { $0.contains { $0.pathWithoutQuery == sentinel } }
        let sent = log.map(\.pathWithoutQuery).filter { $0.hasPrefix("/gen/") && !$0.hasPrefix("/gen/1/sentinel") }
        #expect(sent.count == paths.count && Set(sent) == paths, "requests: \(sent.sorted())", sourceLocation: sourceLocation)
    }
}
