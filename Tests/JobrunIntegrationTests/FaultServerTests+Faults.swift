import Foundation
import JobrunTestSupport
import Testing

/// Each fault of the test server once, as curl sees it and as the log records it.
extension FaultServerTests {
    @Test func aStatusFaultCountsRequestsPerURLThenServes() async throws {
        let fixture = try Fixture()
        defer { fixture.finish() }
        let path = FaultServer.path("/gen/100/s.bin", faults: "status=503", "n=2", "retry_after=2")
        #expect(path == "/fault/status=503;n=2;retry_after=2/gen/100/s.bin")
        var statuses: [Int] = []
        for _ in 0..<3 {
            let response = try await fixture.curl(fixture.server.url(path))
            statuses.append(response.status)
            #expect(response.header("Retry-After") == (response.status == 503 ? "2" : nil), "\(response)")
            if response.status == 200 { #expect(response.body == Generated.bytes(size: 100, name: "s.bin")) }
        }
        #expect(statuses == [503, 503, 200])
        // Another URL of the same content has a counter of its own.
        #expect(try await fixture.curl(fixture.server.url(FaultServer.path("/gen/100/s.bin", faults: "status=503", "n=1"))).status == 503)

        let log = try await fixture.server.waitForRequests { $0.count == 4 }
        #expect(log.filter { $0.path == path }.map(\.requestNumber) == [1, 2, 3])
    }

    @Test func retryAfterInSecondsOrAsAnHTTPDate() async throws {
        let fixture = try Fixture()
        defer { fixture.finish() }
        let ahead = try await fixture.curl(fixture.server.url("/fault/status=429;retry_after=date:+2/gen/10/d"))
        let past = try await fixture.curl(fixture.server.url("/fault/status=503;retry_after=date:-100/gen/10/d"))
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        #expect(ahead.status == 429 && past.status == 503)
        // Relative to the response's own Date (both are whole seconds).
        func offset(_ response: Curl.Response) throws -> TimeInterval {
            let retryAfter = try #require(response.header("Retry-After").flatMap(formatter.date(from:)), "\(response)")
            let date = try #require(response.header("Date").flatMap(formatter.date(from:)), "\(response)")
            return retryAfter.timeIntervalSince(date)
        }
        #expect((1...3).contains(try offset(ahead)))
        #expect((-101 ... -99).contains(try offset(past)))

        let route = try await fixture.curl(fixture.server.url("/status/503?retry_after=7"))
        #expect(route.status == 503 && route.header("Retry-After") == "7", "\(route)")
        #expect(try await fixture.curl(fixture.server.url("/status/404")).status == 404)
    }

    @Test func aTruncatedBodyIsCurlError18() async throws {
        let fixture = try Fixture()
        defer { fixture.finish() }
        let response = try await fixture.curl(fixture.server.url("/fault/truncate_at=1000/gen/5000/t.bin"))
        #expect(response.exitStatus == 18 && response.header("Content-Length") == "5000", "\(response)")
        #expect(response.body == Array(Generated.bytes(size: 5_000, name: "t.bin")[..<1_000]))
        let log = try await fixture.server.waitForRequests { $0.count == 1 }
        #expect(log.first?.bytesSent == 1_000 && log.first?.status == 200)
    }

    @Test func aResetMidBodyIsCurlError56AndTheRetryCanResume() async throws {
        let fixture = try Fixture()
        defer { fixture.finish() }
        let url = fixture.server.url("/fault/reset_at=1000;n=1/gen/100000/x.bin")
        let whole = Generated.bytes(size: 100_000, name: "x.bin")
        let first = try await fixture.curl(url)
        #expect(first.exitStatus == 56, "\(first)")
        #expect(first.body == Array(whole[..<1_000]), "the bytes sent before the reset arrive")
        let etag = try #require(first.header("ETag"))

        let resumed = try await fixture.curl(url, options: ["-H", "Range: bytes=1000-", "-H", "If-Range: \(etag)"])
        #expect(resumed.status == 206 && resumed.header("Content-Range") == "bytes 1000-99999/100000", "\(resumed)")
        #expect(first.body + resumed.body == whole)
        let log = try await fixture.server.waitForRequests { $0.count == 2 }
        #expect(log.map { $0.header(named: "Range") } == [nil, "bytes=1000-"])
        #expect(log.map { $0.header(named: "If-Range") } == [nil, etag])
        #expect(log[1].time >= log[0].endTime, "the gap between attempts is measurable")
    }

    @Test func faultGroupsSelectAttemptsWithFromAndN() async throws {
        let fixture = try Fixture()
        defer { fixture.finish() }
        let url = fixture.server.url("/fault/status=500;n=1/fault/ignore_range=1;from=2;n=1/gen/100/f.bin")
        let whole = Generated.bytes(size: 100, name: "f.bin")
        #expect(try await fixture.curl(url, options: ["-r", "50-"]).status == 500)
        let ignored = try await fixture.curl(url, options: ["-r", "50-"])
        #expect(ignored.status == 200 && ignored.body == whole && ignored.header("Accept-Ranges") == nil, "\(ignored)")
        let honoured = try await fixture.curl(url, options: ["-r", "50-"])
        #expect(honoured.status == 206 && honoured.body == Array(whole[50...]), "\(honoured)")
    }

    @Test func wrongBytesKeepSizeAndETagButNotTheDigest() async throws {
        let fixture = try Fixture()
        defer { fixture.finish() }
        let clean = try await fixture.curl(fixture.server.url("/gen/5000/w.bin"))
        let corrupt = try await fixture.curl(fixture.server.url("/fault/wrong_bytes=1/gen/5000/w.bin"))
        #expect(corrupt.status == 200 && corrupt.body.count == 5_000, "\(corrupt)")
        #expect(corrupt.body != clean.body && corrupt.body == Generated.corrupted(clean.body))
        #expect(PortableSHA256.hex(of: corrupt.body) != Generated.sha256Hex(size: 5_000, name: "w.bin"))
        #expect(corrupt.header("ETag") == clean.header("ETag"))
    }

    @Test func theRepresentationChangesAfterKRequests() async throws {
        let fixture = try Fixture()
        defer { fixture.finish() }
        let url = fixture.server.url("/fault/change_after=1/gen/1000/c.bin")
        let first = try await fixture.curl(url)
        let oldETag = try #require(first.header("ETag"))
        #expect(first.body == Generated.bytes(size: 1_000, name: "c.bin"))

        let resume = try await fixture.curl(url, options: ["-H", "Range: bytes=500-", "-H", "If-Range: \(oldETag)"])
        #expect(resume.status == 200, "If-Range with the old ETag gets the whole new representation: \(resume)")
        #expect(resume.body == Generated.bytes(size: 1_000, name: "c.bin", version: 1))
        #expect(resume.header("ETag") != oldETag && resume.header("ETag") != nil)
        #expect(resume.header("Last-Modified") == "Mon, 01 Jan 2024 01:00:00 GMT")

        let pinned = try await fixture.curl(fixture.server.url("/fault/etag_version=2/gen/1000/c.bin"))
        #expect(pinned.body == Generated.bytes(size: 1_000, name: "c.bin", version: 2))
    }

    @Test func aWrongContentRangeStartsElsewhere() async throws {
        let fixture = try Fixture()
        defer { fixture.finish() }
        let response = try await fixture.curl(
            fixture.server.url("/fault/wrong_content_range=1/gen/1000/o.bin"), options: ["-H", "Range: bytes=100-"])
        #expect(response.status == 206 && response.header("Content-Range") == "bytes 101-999/1000", "\(response)")
        #expect(response.body == Array(Generated.bytes(size: 1_000, name: "o.bin")[101...]))
    }

    @Test func aLyingContentLength() async throws {
        let fixture = try Fixture()
        defer { fixture.finish() }
        let short = try await fixture.curl(fixture.server.url("/fault/length=50/gen/100/l.bin"))
        #expect(short.header("Content-Length") == "50" && short.body == Array(Generated.bytes(size: 100, name: "l.bin")[..<50]), "\(short)")
        let long = try await fixture.curl(fixture.server.url("/fault/length=200/gen/100/l.bin"))
        #expect(long.exitStatus == 18 && long.body.count == 100, "\(long)")
    }

    @Test func chunkedBodiesWithoutContentLength() async throws {
        let fixture = try Fixture()
        defer { fixture.finish() }
        let whole = try await fixture.curl(fixture.server.url("/fault/chunked=1/gen/100000/k.bin"))
        #expect(whole.exitStatus == 0 && whole.header("Transfer-Encoding") == "chunked" && whole.header("Content-Length") == nil, "\(whole)")
        #expect(whole.body == Generated.bytes(size: 100_000, name: "k.bin"))
        let cut = try await fixture.curl(fixture.server.url("/fault/chunked=1;truncate_at=5000/gen/100000/k.bin"))
        #expect(cut.exitStatus == 18 && cut.body.count == 5_000, "no last chunk: \(cut)")
    }

    @Test func gzipEncodingAndABomb() async throws {
        let fixture = try Fixture()
        defer { fixture.finish() }
        let url = fixture.server.url("/fault/gzip=1/gen/5000/z.bin")
        let raw = try await fixture.curl(url)
        #expect(raw.header("Content-Encoding") == "gzip" && raw.body.starts(with: [0x1F, 0x8B]), "\(raw)")
        #expect(try await fixture.curl(url, options: ["--compressed"]).body == Generated.bytes(size: 5_000, name: "z.bin"))

        let bomb = try await fixture.curl(fixture.server.url("/fault/gzip=1/zeros/10000000"))
        #expect(bomb.body.count < 20_000, "10 MB of zeros compress to \(bomb.body.count) bytes")
    }

    @Test func dripAndDelaySlowTheResponse() async throws {
        let fixture = try Fixture()
        defer { fixture.finish() }
        let drip = try await fixture.curl(fixture.server.url("/fault/drip=40000/gen/4000/d.bin"))
        #expect(drip.exitStatus == 0 && drip.body == Generated.bytes(size: 4_000, name: "d.bin"), "\(drip)")
        _ = try await fixture.curl(fixture.server.url("/fault/delay_ms=150/gen/10/d.bin"))
        let log = try await fixture.server.waitForRequests { $0.count == 2 }
        #expect(log[0].endTime - log[0].time >= 0.07, "4000 B at 40000 B/s: \(log[0].endTime - log[0].time) s")
        #expect(log[1].endTime - log[1].time >= 0.14, "\(log[1].endTime - log[1].time) s")
    }

    @Test func aStallHoldsTheSocketUntilTheClientGivesUp() async throws {
        let fixture = try Fixture()
        defer { fixture.finish() }
        let response = try await fixture.curl(fixture.server.url("/fault/stall_at=500/gen/5000/s.bin"), options: ["--max-time", "1"])
        #expect(response.exitStatus == 28 && response.body.count == 500, "\(response)")
        let log = try await fixture.server.waitForRequests { $0.count == 1 }
        #expect(log[0].clientDisconnected && log[0].bytesSent == 500, "\(log)")
    }

    @Test func redirectChainsAndLoops() async throws {
        let fixture = try Fixture()
        defer { fixture.finish() }
        let chain = try await fixture.curl(fixture.server.url("/redirect/3/gen/10/r.bin?sig=1"), options: ["-L"])
        #expect(chain.status == 200 && chain.body == Generated.bytes(size: 10, name: "r.bin"), "\(chain)")
        let loop = try await fixture.curl(fixture.server.url("/redirect-loop/gen/10/l.bin"), options: ["-L", "--max-redirs", "5"])
        #expect(loop.exitStatus == 47, "too many redirects: \(loop)")

        let log = try await fixture.server.waitForRequests { $0.count == 10 }
        #expect(
            log.prefix(4).map(\.path) == [
                "/redirect/3/gen/10/r.bin?sig=1", "/redirect/2/gen/10/r.bin?sig=1", "/redirect/1/gen/10/r.bin?sig=1", "/gen/10/r.bin?sig=1",
            ])
        #expect(log.prefix(3).allSatisfy { $0.status == 302 })
        #expect(log.dropFirst(4).allSatisfy { $0.path == "/redirect-loop/gen/10/l.bin" && $0.status == 302 })
    }

    @Test func redirectsToAnotherPortAndOtherSchemes() async throws {
        let fixture = try Fixture(FaultServer.Options(hasSecondPort: true))
        defer { fixture.finish() }
        let server = fixture.server
        let target = try server.url("/gen/10/p.bin", on: .second)
        let encoded = try #require(target.addingPercentEncoding(withAllowedCharacters: .alphanumerics))
        let response = try await fixture.curl(server.url("/redirect-to?url=\(encoded)"), options: ["-L", "-H", "X-Api-Key: k1"])
        #expect(response.status == 200 && response.body == Generated.bytes(size: 10, name: "p.bin"), "\(response)")

        let log = try await server.waitForRequests { $0.count == 2 }
        #expect(log.map(\.port) == [server.port, server.secondPort])
        #expect(log[0].responseHeader(named: "Location") == target)
        // What the client forwarded, per port: here curl sends a custom header to another port.
        #expect(log.map { $0.header(named: "X-Api-Key") } == ["k1", "k1"])

        for elsewhere in ["ftp://127.0.0.1:1/x.bin", "file:///etc/passwd"] {
            let query = try #require(elsewhere.addingPercentEncoding(withAllowedCharacters: .alphanumerics))
            let redirect = try await fixture.curl(server.url("/redirect-to?url=\(query)&status=307"))
            #expect(redirect.status == 307 && redirect.header("Location") == elsewhere, "\(redirect)")
        }
    }
}
