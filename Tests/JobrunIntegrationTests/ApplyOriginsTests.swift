import Foundation
import JobrunTestSupport
import Testing

/// Several origins per resource (`base_urls`, a slice's `urls`): a slice that fails at one
/// origin, for whatever that origin answered, goes to the next; each origin's own headers reach
/// it only. Three origins: the fixture's two ports and a second server.
@Suite struct ApplyOriginsTests {
    /// The fixture (primary and second port) and a third server.
    struct Origins {
        let fixture: ApplyFixture
        let third: FaultServer
        var bases: [String] { [fixture.server.baseURL, fixture.server.secondBaseURL ?? "", third.baseURL] }

        init() throws {
            fixture = try ApplyFixture(secondPort: true)
            third = try FaultServer()
        }

        func finish() {
            third.stop()
            fixture.finish()
        }

        /// Requests for `path` at the fixture's `port`, in order.
        func requests(_ path: String, port: Int?) throws -> [LoggedRequest] {
            try fixture.server.requests(path: path).filter { $0.port == port }
        }
    }

    /// The manifests' first lines, to `resources:`: short backoffs, two attempts.
    static let preamble = """
        version: 1
        defaults:
          output: ./mirror
          retries: {attempts: 2, backoff: {initial: 20ms, max: 50ms}}
        resources:

        """

    static func manifest(_ origins: [String], slices: [(name: String, size: Int)], extra: String = "") -> String {
        preamble + """
              - id: r
            \(extra)    base_urls:
            \(origins.map { "      - \($0)" }.joined(separator: "\n"))
                slices:
            \(slices.map { "      - {path: \($0.name), size: \($0.size), sha256: \(Generated.sha256Hex(size: $0.size, name: $0.name))}" }.joined(separator: "\n"))

            """
    }

    @Test func aSliceFailsOverOnResetOn503On404AndOnWrongBytes() async throws {
        let o = try Origins()
        defer { o.finish() }
        let second = try #require(o.fixture.server.secondPort)
        // Each slice meets one fault at the first origin; the second serves it.
        let faults = ["reset_at=100", "status=503", "status=404", "wrong_bytes=1"]
        var manifest = Self.preamble
        for (i, fault) in faults.enumerated() {
            manifest += """
                  - id: r\(i)
                    base_urls:
                      - \(o.bases[0])/fault/\(fault)/gen/4096/
                      - \(o.bases[1])/gen/4096/
                    slices:
                      - {path: s\(i).bin, size: 4096, sha256: \(Generated.sha256Hex(size: 4096, name: "s\(i).bin"))}

                """
        }
        try o.fixture.write(manifest: manifest)
        let (run, report) = try await o.fixture.applyJSON()
        #expect(run.status == 0, "\(run)")
        #expect(report.summary.fetched == 4)
        for (i, fault) in faults.enumerated() {
            let atFirst = try o.requests("/fault/\(fault)/gen/4096/s\(i).bin", port: o.fixture.server.port)
            let atSecond = try o.requests("/gen/4096/s\(i).bin", port: second)
            // One attempt at the failing origin, then the next at once: no second try there.
            #expect(atFirst.count == 1, "\(fault): \(atFirst)")
            #expect(atSecond.map(\.status) == [200], "\(fault)")
            let data = try Data(contentsOf: URL(fileURLWithPath: o.fixture.directory.path + "/mirror/r\(i)/s\(i).bin"))
            #expect(Array(data) == Generated.bytes(size: 4096, name: "s\(i).bin"))
            let slice = try #require(report.resources.first { $0.id == "r\(i)" }?.slices.first)
            #expect(slice.attempts == 2)
            #expect(slice.origin == "http://127.0.0.1:\(second)" && slice.url == "\(o.bases[1])/gen/4096/s\(i).bin")
            #expect(slice.failedAt.map(\.url) == ["\(o.bases[0])/fault/\(fault)/gen/4096/s\(i).bin"], "\(fault)")
        }
    }

    @Test func everyOriginIsTriedOnceEvenWithFewerAttempts() async throws {
        let o = try Origins()
        defer { o.finish() }
        let bases = [
            "\(o.bases[0])/fault/status=500/gen/1000/", "\(o.bases[1])/fault/status=404/gen/1000/", "\(o.bases[2])/gen/1000/",
        ]
        try o.fixture.write(
            manifest: Self.manifest(bases, slices: [("a.bin", 1000)]).replacingOccurrences(of: "attempts: 2", with: "attempts: 1"))
        let run = try await o.fixture.apply()
        #expect(run.status == 0, "\(run)")
        #expect(try o.third.requests(path: "/gen/1000/a.bin").map(\.status) == [200])
    }

    @Test func aSliceFailsWhenEveryOriginFailsAndSaysWhereAndWhy() async throws {
        let o = try Origins()
        defer { o.finish() }
        let bases = ["\(o.bases[0])/fault/status=404/gen/1000/", "\(o.bases[1])/fault/status=410/gen/1000/"]
        try o.fixture.write(manifest: Self.manifest(bases, slices: [("a.bin", 1000)]))
        let run = try await o.fixture.apply(["--junit", "report.xml", "--events", "events.ndjson"])
        #expect(run.status != 0)
        // A 404 and a 410 are for good at that origin: one request each, no second round.
        #expect(try o.fixture.server.requests().count == 2)
        let (again, report) = try await o.fixture.applyJSON()
        #expect(again.status != 0)
        let slice = try #require(report.resources.first?.slices.first)
        #expect(slice.status == "failed")
        #expect(slice.attempts == 2)
        let second = try #require(o.fixture.server.secondPort)
        let (url404, url410) = ("\(o.bases[0])/fault/status=404/gen/1000/a.bin", "\(o.bases[1])/fault/status=410/gen/1000/a.bin")
        #expect(slice.failedAt.map(\.url) == [url404, url410])
        #expect(slice.failedAt.map(\.error.type) == ["HTTP404", "HTTP410"])
        #expect(slice.url == url410 && slice.origin == "http://127.0.0.1:\(second)")
        let junit = try #require(o.fixture.directory.contents(of: "report.xml"))
        #expect(junit.contains("failed at: \(url404): HTTP404: "), "\(junit)")
        #expect(junit.contains("failed at: \(url410): HTTP410: "), "\(junit)")
        let events = try #require(o.fixture.directory.contents(of: "events.ndjson"))
        let settled = try #require(events.split(separator: "\n").first { $0.contains("\"slice_failed\"") || $0.contains("\"status\":\"failed\"") })
        #expect(settled.contains("\"failed_at\":[{\"url\":\"\(url404)\""), "\(settled)")
        let validation = EventSchemaCheck.validate([o.fixture.directory.path("events.ndjson")])
        #expect(validation.ok, "\(validation.output)")
        #expect(run.stdout.contains("    failed at \(url404): HTTP 404"), "\(run)")
    }

    @Test func anOriginsHeadersGoToThatOriginOnly() async throws {
        let o = try Origins()
        defer { o.finish() }
        let second = try #require(o.fixture.server.secondPort)
        try o.fixture.write(
            manifest: Self.preamble + """
                  - id: r
                    headers: {X-Everyone: all}
                    base_urls:
                      - url: \(o.bases[0])/fault/status=503/gen/1000/
                        headers: {Authorization: "Bearer first-token", X-Mirror: first}
                      - url: \(o.bases[1])/fault/status=503/gen/1000/
                        headers: {Authorization: "Bearer second-token", X-Mirror: second}
                      - \(o.bases[2])/gen/1000/
                    slices:
                      - {path: a.bin, size: 1000, sha256: \(Generated.sha256Hex(size: 1000, name: "a.bin"))}

                """)
        let run = try await o.fixture.apply()
        #expect(run.status == 0, "\(run)")
        func header(_ r: LoggedRequest, _ name: String) -> String? {
            r.headers.first { $0.name.lowercased() == name.lowercased() }?.value
        }
        let first = try o.requests("/fault/status=503/gen/1000/a.bin", port: o.fixture.server.port)
        #expect(first.count == 1)
        #expect(first.allSatisfy { header($0, "Authorization") == "Bearer first-token" && header($0, "X-Mirror") == "first" })
        let atSecond = try o.fixture.server.requests().filter { $0.port == second }
        #expect(atSecond.count == 1)
        #expect(atSecond.allSatisfy { header($0, "Authorization") == "Bearer second-token" && header($0, "X-Mirror") == "second" })
        // The third origin gets the resource's headers, none of the other origins'.
        let atThird = try o.third.requests()
        #expect(atThird.map(\.status) == [200])
        #expect(atThird.allSatisfy { header($0, "Authorization") == nil && header($0, "X-Mirror") == nil && header($0, "X-Everyone") == "all" })
    }

    @Test func planShowsEachResourcesOriginsInOrder() async throws {
        let o = try Origins()
        defer { o.finish() }
        let bases = ["\(o.bases[0])/gen/1000/", "\(o.bases[2])/gen/1000/"]
        let manifest = Self.manifest(bases, slices: [("a.bin", 1000), ("b.bin", 1000)])
            .replacingOccurrences(of: "      - \(bases[1])", with: "      - url: \(bases[1])\n        headers: {Authorization: \"Bearer secret-b\"}")
        try o.fixture.write(manifest: manifest)
        let plan = try await o.fixture.run(["plan", "site.yaml", "-v"])
        #expect(plan.status == 0, "\(plan)")
        #expect(plan.stdout.contains("    origins, in order: \(bases[0]), \(bases[1])\n"), "\(plan)")
        #expect(plan.stdout.contains("@ \(o.bases[0]): 2 slices to transfer, 4 at once over HTTP/1.1"), "\(plan)")
        #expect(plan.stdout.contains("@ \(o.bases[2]): a fallback for 2 slices, 4 at once over HTTP/1.1"), "\(plan)")
        let json = try await o.fixture.run(["plan", "site.yaml", "--json"])
        let document = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let resource = try #require((document["resources"] as? [[String: Any]])?.first)
        let origins = try #require(resource["origins"] as? [[String: Any]])
        #expect(origins.map { $0["url"] as? String } == bases)
        #expect(origins.map { $0["origin"] as? String } == [o.bases[0], o.bases[2]])
        #expect((origins[1]["headers"] as? [String: String]) == ["Authorization": "<redacted>"])
        #expect(!json.stdout.contains("secret-b") && !plan.stdout.contains("secret-b"))
    }

    /// A partial left by one origin is continued at the next only when the slice's digest will
    /// decide (without If-Range: the first origin's validator says nothing of the second's);
    /// without a digest the next origin sends the file from byte 0.
    @Test func aPartialIsContinuedAtTheNextOriginOnlyWithADigest() async throws {
        let o = try Origins()
        defer { o.finish() }
        let size = 2 << 20
        let second = try #require(o.fixture.server.secondPort)
        for (name, digest) in [("with.bin", true), ("without.bin", false)] {
            let sha = digest ? ", sha256: \(Generated.sha256Hex(size: size, name: name))" : ""
            try o.fixture.write(
                manifest: Self.preamble + """
                      - id: r
                        base_urls: [\(o.bases[0])/fault/reset_at=1000000/gen/\(size)/, \(o.bases[1])/gen/\(size)/]
                        slices:
                          - {path: \(name), size: \(size)\(sha)}

                    """)
            let run = try await o.fixture.apply()
            #expect(run.status == 0, "\(run)")
            let atSecond = try o.requests("/gen/\(size)/\(name)", port: second)
            #expect(atSecond.count == 1)
            let range = atSecond.first?.headers.first { $0.name.lowercased() == "range" }?.value
            let ifRange = atSecond.first?.headers.first { $0.name.lowercased() == "if-range" }?.value
            if digest {
                #expect(range != nil && range != "bytes=0-", "\(name): \(atSecond)")
                #expect(ifRange == nil, "\(name)")
                #expect((atSecond.first?.bytesSent ?? size) < size)
            } else {
                #expect(range == nil, "\(name): \(atSecond)")
            }
            let data = try Data(contentsOf: URL(fileURLWithPath: o.fixture.directory.path + "/mirror/r/\(name)"))
            #expect(Array(data) == Generated.bytes(size: size, name: name), "\(name)")
        }
    }

    /// An origin that answers wrong bytes is quarantined after three such answers: the slices
    /// after them start at the next origin, and the reports say so.
    @Test func anOriginServingWrongBytesIsQuarantined() async throws {
        let o = try Origins()
        defer { o.finish() }
        let names = (0..<12).map { (name: "q\($0).bin", size: 2000) }
        // The second origin a standby (weight 0): every slice starts at the first.
        let bases = ["\(o.bases[0])/fault/wrong_bytes=1/gen/2000/", "{url: \"\(o.bases[1])/gen/2000/\", weight: 0}"]
        try o.fixture.write(manifest: Self.manifest(bases, slices: names, extra: "    concurrency: {per_host: 1}\n"))
        let run = try await o.fixture.apply(["-v", "--events", "events.ndjson"])
        #expect(run.status == 0, "\(run)")
        let first = o.fixture.server.baseURL
        #expect(run.stdout.contains("! \(first): quarantined: wrong bytes for 3 slices (last: ChecksumMismatch: "), "\(run)")
        // One at a time there: the third wrong answer is judged while, at most, one more went.
        let wrong = try o.fixture.server.requests().filter { $0.path.hasPrefix("/fault/wrong_bytes=1/") }
        #expect((3...4).contains(wrong.count), "\(wrong.count) requests to the corrupting origin")
        for slice in names {
            let data = try Data(contentsOf: URL(fileURLWithPath: o.fixture.directory.path + "/mirror/r/\(slice.name)"))
            #expect(Array(data) == Generated.bytes(size: 2000, name: slice.name))
        }
        let (_, report) = try await o.fixture.applyJSON()
        #expect(report.summary.upToDate == 12)
        let events = try #require(o.fixture.directory.contents(of: "events.ndjson"))
        #expect(events.contains("\"state\":\"quarantined\""), "\(events)")
        let usage = try #require(events.split(separator: "\n").first { $0.contains("\"origin_usage\"") && $0.contains("\"\(first)\"") })
        #expect(usage.contains("\"wrong_answers\":\(wrong.count)") && usage.contains("\"quarantined\":true"), "\(usage)")
        #expect(usage.contains("\"failures\":\(wrong.count)"), "\(usage)")
        let validation = EventSchemaCheck.validate([o.fixture.directory.path("events.ndjson")])
        #expect(validation.ok, "\(validation.output)")
    }

    /// The mirror state remembers a quarantine: the next run's slices start at the next origin
    /// at once, and the run says why.
    @Test func theNextRunStartsPastAQuarantinedOrigin() async throws {
        let o = try Origins()
        defer { o.finish() }
        // The second origin a standby (weight 0): every slice starts at the first.
        let bases = ["\(o.bases[0])/fault/wrong_bytes=1/gen/2000/", "{url: \"\(o.bases[1])/gen/2000/\", weight: 0}"]
        let first = (0..<6).map { (name: "a\($0).bin", size: 2000) }
        try o.fixture.write(manifest: Self.manifest(bases, slices: first, extra: "    concurrency: {per_host: 1}\n"))
        let firstRun = try await o.fixture.apply()
        #expect(firstRun.status == 0 && firstRun.stdout.contains(": quarantined: wrong bytes for 3 slices"), "\(firstRun)")
        let before = try o.fixture.server.requests().filter { $0.path.hasPrefix("/fault/wrong_bytes=1/") }.count
        let next = (0..<6).map { (name: "b\($0).bin", size: 2000) }
        try o.fixture.write(manifest: Self.manifest(bases, slices: first + next, extra: "    concurrency: {per_host: 1}\n"))
        let run = try await o.fixture.apply(["--events", "events.ndjson"])
        #expect(run.status == 0, "\(run)")
        #expect(try o.fixture.server.requests().filter { $0.path.hasPrefix("/fault/wrong_bytes=1/") }.count == before, "no request there")
        #expect(run.stdout.contains("= \(o.fixture.server.baseURL): quarantined by an earlier run until "), "\(run)")
        let events = try #require(o.fixture.directory.contents(of: "events.ndjson"))
        #expect(events.contains("\"state\":\"still_quarantined\""), "\(events)")
        let validation = EventSchemaCheck.validate([o.fixture.directory.path("events.ndjson")])
        #expect(validation.ok, "\(validation.output)")
    }

    /// An origin's headers stay there when it redirects elsewhere; a redirect refused (to
    /// another scheme) moves the slice to its next URL.
    @Test func aRedirectElsewhereCarriesNoneOfTheOriginsHeadersAndARefusedOneFailsOver() async throws {
        let o = try Origins()
        defer { o.finish() }
        let size = 1000
        try o.fixture.write(
            manifest: Self.preamble + """
                  - id: r
                    headers: {X-Everyone: all}
                    base_urls:
                      - url: \(o.bases[0])/redirect-port/\(o.third.port)/gen/\(size)/
                        headers: {Authorization: "Bearer first-token", X-Mirror: first}
                    slices:
                      - {path: a.bin, size: \(size), sha256: \(Generated.sha256Hex(size: size, name: "a.bin"))}
                  - id: s
                    slices:
                      - path: b.bin
                        size: \(size)
                        sha256: \(Generated.sha256Hex(size: size, name: "b.bin"))
                        urls: ["\(o.bases[0])/redirect-to?url=ftp%3A%2F%2F127.0.0.1%2Fb.bin", "\(o.bases[1])/gen/\(size)/b.bin"]

                """)
        let (run, report) = try await o.fixture.applyJSON()
        #expect(run.status == 0, "\(run)")
        let atFirst = try o.fixture.server.requests().filter { $0.path.hasPrefix("/redirect-port/") }
        #expect(atFirst.count == 1 && atFirst.allSatisfy { Self.header($0, "Authorization") == "Bearer first-token" })
        let atThird = try o.third.requests()
        #expect(atThird.map(\.status) == [200])
        #expect(atThird.allSatisfy { Self.header($0, "Authorization") == nil && Self.header($0, "X-Mirror") == nil && Self.header($0, "X-Everyone") == "all" })
        let b = try #require(report.resources.first { $0.id == "s" }?.slices.first)
        #expect(b.status == "fetched" && b.failedAt.map(\.error.type) == ["Redirect"], "\(b.failedAt)")
    }

    /// A partial file one origin left stays when an attempt at the next fails before a byte
    /// (a 503): the round back at the first continues it with its validator.
    @Test func aPartialOutlivesAFailureElsewhere() async throws {
        let o = try Origins()
        defer { o.finish() }
        let size = 2 << 20
        try o.fixture.write(
            manifest: Self.preamble.replacingOccurrences(of: "attempts: 2", with: "attempts: 3") + """
                  - id: r
                    base_urls: [\(o.bases[0])/fault/reset_at=1000000;n=1/gen/\(size)/, \(o.bases[1])/fault/status=503/gen/\(size)/]
                    slices:
                      - {path: big.bin, size: \(size)}

                """)
        let run = try await o.fixture.apply()
        #expect(run.status == 0, "\(run)")
        let atFirst = try o.fixture.server.requests().filter { $0.path.hasPrefix("/fault/reset_at") }
        #expect(atFirst.count == 2, "\(atFirst)")
        let resume = try #require(atFirst.last)
        #expect(Self.header(resume, "Range") != nil && Self.header(resume, "If-Range") != nil, "\(resume)")
        let data = try Data(contentsOf: URL(fileURLWithPath: o.fixture.directory.path + "/mirror/r/big.bin"))
        #expect(Array(data) == Generated.bytes(size: size, name: "big.bin"))
    }

    static func header(_ r: LoggedRequest, _ name: String) -> String? {
        r.headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    /// Slices spread over a resource's origins by what each delivers: two equal origins each
    /// serve a good share, and one five times slower serves fewer than the faster one.
    @Test func slicesSpreadOverOriginsByWhatEachDelivers() async throws {
        for slower in [1, 5] {
            let fast = try FaultServer(FaultServer.Options(timePerKiB: .milliseconds(4)))
            let slow = try FaultServer(FaultServer.Options(timePerKiB: .milliseconds(4 * slower)))
            let directory = try TemporaryDirectory(prefix: "jobrun-spread")
            defer {
                fast.stop()
                slow.stop()
                directory.remove()
            }
            let names = (0..<24).map { (name: "s\($0).bin", size: 8192) }
            // The slower one first: the faster one serves more all the same.
            let manifest = Self.manifest(["\(slow.baseURL)/gen/8192/", "\(fast.baseURL)/gen/8192/"], slices: names, extra: "    concurrency: {per_host: 2}\n")
            _ = try directory.write(file: "site.yaml", contents: manifest)
            let run = try await Harness.run(["apply", "site.yaml"], in: directory.path, alsoRemoving: ApplyFixture.proxyVariables)
            #expect(run.status == 0, "\(run)")
            let (atFast, atSlow) = (try fast.requests().count, try slow.requests().count)
            #expect(atFast + atSlow == 24)
            if slower == 1 {
                #expect(atSlow >= 6 && atFast >= 6, "equal origins: \(atFast) and \(atSlow)")
            } else {
                #expect(atSlow >= 1 && atFast > atSlow, "five times slower: \(atFast) and \(atSlow)")
            }
        }
    }
}
