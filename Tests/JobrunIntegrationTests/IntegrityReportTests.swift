import Foundation
import JobrunTestSupport
import Testing

/// Unverified is not ok: a slice that declares no digest is `size only` (a size is declared) or
/// `unverified` (nothing is) in every output of plan, apply and verify — text, JSON and JUnit —
/// and counted apart in their summary lines. What apply fetched for it is hashed anyway.
@Suite struct IntegrityReportTests {
    /// One slice of each kind: a digest, a size only, nothing (a memory body and one streamed to
    /// its file), and a digest of another algorithm than SHA-256.
    static func manifest(_ fixture: ApplyFixture) throws -> String {
        """
        version: 1
        defaults:
          retries: {attempts: 2, backoff: {initial: 50ms, max: 200ms}}
        resources:
          - id: r
            slices:
              - {path: proven.bin, url: "\(fixture.url("/gen/1000/proven.bin"))", size: 1000, sha256: \(try fixture.digest("/gen/1000/proven.bin"))}
              - {path: sized.bin, url: "\(fixture.url("/gen/2000/sized.bin"))", size: 2000}
              - {path: bare.bin, url: "\(fixture.url("/gen/3000/bare.bin"))"}
              - {path: large.bin, url: "\(fixture.url("/gen/400000/large.bin"))"}
              - {path: md5.bin, url: "\(fixture.url("/gen/500/md5.bin"))", md5: \(try fixture.digest("/gen/500/md5.bin", algorithm: "md5"))}

        """
    }

    @Test func planMarksAndCountsSlicesWithoutDigests() async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        try fixture.write(manifest: try Self.manifest(fixture))
        let text = try await fixture.run(["plan", "-v", "site.yaml"])
        #expect(text.status == 0, "\(text)")
        #expect(
            Harness.maskingFreeSpace(text.stdout) == """
                ~ r -> mirror/r/: 5 to fetch (2.9 KiB + 3 of unknown size)
                    + proven.bin (1000 B)
                    + sized.bin (2.0 KiB) [size only]
                    + bare.bin [unverified]
                    + large.bin [unverified]
                    + md5.bin
                @ \(fixture.server.baseURL): 5 slices to transfer, 4 at once over HTTP/1.1, up to 128 over HTTP/2 (4 connections of 32 streams)
                Space: mirror: 2.9 KiB plus 3 slices of unknown size to fetch, @FREE@ free.
                Plan: 5 to fetch, 0 to resume, 0 to refetch (2.9 KiB + 3 of unknown size), 0 up to date, 0 deferred; 3 without digests (1 size only, 2 unverified).

                """, "\(text)")

        let json = try await fixture.run(["plan", "--json", "site.yaml"])
        let document = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any], "\(json)")
        let summary = try #require(document["summary"] as? [String: Any])
        #expect(summary["size_only"] as? Int == 1 && summary["unverified"] as? Int == 2, "\(summary)")
        let resources = try #require(document["resources"] as? [[String: Any]])
        let slices = try #require(resources.first?["slices"] as? [[String: Any]])
        #expect(slices.map { $0["integrity"] as? String } == ["digest", "size_only", "unverified", "unverified", "digest"])
        #expect((resources.first?["counts"] as? [String: Any])?["unverified"] as? Int == 2)
        // Only this test's questions to the server (`/_digest`), nothing from plan.
        #expect(try await fixture.server.requests().allSatisfy { $0.path.hasPrefix("/_digest/") }, "plan sent requests")
    }

    @Test func applySaysWhatPassedWithoutADigestAndHashesIt() async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        try fixture.write(manifest: try Self.manifest(fixture))
        let text = try await fixture.apply(["--junit", "apply.xml"])
        #expect(text.status == 0, "\(text)")
        #expect(
            text.stdout == """
                + r: 5 fetched (397.0 KiB), 1 size only, 2 unverified
                Apply complete! Slices: 5 fetched (397.0 KiB), 0 resumed, 0 up to date, 0 failed, 0 deferred; 3 without digests (1 size only, 2 unverified).

                """, "\(text)")
        let xml = try #require(fixture.directory.contents(of: "apply.xml"))
        let sized = try fixture.digest("/gen/2000/sized.bin"), bare = try fixture.digest("/gen/3000/bare.bin")
        let large = try fixture.digest("/gen/400000/large.bin")
        #expect(
            xml.contains(
                """
                <system-out>size only (no digest declared): sized.bin, sha256 \(sized)
                unverified (no digest or size declared): bare.bin, sha256 \(bare)
                unverified (no digest or size declared): large.bin, sha256 \(large)
                </system-out>
                """), "\(xml)")
        #expect(!xml.contains("<failure") && !xml.contains("<error"), "\(xml)")
        JUnitSchemaCheck.expectValid(fixture.directory.path("apply.xml"))

        // Again, with everything in place: the same words for up-to-date slices, and JSON.
        let (again, report) = try await fixture.applyJSON()
        #expect(again.status == 0, "\(again)")
        #expect(
            again.stderr.hasSuffix(
                "= r: 5 up to date, 1 size only, 2 unverified\nApply complete! Slices: 0 fetched (0 B), 0 resumed, 5 up to date, 0 failed, 0 deferred; 3 without digests (1 size only, 2 unverified).\n"
            ), "\(again)")
        #expect(report.summary.sizeOnly == 1 && report.summary.unverified == 2, "\(report.summary)")
        #expect(try report.slice("r", "proven.bin").integrity == "digest")
        #expect(try report.slice("r", "sized.bin").integrity == "size_only")
        #expect(try report.slice("r", "bare.bin").integrity == "unverified")
    }

    /// `computed_digests` is the SHA-256 of what was fetched for a slice that declares no
    /// digest, whether its body was kept in memory or streamed to its file; `digests` keeps
    /// meaning the declared digests, verified.
    @Test func applyJSONReportsTheSHA256OfWhatWasFetched() async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        try fixture.write(manifest: try Self.manifest(fixture))
        let (result, report) = try await fixture.applyJSON()
        #expect(result.status == 0, "\(result)")
        for (name, size) in [("sized.bin", 2000), ("bare.bin", 3000), ("large.bin", 400_000)] {
            let record = try report.slice("r", name)
            #expect(record.status == "fetched" && record.digests.isEmpty, "\(record)")
            #expect(record.computedDigests == ["sha256": try fixture.digest("/gen/\(size)/\(name)")], "\(record)")
            #expect(try fixture.sha256(ofFile: "mirror/r/\(name)") == record.computedDigests["sha256"])
        }
        let proven = try report.slice("r", "proven.bin")
        #expect(proven.digests == ["sha256": try fixture.digest("/gen/1000/proven.bin")] && proven.computedDigests.isEmpty, "\(proven)")
        // A declared digest of another algorithm is what is checked; nothing more is computed unasked.
        let md5 = try report.slice("r", "md5.bin")
        #expect(md5.digests == ["md5": try fixture.digest("/gen/500/md5.bin", algorithm: "md5")] && md5.computedDigests.isEmpty, "\(md5)")
    }

    /// A resumed body's SHA-256 covers the whole file: the bytes of the partial file and the rest.
    @Test func aResumedSliceWithoutADigestIsHashedFromItsFirstByte() async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        let content = "/gen/\(ApplyResumeTests.size)/cut.bin"
        let path = FaultServer.path(content, faults: "truncate_at=\(ApplyResumeTests.cut)", "n=1")
        try fixture.write(manifest: ApplyResumeTests.manifest(slices: ApplyResumeTests.slice("cut.bin", fixture.url(path))))
        let (result, report) = try await fixture.applyJSON()
        #expect(result.status == 0, "\(result)")
        let record = try report.slice("r", "cut.bin")
        #expect(record.status == "resumed" && record.integrity == "size_only", "\(record)")
        ApplyResumeTests.expectResumed(try await fixture.requests(path, count: 2), from: ApplyResumeTests.cut...ApplyResumeTests.cut)
        #expect(record.computedDigests == ["sha256": try fixture.digest(content)], "\(record)")
    }

    @Test func verifyGivesThemTheirOwnSigilsAndCountsThemApart() async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        try fixture.write(manifest: try Self.manifest(fixture))
        #expect(try await fixture.apply().status == 0)
        let lines = """
            = mirror/r/proven.bin
            ~ mirror/r/sized.bin: size only (no digest declared)
            ? mirror/r/bare.bin: unverified (no digest or size declared)
            ? mirror/r/large.bin: unverified (no digest or size declared)
            = mirror/r/md5.bin
            Verify: 5 ok, 0 mismatched, 0 missing, 0 errors; 3 without digests (1 size only, 2 unverified); 2 proven by hashing.

            """
        let text = try await fixture.run(["verify", "site.yaml", "--junit", "verify.xml"])
        #expect(text.status == 0 && text.stdout == lines, "\(text)")
        // Not proven, so not left out by --quiet.
        let quiet = try await fixture.run(["verify", "site.yaml", "--quiet"])
        #expect(quiet.status == 0 && quiet.stdout == lines.split(separator: "\n").filter { !$0.hasPrefix("=") }.joined(separator: "\n") + "\n", "\(quiet)")

        let xml = try #require(fixture.directory.contents(of: "verify.xml"))
        #expect(
            xml.contains(
                """
                <system-out>size only (no digest declared): sized.bin
                unverified (no digest or size declared): bare.bin
                unverified (no digest or size declared): large.bin
                </system-out>
                """), "\(xml)")
        JUnitSchemaCheck.expectValid(fixture.directory.path("verify.xml"))

        let json = try await fixture.run(["verify", "--json", "site.yaml"])
        let document = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any], "\(json)")
        let summary = try #require(document["summary"] as? [String: Any])
        #expect(summary["ok"] as? Int == 5 && summary["size_only"] as? Int == 1 && summary["unverified"] as? Int == 2, "\(summary)")
        #expect(summary["digests_required"] as? Bool == false && summary["all_ok"] as? Bool == true, "\(summary)")
        let slices = try #require((document["resources"] as? [[String: Any]])?.first?["slices"] as? [[String: Any]])
        #expect(slices.map { $0["integrity"] as? String } == ["digest", "size_only", "unverified", "unverified", "digest"])
        #expect(slices.allSatisfy { $0["status"] as? String == "ok" })
    }
}
