import Foundation
import JobrunTestSupport
import Testing

/// `--require-digests`, for CI that must prove every file: validate, plan and apply refuse a
/// manifest with a slice that declares no digest (exit 65, every such slice at its line, nothing
/// requested); verify fails such slices even when their files passed (exit 1).
@Suite struct RequireDigestsTests {
    /// Lines 7, 9 and 10 declare no digest; the list's slices always have one.
    static func manifest(_ fixture: ApplyFixture) throws -> String {
        """
        version: 1
        resources:
          - id: r
            base_url: \(fixture.url("/gen/100/"))
            slices:
              - {path: proven.bin, sha256: \(Generated.sha256Hex(size: 100, name: "proven.bin"))}
              - path: sized.bin
                size: 100
              - {path: bare.bin}
          - id: listed
            base_url: \(fixture.url("/gen/100/"))
            slices_from: listed.sha256

        """
    }

    static let diagnostics = """
        site.yaml:7:9: error: slice 'sized.bin' declares a size but no digest; --require-digests needs a digest
              - path: sized.bin
                ^
        site.yaml:9:9: error: slice 'bare.bin' declares neither a digest nor a size; --require-digests needs a digest
              - {path: bare.bin}
                ^
        jobrun: 2 errors in the manifests; nothing was done.

        """

    static func prepare(_ fixture: ApplyFixture) throws {
        try fixture.write(manifest: try manifest(fixture))
        try fixture.write(manifest: "\(Generated.sha256Hex(size: 100, name: "l.bin"))  l.bin\n", to: "listed.sha256")
    }

    @Test(arguments: [["validate"], ["plan"], ["plan", "--json"], ["apply"], ["apply", "--json", "--junit", "apply.xml"]])
    func everySliceWithoutADigestIsAnErrorAtItsLine(command: [String]) async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        try Self.prepare(fixture)
        let result = try await fixture.run(command + ["site.yaml", "--require-digests"])
        #expect(result.status == 65, "\(result)")
        #expect(result.stderr == Self.diagnostics, "\(result)")
        #expect(result.stdout.isEmpty, "\(result)")
        // Refused before anything: no request, no mirror, no report.
        try await fixture.expectNothingRequested()
        #expect(!fixture.directory.exists("mirror") && !fixture.directory.exists("apply.xml"))
        // Without the option, the same manifest is fine.
        let plain = try await fixture.run(command.prefix(1) + ["site.yaml"])
        #expect(plain.status == 0, "\(plain)")
    }

    /// A saved plan re-reads its manifests: the option holds there too.
    @Test func aSavedPlanIsRefusedToo() async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        try Self.prepare(fixture)
        #expect(try await fixture.run(["plan", "site.yaml", "--out", "plan.json"]).status == 0)
        let result = try await fixture.run(["apply", "plan.json", "--require-digests"])
        #expect(result.status == 65 && result.stderr == Self.diagnostics, "\(result)")
        try await fixture.expectNothingRequested()
    }

    /// Every slice with a digest: nothing to refuse.
    @Test func aManifestWhereEverySliceHasADigestPasses() async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        try fixture.write(manifest: "\(Generated.sha256Hex(size: 100, name: "l.bin"))  l.bin\n", to: "listed.sha256")
        try fixture.write(manifest: "version: 1\nresources:\n  - id: listed\n    base_url: \(fixture.url("/gen/100/"))\n    slices_from: listed.sha256\n")
        for command in [["validate"], ["plan"], ["apply"], ["verify"]] {
            let result = try await fixture.run(command + ["site.yaml", "--require-digests"])
            #expect(result.status == 0, "\(result)")
        }
    }

    /// verify reads what is on disk: a file that passed without a digest fails, in text, JSON
    /// and JUnit, and the exit status is 1.
    @Test func verifyFailsFilesThatPassedWithoutADigest() async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        try Self.prepare(fixture)
        #expect(try await fixture.apply().status == 0)
        let text = try await fixture.run(["verify", "site.yaml", "--require-digests", "--junit", "verify.xml"])
        #expect(text.status == 1, "\(text)")
        #expect(
            text.stdout == """
                = mirror/listed/l.bin
                = mirror/r/proven.bin
                ~ mirror/r/sized.bin: size only (no digest declared), refused by --require-digests
                ? mirror/r/bare.bin: unverified (no digest or size declared), refused by --require-digests
                Verify: 2 ok, 0 mismatched, 0 missing, 0 errors; 2 without digests (1 size only, 1 unverified); 2 proven by hashing.

                """, "\(text)")
        let xml = try #require(fixture.directory.contents(of: "verify.xml"))
        #expect(xml.contains(#"tests="3" failures="2" errors="0""#), "\(xml)")
        #expect(xml.contains(#"<failure type="NoDigest" message="size only: no digest declared (--require-digests)">file: mirror/r/sized.bin"#), "\(xml)")
        #expect(xml.contains(#"<failure type="NoDigest" message="unverified: no digest or size declared (--require-digests)">"#), "\(xml)")
        JUnitSchemaCheck.expectValid(fixture.directory.path("verify.xml"))

        let json = try await fixture.run(["verify", "--json", "site.yaml", "--require-digests"])
        #expect(json.status == 1, "\(json)")
        let document = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any], "\(json)")
        let summary = try #require(document["summary"] as? [String: Any])
        #expect(summary["ok"] as? Int == 2 && summary["digests_required"] as? Bool == true && summary["all_ok"] as? Bool == false, "\(summary)")
        let resources = try #require(document["resources"] as? [[String: Any]])
        let slices = try #require(resources.first { $0["id"] as? String == "r" }?["slices"] as? [[String: Any]])
        #expect(slices.map { $0["status"] as? String } == ["ok", "no_digest", "no_digest"])

        // Without the option the same mirror passes.
        #expect(try await fixture.run(["verify", "site.yaml"]).status == 0)
    }
}
