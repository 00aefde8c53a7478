import Foundation
import JobrunState
import JobrunTestSupport
import Testing

/// `refresh:` on the wire: a file without a digest is asked of its origin again with the
/// validators its fetch recorded; a 304 keeps it without a body, a body with the same bytes keeps
/// it too, and new bytes replace it atomically.
@Suite struct ApplyRefreshTests {
    /// The manifest: `a` has an ETag and a Last-Modified, `b` only a Last-Modified, `c` neither;
    /// `d` has a digest (never revalidated). `a`'s origin moves to version 1 after `change` requests.
    static func manifest(_ fixture: ApplyFixture, refresh: String, change: Int = 100) -> String {
        """
        version: 1
        defaults:
          refresh: \(refresh)
        resources:
          - id: r
            slices:
              - {path: a.txt, url: "\(fixture.url("/fault/change_after=\(change)/gen/700/a.txt"))"}
              - {path: b.txt, url: "\(fixture.url("/fault/no_etag=1/gen/800/b.txt"))"}
              - {path: c.txt, url: "\(fixture.url("/fault/no_etag=1;no_last_modified=1/gen/900/c.txt"))", size: 900}
              - {path: d.bin, url: "\(fixture.url("/gen/300/d.bin"))", sha256: \(Generated.sha256Hex(size: 300, name: "d.bin"))}
              - {path: e.txt, url: "\(fixture.url("/fault/ignore_conditional=1/gen/600/e.txt"))"}

        """
    }

    /// What the mirror state records of `path` below the fixture's `mirror`.
    func record(_ fixture: ApplyFixture, _ path: String) throws -> ProvenFile? {
        try StateStore(root: fixture.directory.path("mirror"), readOnly: true).provenFiles()[path]
    }

    func inode(_ fixture: ApplyFixture, _ path: String) throws -> UInt64 {
        var status = stat()
        guard lstat(fixture.directory.path(path), &status) == 0 else { throw CocoaError(.fileNoSuchFile) }
        return UInt64(status.st_ino)
    }

    @Test func conditionalRequestsKeepUnchangedFilesAndReplaceNewVersions() async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        try fixture.write(manifest: Self.manifest(fixture, refresh: "conditional", change: 2))
        let first = try await fixture.apply()
        #expect(first.status == 0, "\(first)")
        let inodes = try ["a.txt", "b.txt", "c.txt", "e.txt"].map { try inode(fixture, "mirror/r/\($0)") }
        let fetched = try #require(try record(fixture, "r/a.txt"))
        #expect(
            fetched.validators.etag != nil && fetched.validators.lastModified != nil && fetched.validators.origin == fixture.server.baseURL, "\(fetched)")
        #expect(try record(fixture, "r/c.txt")?.validators.isEmpty == true)

        let plan = try await fixture.run(["plan", "site.yaml", "-v"])
        #expect(plan.stdout.contains("Plan: 0 to fetch, 0 to resume, 0 to refetch, 1 up to date, 4 to revalidate, 0 deferred"), "\(plan)")
        #expect(plan.stdout.contains("^ a.txt [unverified]: refresh conditional: its origin last vouched for it "), "\(plan)")
        #expect(plan.stdout.contains("a conditional GET (ETag \""), "\(plan)")
        #expect(plan.stdout.contains("^ c.txt (900 B) [size only]: refresh conditional: its origin last vouched for it"), "\(plan)")
        #expect(plan.stdout.contains("a whole GET, kept only if its bytes differ"), "\(plan)")

        // The second apply: a's second request is still version 0 (304), b by its date (304), c whole.
        let (second, report) = try await fixture.applyJSON(["--events", "events.ndjson"])
        #expect(second.status == 0, "\(second)")
        #expect(report.summary.revalidated == 4 && report.summary.unchanged == 4 && report.summary.replaced == 0, "\(second)")
        #expect(report.summary.upToDate == 5 && report.summary.fetched == 0, "\(second)")
        #expect(try report.slice("r", "a.txt").revalidation == "not_modified", "\(second)")
        #expect(try report.slice("r", "b.txt").revalidation == "not_modified", "\(second)")
        #expect(try report.slice("r", "c.txt").revalidation == "same_bytes", "\(second)")
        #expect(try report.slice("r", "d.bin").revalidation == nil, "\(second)")
        // An origin that ignores the condition answers whole: the same bytes, the file kept.
        #expect(try report.slice("r", "e.txt").revalidation == "same_bytes", "\(second)")
        let requests = try await fixture.sentRequests()
        let secondRun = Array(requests.dropFirst(5))
        #expect(secondRun.count == 4, "\(requests.map(\.path))")
        func request(_ name: String) -> LoggedRequest? { secondRun.first { $0.path.hasSuffix(name) } }
        #expect(request("a.txt")?.status == 304 && request("a.txt")?.bytesSent == 0, "\(secondRun)")
        #expect(request("a.txt")?.headers.contains { $0.name.lowercased() == "if-none-match" } == true, "\(secondRun)")
        #expect(request("b.txt")?.status == 304, "\(secondRun)")
        #expect(request("b.txt")?.headers.contains { $0.name.lowercased() == "if-modified-since" } == true, "\(secondRun)")
        #expect(request("b.txt")?.headers.contains { $0.name.lowercased() == "if-none-match" } == false, "\(secondRun)")
        #expect(request("c.txt")?.status == 200 && request("c.txt")?.bytesSent == 900, "\(secondRun)")
        #expect(request("c.txt")?.headers.contains { $0.name.lowercased().hasPrefix("if-") } == false, "\(secondRun)")
        #expect(request("e.txt")?.status == 200 && request("e.txt")?.headers.contains { $0.name.lowercased() == "if-none-match" } == true, "\(secondRun)")
        // Every file kept is the very file that was there, and the mirror state has the origin's new word on each.
        #expect(try ["a.txt", "b.txt", "c.txt", "e.txt"].map { try inode(fixture, "mirror/r/\($0)") } == inodes)
        for path in ["r/a.txt", "r/b.txt", "r/c.txt", "r/e.txt"] {
            let renewed = try #require(try record(fixture, path))
            #expect((renewed.confirmedAtMilliseconds ?? 0) > (fetched.confirmedAtMilliseconds ?? .max), "\(path): \(renewed)")
        }
        let validation = EventSchemaCheck.validate([fixture.directory.path("events.ndjson")])
        #expect(validation.ok, "\(validation.output)")

        // a's origin has moved to version 1: the third apply replaces it, and says so.
        let third = try await fixture.apply()
        #expect(third.status == 0, "\(third)")
        #expect(third.stdout.contains("* r/a.txt: replaced: its origin has a new version (700 B, "), "\(third)")
        #expect(third.stdout.contains("; 4 revalidated (3 unchanged, 1 replaced)"), "\(third)")
        #expect(fixture.directory.bytes(of: "mirror/r/a.txt") == Generated.bytes(size: 700, name: "a.txt", version: 1))
        try await fixture.expectVerified()
    }

    @Test func maxAgeSendsNothingWhileTheOriginsWordIsYoung() async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        try fixture.write(manifest: Self.manifest(fixture, refresh: "{mode: conditional, max_age: 1h}"))
        #expect(try await fixture.apply().status == 0)
        let second = try await fixture.apply()
        #expect(second.status == 0 && second.stdout.contains("0 fetched") && !second.stdout.contains("revalidated"), "\(second)")
        #expect(try await fixture.sentRequests().count == 5)
        // `always` ignores validators: a whole GET, kept because its bytes are the same.
        try fixture.write(manifest: Self.manifest(fixture, refresh: "always"))
        let (third, report) = try await fixture.applyJSON()
        #expect(third.status == 0 && report.summary.unchanged == 4, "\(third)")
        let requests = try await fixture.sentRequests().dropFirst(5)
        #expect(requests.count == 4 && requests.allSatisfy { $0.status == 200 && !$0.headers.contains { $0.name.lowercased().hasPrefix("if-") } })
    }

    /// Validators go back only to the origin that sent them: another mirror's copy may be of
    /// another version with an older date. A body whose end nothing marked does not replace a file.
    @Test func validatorsStayWithTheirOriginAndAnUnmarkedBodyReplacesNothing() async throws {
        let fixture = try ApplyFixture(secondPort: true)
        defer { fixture.finish() }
        let second = try #require(fixture.server.secondBaseURL)
        func manifest(_ bases: [String]) -> String {
            """
            version: 1
            defaults: {refresh: conditional}
            resources:
              - id: r
                base_urls: [\(bases.map { "\"\($0)/gen/700/\"" }.joined(separator: ", "))]
                slices: [{path: a.txt}]
              - id: open
                slices: [{path: o.txt, url: "\(fixture.url("/fault/no_length=1;ignore_conditional=1;etag_version=1/gen/400/o.txt"))"}]

            """
        }
        let first = fixture.server.baseURL
        try fixture.write(manifest: manifest([first, second]))
        #expect(try await fixture.apply().status == 0)
        #expect(try record(fixture, "r/a.txt")?.validators.origin == first)
        // The second origin first: asked whole, its bytes the same, the file kept.
        try fixture.write(manifest: manifest([second, first]))
        let (result, report) = try await fixture.applyJSON()
        #expect(result.status == 1, "\(result)")
        #expect(try report.slice("r", "a.txt").revalidation == "same_bytes", "\(result)")
        let asked = try await fixture.sentRequests().last { $0.path.hasSuffix("/a.txt") }
        #expect(
            asked?.port == fixture.server.secondPort && asked?.headers.contains { $0.name.lowercased().hasPrefix("if-") } == false,
            "\(String(describing: asked))")
        #expect(try record(fixture, "r/a.txt")?.validators.origin == second)
        // o.txt's origin sends a new version whose end only the connection's close marks: refused, the old file kept.
        let o = try report.slice("open", "o.txt")
        #expect(o.status == "failed" && o.error?.message.contains("the file in place is kept") == true, "\(result)")
        #expect(fixture.directory.bytes(of: "mirror/open/o.txt") == Generated.bytes(size: 400, name: "o.txt", version: 1))
    }
}
