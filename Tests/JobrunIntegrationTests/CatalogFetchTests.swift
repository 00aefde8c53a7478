import Foundation
import JobrunTestSupport
import Testing

/// `slices_from: {url: …}` on the real binary: a catalog fetched before planning, asked again
/// conditionally, kept for `verify`, its changes planned and pruned, and one that is not trusted
/// refusing its resource alone, before any of its payload is requested.
@Suite struct CatalogFetchTests {
    /// A fault server serving `upstream/` (beside the mirror in the fixture's folder).
    struct Upstream {
        let fixture: ApplyFixture
        let upstream: TemporaryDirectory

        init() throws {
            upstream = try TemporaryDirectory(prefix: "jobrun-upstream")
            do {
                fixture = try ApplyFixture(FaultServer.Options(root: upstream.path))
            } catch {
                upstream.remove()
                throw error
            }
        }

        func finish() {
            fixture.finish()
            upstream.remove()
        }

        /// Writes `files` (name → content) and a SHA256SUMS of the `listed` ones into `folder`.
        func publish(_ files: [String: String], listed: [String]? = nil, in folder: String = "rel") throws {
            for (name, content) in files { try upstream.write(file: "\(folder)/\(name)", contents: content) }
            let list = (listed ?? files.keys.sorted()).map { "\(PortableSHA256.hex(of: Array(files[$0, default: ""].utf8)))  \($0)\n" }
            try upstream.write(file: "\(folder)/SHA256SUMS", contents: list.joined())
        }
    }

    @Test func aCatalogIsFetchedAskedAgainConditionallyAndItsChangesArePlannedAndPruned() async throws {
        let u = try Upstream()
        defer { u.finish() }
        let fixture = u.fixture
        try u.publish(["a.bin": "alpha", "b.bin": "bravo"])
        try fixture.write(
            manifest: """
                version: 1
                resources:
                  - id: rel
                    base_url: "\(fixture.url("/rel/"))"
                    slices_from: {url: SHA256SUMS}
                """)
        let first = try await fixture.applyJSON()
        #expect(first.result.status == 0 && first.report.summary.fetched == 2, "\(first.result)")
        #expect(fixture.directory.bytes(of: "mirror/rel/b.bin") == Array("bravo".utf8))
        #expect(first.result.stdout.contains("\"state\": \"fetched\""), "\(first.result.stdout)")
        #expect(fixture.directory.bytes(of: "mirror/.jobrun/catalogs/rel/catalog") == u.upstream.bytes(of: "rel/SHA256SUMS"))

        // Unchanged: asked with its ETag, answered 304, nothing fetched; said in the event stream.
        let second = try await fixture.apply(["--events", "events.ndjson"])
        #expect(second.status == 0 && second.stdout.contains("0 fetched"), "\(second)")
        let validation = EventSchemaCheck.validate([fixture.directory.path("events.ndjson")])
        #expect(validation.ok, "\(validation.output)")
        let types = (fixture.directory.contents(of: "events.ndjson") ?? "").split(separator: "\n").compactMap { line -> String? in
            guard let r = line.range(of: #""type":""#) else { return nil }
            return String(line[r.upperBound...].prefix { $0 != "\"" })
        }
        #expect(Array(types.prefix(3)) == ["run_start", "catalog", "plan"], "\(types)")
        #expect(
            fixture.directory.contents(of: "events.ndjson")?.contains(
                #""type":"catalog","data":{"resource":"rel","url":"\#(fixture.url("/rel/SHA256SUMS"))","state":"not_modified","slices":2,"changes":{"added":0,"removed":0,"changed":0},"error":null}"#
            ) == true, "\(fixture.directory.contents(of: "events.ndjson") ?? "")")
        let asked = try await fixture.requests("/rel/SHA256SUMS", count: 2)
        #expect(asked.last?.status == 304, "\(asked)")
        #expect(asked.last?.headers.contains { $0.name.lowercased() == "if-none-match" } == true, "\(asked)")

        // verify reads the kept copy: no request.
        let before = try await fixture.sentRequests().count
        try await fixture.expectVerified()
        #expect(try await fixture.sentRequests().count == before, "verify asked the origin")

        // A new version: one slice added, one removed, one changed.
        try u.publish(["a.bin": "alpha 2", "c.bin": "charlie"])
        let plan = try await fixture.run(["plan", "site.yaml"])
        #expect(plan.status == 0, "\(plan)")
        #expect(plan.stdout.contains("catalog \(fixture.url("/rel/SHA256SUMS")): fetched, 1 new, 1 removed, 1 changed (2 slices)"), "\(plan)")
        let third = try await fixture.apply(["--prune"])
        // The changed file is a new version fetched, not a repair: it is the file fetched before.
        #expect(third.status == 0 && third.stdout.contains("2 fetched (14 B), 0 resumed") && third.stdout.contains("1 pruned"), "\(third)")
        #expect(fixture.directory.bytes(of: "mirror/rel/a.bin") == Array("alpha 2".utf8))
        #expect(fixture.size(of: "mirror/rel/b.bin") == nil)
    }

    @Test func aCatalogBehindARedirectIsAskedAgainConditionally() async throws {
        let u = try Upstream()
        defer { u.finish() }
        let fixture = u.fixture
        try u.publish(["a.bin": "alpha"])
        try fixture.write(
            manifest: """
                version: 1
                resources:
                  - id: rel
                    base_url: "\(fixture.url("/rel/"))"
                    slices_from: {url: "\(fixture.url("/redirect/1/rel/SHA256SUMS"))"}
                """)
        let first = try await fixture.apply()
        #expect(first.status == 0 && first.stdout.contains("1 fetched"), "\(first)")
        let second = try await fixture.apply()
        #expect(second.status == 0 && second.stdout.contains("0 fetched"), "\(second)")
        let asked = try await fixture.requests("/rel/SHA256SUMS", count: 2)
        #expect(asked.last?.status == 304, "the catalog's new location was not asked conditionally: \(asked)")
    }

    @Test func aCatalogNotHadByTheDeadlineRefusesItsResourceAndTheRunStopsThere() async throws {
        let u = try Upstream()
        defer { u.finish() }
        let fixture = u.fixture
        try u.publish(["a.bin": "alpha"])
        try fixture.write(
            manifest: """
                version: 1
                resources:
                  - id: rel
                    base_url: "\(fixture.url("/rel/"))"
                    slices_from: {url: "\(fixture.url(FaultServer.path("/rel/SHA256SUMS", faults: "delay_ms=60000")))"}
                  - id: other
                    slices:
                      - {path: b.bin, url: "\(fixture.url("/gen/10/b.bin"))"}
                """)
        let (result, report) = try await fixture.applyJSON(["--deadline", "3s", "--deadline-margin", "1s"])
        // A refused catalog is a failure, whatever refused it.
        #expect(result.status == 1, "\(result)")
        #expect(report.summary.elapsedSeconds < 10, "the catalog was waited for past the deadline: \(report.summary.elapsedSeconds) s")
        #expect(result.stderr.contains("the run's deadline came before"), "\(result)")
        #expect(
            result.stderr.contains(
                "Apply stopped at deadline: 0 fetched (0 B), 0 cut in flight (0 partial files kept to resume), 1 not started; 1 catalog refused."), "\(result)")
    }

    @Test func eachRedirectOfACatalogIsCutAtTheDeadline() async throws {
        let u = try Upstream()
        defer { u.finish() }
        let fixture = u.fixture
        try u.publish(["a.bin": "alpha"])
        // Three hops of 1.5 s each: each in time on its own, not all three before the cutoff (2 s).
        var url = fixture.url("/rel/SHA256SUMS")
        for _ in 0..<3 {
            let next = url.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? url
            url = fixture.url(FaultServer.path("/redirect-to", faults: "delay_ms=1500")) + "?url=" + next
        }
        try fixture.write(
            manifest: """
                version: 1
                resources:
                  - id: rel
                    base_url: "\(fixture.url("/rel/"))"
                    slices_from: {url: "\(url)"}
                """)
        let (result, report) = try await fixture.applyJSON(["--deadline", "3s", "--deadline-margin", "1s"])
        #expect(result.status == 1 && result.stderr.contains("the run's deadline came before"), "\(result)")
        #expect(report.summary.elapsedSeconds < 4, "the redirects ran past the cutoff: \(report.summary.elapsedSeconds) s")
        #expect(try await fixture.sentRequests().filter { $0.path == "/rel/SHA256SUMS" }.isEmpty)
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/minisign"), "needs minisign"))
    func aCatalogThatIsNotTrustedRefusesItsResourceAloneBeforeAnyOfItsPayload() async throws {
        let u = try Upstream()
        defer { u.finish() }
        let fixture = u.fixture
        try u.publish(["a.bin": "alpha"])
        let minisign = BinaryRunner(executable: "/usr/bin/minisign", defaultTimeout: .seconds(30))
        for step in [["-G", "-W", "-p", "release.pub", "-s", "release.sec"], ["-S", "-s", "release.sec", "-m", u.upstream.path("rel/SHA256SUMS")]] {
            let made = try await minisign.run(step, workingDirectory: fixture.directory.path)
            try #require(made.status == 0, "\(made)")
        }
        // Changed after it was signed.
        try u.upstream.write(file: "rel/SHA256SUMS", contents: "\(PortableSHA256.hex(of: Array("bravo".utf8)))  a.bin\n")
        try fixture.write(
            manifest: """
                version: 1
                resources:
                  - id: rel
                    base_url: "\(fixture.url("/rel/"))"
                    slices_from: {url: SHA256SUMS, minisign_key: release.pub}
                  - id: other
                    base_url: "\(fixture.url("/gen/300/"))"
                    slices: [{path: x.bin}]
                  - id: after
                    base_url: "\(fixture.url("/gen/300/"))"
                    depends_on: [rel]
                    slices: [{path: y.bin}]
                """)
        let (result, report) = try await fixture.applyJSON(["--junit", "junit.xml"])
        #expect(result.status == 1, "\(result)")
        let junit = String(decoding: fixture.directory.bytes(of: "junit.xml") ?? [], as: UTF8.self)
        #expect(junit.contains("<testcase classname=\"rel\" name=\"catalog\"") && junit.contains("type=\"catalog_refused\""), "\(junit)")
        #expect(result.stderr.contains("SHA256SUMS' is not trusted: the minisign signature does not match the file"), "\(result)")
        #expect(result.stderr.contains("resource 'rel' refused") && result.stderr.contains("resource 'after' refused"), "\(result)")
        #expect(result.stdout.contains("\"state\": \"refused\""), "\(result.stdout)")
        #expect(report.summary.fetched == 1)
        #expect(fixture.directory.bytes(of: "mirror/other/x.bin") != nil)
        let sent = try await fixture.sentRequests().map(\.path).sorted()
        #expect(sent == ["/gen/300/x.bin", "/rel/SHA256SUMS", "/rel/SHA256SUMS.minisig"], "\(sent)")
        #expect(fixture.size(of: "mirror/.jobrun/catalogs/rel/catalog") == nil, "a catalog that is not trusted was kept")
    }
}

/// A Metalink fetched as a resource's catalog: three URLs per file, the run failing over
/// between them in priority order; a URL elsewhere than the catalog may lead is never asked.
@Suite struct MetalinkCatalogTests {
    @Test func aMetalinksURLsFeedFailoverAndStayWhereTheyMayLead() async throws {
        let upstream = try TemporaryDirectory(prefix: "jobrun-metalink")
        defer { upstream.remove() }
        var options = FaultServer.Options()
        options.root = upstream.path
        options.hasSecondPort = true
        let fixture = try ApplyFixture(options)
        defer { fixture.finish() }
        let second = try #require(fixture.server.secondPort)
        let other = "http://127.0.0.1:\(second)"
        let files = ["a.bin", "b.bin"]
        let entries = files.map { name in
            """
              <file name="\(name)">
                <size>300</size>
                <hash type="sha-256">\(Generated.sha256Hex(size: 300, name: name))</hash>
                <url priority="3">\(other)/gen/300/\(name)</url>
                <url priority="1">\(fixture.url("/fault/status=503/gen/300/\(name)"))</url>
                <url priority="2">\(fixture.url("/fault/reset_at=10/gen/300/\(name)"))</url>
                <url priority="4">http://169.254.169.254/latest/meta-data/</url>
              </file>
            """
        }
        try upstream.write(
            file: "dl/files.meta4",
            contents: "<?xml version=\"1.0\"?>\n<metalink xmlns=\"urn:ietf:params:xml:ns:metalink\">\n\(entries.joined(separator: "\n"))\n</metalink>\n")
        try fixture.write(
            manifest: """
                version: 1
                resources:
                  - id: dl
                    retries: {attempts: 3, backoff: {initial: 10ms, max: 10ms}}
                    slices_from: {url: "\(fixture.url("/dl/files.meta4"))", format: metalink, allow: "127.0.0.1"}
                """)
        let (run, report) = try await fixture.applyJSON()
        #expect(run.status == 0 && report.summary.fetched == 2, "\(run)")
        #expect(run.stderr.contains("http://169.254.169.254/latest/meta-data/' of 'a.bin' is at http://169.254.169.254"), "\(run)")
        for name in files {
            #expect(fixture.directory.bytes(of: "mirror/dl/\(name)") == Generated.bytes(size: 300, name: name))
            let slice = try #require(report.resources.first?.slices.first { $0.path == name })
            #expect(slice.url == "\(other)/gen/300/\(name)", "\(slice.url)")
            #expect(slice.failedAt.map(\.url) == [fixture.url("/fault/status=503/gen/300/\(name)"), fixture.url("/fault/reset_at=10/gen/300/\(name)")])
        }
        let asked = try await fixture.sentRequests().map(\.path)
        #expect(!asked.contains { $0.contains("meta-data") }, "\(asked)")
    }
}

/// A host `allow:` names whose address is loopback, which `allow:` does not name: refused on the
/// address it connected to, before the request is sent.
@Suite struct CatalogAddressTests {
    @Test func aCatalogsURLMayNotReachAPrivateAddressThatAllowDoesNotName() async throws {
        let upstream = try TemporaryDirectory(prefix: "jobrun-metalink")
        defer { upstream.remove() }
        var options = FaultServer.Options()
        options.root = upstream.path
        options.hasSecondPort = true
        let fixture = try ApplyFixture(options)
        defer { fixture.finish() }
        let second = try #require(fixture.server.secondPort)
        try upstream.write(
            file: "dl/files.meta4",
            contents: """
                <metalink xmlns="urn:ietf:params:xml:ns:metalink">
                  <file name="a.bin"><size>300</size><url>http://localhost:\(second)/gen/300/a.bin</url></file>
                </metalink>

                """)
        try fixture.write(
            manifest: """
                version: 1
                resources:
                  - id: dl
                    slices_from: {url: "\(fixture.url("/dl/files.meta4"))", format: metalink, allow: localhost}
                """)
        let (run, report) = try await fixture.applyJSON()
        #expect(run.status == 1, "\(run)")
        let slice = try #require(report.resources.first?.slices.first)
        #expect(slice.error?.type == "AddressRefused" && slice.error?.message.contains("which is not a public address") == true, "\(run.stdout)")
        let atSecond = try await fixture.sentRequests().filter { $0.port == second }
        #expect(atSecond.isEmpty, "a request reached the loopback address: \(atSecond)")
        // Named, the address is allowed.
        try fixture.write(
            manifest: """
                version: 1
                resources:
                  - id: dl
                    slices_from: {url: "\(fixture.url("/dl/files.meta4"))", format: metalink, allow: [localhost, 127.0.0.0/8, "::1"]}
                """)
        let allowed = try await fixture.apply()
        #expect(allowed.status == 0 && allowed.stdout.contains("1 fetched"), "\(allowed)")

        // The catalog itself, redirected away from its origin to a loopback address: refused too.
        let before = try await fixture.sentRequests().filter { $0.port == second }.count
        try fixture.write(
            manifest: """
                version: 1
                resources:
                  - id: dl
                    slices_from: {url: "\(fixture.url("/redirect-port/\(second)/dl/files.meta4"))", format: metalink}
                """)
        let redirected = try await fixture.apply()
        #expect(redirected.status == 1 && redirected.stderr.contains("which is not a public address"), "\(redirected)")
        #expect(try await fixture.sentRequests().filter { $0.port == second }.count == before, "the redirect reached the loopback address")
    }
}
