import Foundation
import JobrunTestSupport
import Testing

/// A saved plan records every input it was made from — the manifests and every `slices_from`
/// list — and `apply PLANFILE` refuses it as stale when any of them changed.
@Suite struct SavedPlanInputTests {
    static func listLine(_ size: Int, _ name: String) -> String {
        "\(Generated.sha256Hex(size: size, name: name))  \(name)\n"
    }

    /// Two resources read one list (recorded once), a third another list in a subfolder.
    func writeInputs(_ fixture: ApplyFixture) throws {
        try fixture.write(
            manifest: """
                version: 1
                resources:
                  - {id: one, base_url: "\(fixture.url("/gen/100/"))", slices_from: lists/a.sha256}
                  - {id: two, base_url: "\(fixture.url("/gen/100/"))", slices_from: ./lists/a.sha256}
                  - {id: three, base_url: "\(fixture.url("/gen/200/"))", slices_from: b.sha256}

                """)
        try fixture.directory.write(file: "lists/a.sha256", contents: Self.listLine(100, "a.bin"))
        try fixture.directory.write(file: "b.sha256", contents: Self.listLine(200, "b.bin"))
    }

    @Test func thePlanRecordsEveryListWithItsDigest() async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        try writeInputs(fixture)
        let plan = try await fixture.run(["plan", "site.yaml", "--out", "plan.json"])
        #expect(plan.status == 0, "\(plan)")
        let saved = try #require(fixture.directory.contents(of: "plan.json"))
        let document = try #require(try JSONSerialization.jsonObject(with: Data(saved.utf8)) as? [String: Any])
        let lists = try #require(document["slice_lists"] as? [[String: Any]], "\(saved)")
        #expect(lists.map { $0["path"] as? String } == ["b.sha256", "lists/a.sha256"], "\(lists)")
        for list in lists {
            let path = try #require(list["path"] as? String)
            #expect(list["sha256"] as? String == (try fixture.sha256(ofFile: path)), "\(list)")
            #expect((list["bytes"] as? NSNumber)?.intValue == fixture.size(of: path), "\(list)")
        }
    }

    @Test func aChangedListMakesTheSavedPlanStale() async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        try writeInputs(fixture)
        #expect(try await fixture.run(["plan", "site.yaml", "--out", "plans/p.json"]).status == 0)
        // Rewritten with the same bytes: the same input (the refusal below names the other list).
        try fixture.directory.write(file: "b.sha256", contents: Self.listLine(200, "b.bin"))

        // A slice added to one list; the manifest is unchanged.
        try fixture.directory.write(file: "lists/a.sha256", contents: Self.listLine(100, "a.bin") + Self.listLine(100, "c.bin"))
        let stale = try await fixture.run(["apply", "plans/p.json"])
        #expect(stale.status == 1, "\(stale)")
        #expect(
            stale.stderr == """
                jobrun: error: the saved plan is stale: 'lists/a.sha256' changed since the plan was made; run 'jobrun plan' again, or apply with --refresh

                """, "\(stale)")
        #expect(stale.stdout.isEmpty, "\(stale)")
        try await fixture.expectNothingRequested()
        #expect(!fixture.directory.exists("mirror/one/a.bin"))

        let refreshed = try await fixture.run(["apply", "plans/p.json", "--refresh"])
        #expect(refreshed.status == 0, "\(refreshed)")
        #expect(refreshed.stdout.hasSuffix("Apply complete! Slices: 5 fetched (600 B), 0 resumed, 0 up to date, 0 failed, 0 deferred.\n"), "\(refreshed)")
        #expect(fixture.size(of: "mirror/two/c.bin") == 100)
    }

    /// The control: a plan whose lists are unchanged applies (so the refusal above is about the
    /// list, not about lists in general).
    @Test func anUnchangedListKeepsTheSavedPlanFresh() async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        try writeInputs(fixture)
        #expect(try await fixture.run(["plan", "site.yaml", "--out", "p.json"]).status == 0)
        try fixture.directory.write(file: "b.sha256", contents: Self.listLine(200, "b.bin"))
        let applied = try await fixture.run(["apply", "p.json"])
        #expect(applied.status == 0, "\(applied)")
        #expect(applied.stdout.hasSuffix("Apply complete! Slices: 3 fetched (400 B), 0 resumed, 0 up to date, 0 failed, 0 deferred.\n"), "\(applied)")
    }
}
