import Foundation
import JobrunTestSupport
import Testing

/// Pin what was fetched: `apply --record-sums` and `verify --record-sums` write a `sha256sum`
/// list per resource, its paths relative to the resource's folder, so that the list serves as
/// the resource's `slices_from` and `sha256sum -c` checks it from that folder.
@Suite struct RecordSumsTests {
    static let names = ["a.bin", "sub/b.bin", "c.bin", "d.bin"]

    /// Four slices under one base: nothing declared, a size, an MD5, a SHA-256.
    static func manifest(_ fixture: ApplyFixture, id: String = "r", size: Int = 300) throws -> String {
        """
          - id: \(id)
            base_url: \(fixture.url("/gen/\(size)/"))
            slices:
              - {path: a.bin}
              - {path: sub/b.bin, size: \(size)}
              - {path: c.bin, md5: \(try fixture.digest("/gen/\(size)/c.bin", algorithm: "md5"))}
              - {path: d.bin, sha256: \(Generated.sha256Hex(size: size, name: "d.bin"))}

        """
    }

    static func site(_ resources: String...) -> String {
        "version: 1\ndefaults:\n  retries: {attempts: 1}\nresources:\n" + resources.joined()
    }

    /// The list jobrun must write for a resource of ``names`` served at `/gen/<size>/`.
    static func expectedList(size: Int = 300) -> String {
        names.map { "\(Generated.sha256Hex(size: size, name: $0))  \($0)\n" }.joined()
    }

    @Test func aFirstFetchIsPinnedAndLaterRunsAreProvenAgainstIt() async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        try fixture.write(manifest: Self.site(try Self.manifest(fixture)))
        let first = try await fixture.apply(["--record-sums", "pins/r.sha256"])
        #expect(first.status == 0, "\(first)")
        #expect(first.stderr.contains("Recorded the SHA-256 of 4 files of 'r' in pins/r.sha256.\n"), "\(first)")
        #expect(fixture.directory.contents(of: "pins/r.sha256") == Self.expectedList())

        // sha256sum reads it from the resource's folder.
        if SHA256Sum.executable != nil {
            let check = SHA256Sum.check(list: "../../pins/r.sha256", in: fixture.directory.path("mirror/r"))
            #expect(check.ok, "\(check.output)")
        }

        // The list as the resource's slices_from: every slice has a digest now, and everything
        // is up to date, proven, without a request.
        try fixture.write(
            manifest: "version: 1\nresources:\n  - id: r\n    base_url: \(fixture.url("/gen/300/"))\n    slices_from: pins/r.sha256\n", to: "pinned.yaml")
        let requestsBefore = try await fixture.sentRequests().count
        let plan = try await fixture.run(["plan", "pinned.yaml", "--require-digests"])
        #expect(plan.status == 0 && plan.stdout.hasSuffix("Plan: 0 to fetch, 0 to resume, 0 to refetch, 4 up to date, 0 deferred.\n"), "\(plan)")
        let apply = try await fixture.apply(["--require-digests"], manifest: "pinned.yaml")
        #expect(
            apply.status == 0 && apply.stdout.hasSuffix("Apply complete! Slices: 0 fetched (0 B), 0 resumed, 4 up to date, 0 failed, 0 deferred.\n"), "\(apply)"
        )
        let verify = try await fixture.run(["verify", "pinned.yaml", "--require-digests"])
        #expect(verify.status == 0 && verify.stdout.hasSuffix("Verify: 4 ok, 0 mismatched, 0 missing, 0 errors; 4 proven by hashing.\n"), "\(verify)")
        #expect(try await fixture.sentRequests().count == requestsBefore, "the pinned runs sent requests")

        // A later change to a file the manifest says nothing of is caught by the pin.
        _ = try fixture.directory.write(file: "mirror/r/a.bin", bytes: Array(repeating: 7, count: 300))
        let caught = try await fixture.run(["verify", "pinned.yaml"])
        #expect(
            caught.status == 1 && caught.stdout.contains("* mirror/r/a.bin: sha256 differs: expected \(Generated.sha256Hex(size: 300, name: "a.bin"))"),
            "\(caught)")
        let repaired = try await fixture.apply(manifest: "pinned.yaml")
        #expect(
            repaired.status == 0
                && repaired.stdout.hasSuffix("Apply complete! Slices: 0 fetched (300 B), 1 repaired, 0 resumed, 3 up to date, 0 failed, 0 deferred.\n"),
            "\(repaired)")
    }

    /// Slices not fetched in this run (up to date) and slices declaring another algorithm are
    /// hashed from their final files: a second apply and a verify write the same list, and
    /// --json shows those digests as computed.
    @Test func everyFileInPlaceIsPinnedWhetherFetchedNowOrNot() async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        try fixture.write(manifest: Self.site(try Self.manifest(fixture)))
        #expect(try await fixture.apply().status == 0)
        let requestsBefore = try await fixture.sentRequests().count
        let (again, report) = try await fixture.applyJSON(["--record-sums", "again.sha256"])
        #expect(again.status == 0, "\(again)")
        #expect(try await fixture.sentRequests().count == requestsBefore, "nothing was to be fetched")
        #expect(fixture.directory.contents(of: "again.sha256") == Self.expectedList())
        for name in ["a.bin", "sub/b.bin", "c.bin"] {
            let record = try report.slice("r", name)
            #expect(record.status == "up_to_date" && record.computedDigests == ["sha256": Generated.sha256Hex(size: 300, name: name)], "\(record)")
        }
        #expect(try report.slice("r", "d.bin").computedDigests.isEmpty, "a declared SHA-256 is not computed again")

        let verify = try await fixture.run(["verify", "site.yaml", "--record-sums", "verify.sha256"])
        #expect(verify.status == 0, "\(verify)")
        #expect(fixture.directory.contents(of: "verify.sha256") == Self.expectedList())
        #expect(verify.stderr == "Recorded the SHA-256 of 4 files of 'r' in verify.sha256.\n", "\(verify)")
    }

    /// A list is one resource's: with several, the file name needs `{id}`, checked before
    /// anything is done; with it, each resource gets its own list, usable as its slices_from.
    @Test func severalResourcesNeedTheirIdInTheFileName() async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        try fixture.write(manifest: Self.site(try Self.manifest(fixture), try Self.manifest(fixture, id: "big", size: 300_000)))
        for command in [["apply"], ["verify"]] {
            let refused = try await fixture.run(command + ["site.yaml", "--record-sums", "pins.sha256"])
            #expect(refused.status == 64, "\(refused)")
            #expect(refused.stderr.contains("--record-sums: the manifests have 2 resources") && refused.stderr.contains("{id}"), "\(refused)")
            #expect(!fixture.directory.exists("pins.sha256"))
        }
        #expect(try await fixture.sentRequests().isEmpty, "refused runs sent requests")

        let apply = try await fixture.apply(["--record-sums", "pins/{id}.sha256"])
        #expect(apply.status == 0, "\(apply)")
        #expect(fixture.directory.contents(of: "pins/r.sha256") == Self.expectedList())
        #expect(fixture.directory.contents(of: "pins/big.sha256") == Self.expectedList(size: 300_000))
        try fixture.write(
            manifest: """
                version: 1
                resources:
                  - {id: r, base_url: "\(fixture.url("/gen/300/"))", slices_from: pins/r.sha256}
                  - {id: big, base_url: "\(fixture.url("/gen/300000/"))", slices_from: pins/big.sha256}

                """, to: "pinned.yaml")
        let verify = try await fixture.run(["verify", "pinned.yaml", "--require-digests"])
        #expect(verify.status == 0 && verify.stdout.hasSuffix("Verify: 8 ok, 0 mismatched, 0 missing, 0 errors; 8 proven by hashing.\n"), "\(verify)")
        if SHA256Sum.executable != nil {
            for id in ["r", "big"] {
                let check = SHA256Sum.check(list: "../../pins/\(id).sha256", in: fixture.directory.path("mirror/\(id)"))
                #expect(check.ok, "\(id): \(check.output)")
            }
        }
    }

    /// Only files in place are pinned: a slice that failed is left out (and the run fails).
    @Test func aFailedSliceIsNotPinned() async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        try fixture.write(
            manifest: """
                version: 1
                defaults:
                  retries: {attempts: 1}
                resources:
                  - id: r
                    slices:
                      - {path: good.bin, url: "\(fixture.url("/gen/100/good.bin"))"}
                      - {path: gone.bin, url: "\(fixture.url("/status/404"))"}

                """)
        let result = try await fixture.apply(["--record-sums", "pins.sha256"])
        #expect(result.status == 1, "\(result)")
        #expect(fixture.directory.contents(of: "pins.sha256") == "\(Generated.sha256Hex(size: 100, name: "good.bin"))  good.bin\n")
        #expect(result.stderr.contains("Recorded the SHA-256 of 1 file of 'r' in pins.sha256.\n"), "\(result)")
    }

    @Test func aListThatCannotBeWrittenIsAnIOError() async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        try fixture.write(manifest: Self.site(try Self.manifest(fixture)))
        try fixture.write(manifest: "a file, not a folder\n", to: "taken")
        for command in [["apply"], ["verify"]] {
            let result = try await fixture.run(command + ["site.yaml", "--record-sums", "taken/pins.sha256"])
            #expect(result.status == 74, "\(result)")
            #expect(result.stderr.contains("jobrun: error: cannot write the sums of 'r' to 'taken/pins.sha256': Not a directory"), "\(result)")
        }
    }
}
