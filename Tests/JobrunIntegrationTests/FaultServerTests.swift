import Foundation
import JobrunTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The test server itself (`Tests/Support/faultserver.py` through ``FaultServer``), checked with
/// curl as an independent client: if these pass, a failing `jobrun apply` test is jobrun's fault.
/// Faults and redirects are in `FaultServerTests+Faults.swift`.
@Suite(.enabled(if: Curl.isAvailable, "needs /usr/bin/curl"))
struct FaultServerTests {
    /// A server and a curl writing into a scratch directory; both go away with the test.
    struct Fixture {
        let server: FaultServer
        let directory: TemporaryDirectory
        var curl: Curl { Curl(directory: directory) }

        init(_ options: FaultServer.Options = FaultServer.Options()) throws {
            directory = try TemporaryDirectory(prefix: "faultserver-test")
            server = try FaultServer(options)
        }

        func finish() {
            server.stop()
            directory.remove()
        }
    }

    @Test func portableSHA256MatchesTheStandardVectors() {
        #expect(PortableSHA256.hex(of: [UInt8]()) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(PortableSHA256.hex(of: Array("abc".utf8)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(
            PortableSHA256.hex(of: Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8))
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        var incremental = PortableSHA256()
        for _ in 0..<1_000 { incremental.update(Array(repeating: UInt8(ascii: "a"), count: 1_000)) }
        #expect(
            PortableSHA256.hex(digest: incremental.finalize())
                == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    @Test func generatedContentMatchesTheServerAtEverySize() async throws {
        let fixture = try Fixture()
        defer { fixture.finish() }
        // Around the 32-byte block and the server's 64 KiB chunk.
        for size in [0, 1, 31, 32, 33, 65_536, 70_001] {
            let path = Generated.path(size: size, name: "dir/g\(size).bin")
            let response = try await fixture.curl(fixture.server.url(path))
            #expect(response.status == 200 && response.body == Generated.bytes(size: size, name: "dir/g\(size).bin"), "\(response)")
            let digest = try await fixture.curl(fixture.server.url("/_digest" + path))
            #expect(String(decoding: digest.body, as: UTF8.self) == Generated.sha256Hex(size: size, name: "dir/g\(size).bin") + "\n")
        }
        let version = try await fixture.curl(fixture.server.url("/_digest/gen/100/v?version=3&alg=sha256"))
        #expect(String(decoding: version.body, as: UTF8.self) == Generated.sha256Hex(size: 100, name: "v", version: 3) + "\n")
    }

    @Test func aFullResponseCarriesStrongValidators() async throws {
        let fixture = try Fixture()
        defer { fixture.finish() }
        let response = try await fixture.curl(fixture.server.url("/gen/5000/a.bin?signature=ignored"))
        #expect(response.exitStatus == 0 && response.status == 200, "\(response)")
        #expect(response.body == Generated.bytes(size: 5_000, name: "a.bin"))
        #expect(response.header("Content-Length") == "5000")
        #expect(response.header("Accept-Ranges") == "bytes")
        #expect(response.header("Last-Modified") == "Mon, 01 Jan 2024 00:00:00 GMT")
        let etag = try #require(response.header("ETag"))
        #expect(etag.hasPrefix("\"") && etag.hasSuffix("\"") && etag.count > 10, "strong and quoted: \(etag)")

        let head = try await fixture.curl(fixture.server.url("/gen/5000/a.bin"), options: ["-I"])
        #expect(head.status == 200 && head.header("ETag") == etag && head.header("Content-Length") == "5000", "\(head)")
        let log = try await fixture.server.waitForRequests { $0.count == 2 }
        #expect(log.map(\.method) == ["GET", "HEAD"] && log.map(\.bytesSent) == [5_000, 0])
    }

    @Test func rangesAndIfRange() async throws {
        let fixture = try Fixture()
        defer { fixture.finish() }
        let url = fixture.server.url("/gen/5000/r.bin")
        let whole = Generated.bytes(size: 5_000, name: "r.bin")
        let etag = try #require(try await fixture.curl(url, options: ["-I"]).header("ETag"))

        let open = try await fixture.curl(url, options: ["-H", "Range: bytes=100-"])
        #expect(open.status == 206 && open.header("Content-Range") == "bytes 100-4999/5000", "\(open)")
        #expect(open.body == Array(whole[100...]))
        let closed = try await fixture.curl(url, options: ["-H", "Range: bytes=10-19"])
        #expect(closed.status == 206 && closed.header("Content-Range") == "bytes 10-19/5000" && closed.body == Array(whole[10..<20]))
        let suffix = try await fixture.curl(url, options: ["-H", "Range: bytes=-100"])
        #expect(suffix.status == 206 && suffix.body == Array(whole[4_900...]))

        let matching = try await fixture.curl(url, options: ["-H", "Range: bytes=4000-", "-H", "If-Range: \(etag)"])
        #expect(matching.status == 206 && matching.body == Array(whole[4_000...]), "\(matching)")
        let byDate = try await fixture.curl(
            url, options: ["-H", "Range: bytes=4000-", "-H", "If-Range: Mon, 01 Jan 2024 00:00:00 GMT"])
        #expect(byDate.status == 206, "\(byDate)")
        for stale in ["\"not-the-etag\"", "W/\(etag)", "Tue, 02 Jan 2024 00:00:00 GMT"] {
            let mismatch = try await fixture.curl(url, options: ["-H", "Range: bytes=4000-", "-H", "If-Range: \(stale)"])
            #expect(mismatch.status == 200 && mismatch.body == whole, "If-Range: \(stale) → \(mismatch)")
        }

        let unsatisfiable = try await fixture.curl(url, options: ["-H", "Range: bytes=5000-"])
        #expect(unsatisfiable.status == 416 && unsatisfiable.header("Content-Range") == "bytes */5000", "\(unsatisfiable)")
        #expect(unsatisfiable.body.isEmpty)
    }

    @Test func theLogRecordsHeadersInOrderAndConnectionReuse() async throws {
        let fixture = try Fixture()
        defer { fixture.finish() }
        let server = fixture.server
        // Two URLs in one curl run share a connection; close=1 forbids that.
        _ = try await fixture.curl(
            server.url("/gen/10/one"), server.url("/gen/10/two"),
            options: ["-H", "X-Api-Key: key-1", "-H", "Authorization: Bearer t", "-H", "Range: bytes=2-"])
        _ = try await fixture.curl(server.url("/fault/close=1/gen/10/three"), server.url("/gen/10/four"))

        let log = try await server.waitForRequests { $0.count == 4 }
        let byPath = Dictionary(uniqueKeysWithValues: log.map { ($0.pathWithoutQuery, $0) })
        let one = try #require(byPath["/gen/10/one"])
        let two = try #require(byPath["/gen/10/two"])
        #expect(one.port == server.port && one.scheme == "http" && one.method == "GET")
        #expect(one.header(named: "x-api-key") == "key-1" && one.header(named: "AUTHORIZATION") == "Bearer t")
        #expect(one.header(named: "Range") == "bytes=2-" && one.status == 206 && one.bytesSent == 8)
        let names = one.headers.map(\.name)
        #expect(names.first == "Host" && names.filter { $0 == "X-Api-Key" || $0 == "Range" } == ["X-Api-Key", "Range"], "\(names)")
        #expect(one.responseHeader(named: "content-range") == "bytes 2-9/10")
        #expect(two.connectionID == one.connectionID && two.requestInConnection == 2, "\(log)")
        #expect(byPath["/gen/10/four"]?.connectionID != byPath["/fault/close=1/gen/10/three"]?.connectionID, "\(log)")
        #expect(one.endTime >= one.time && !one.clientDisconnected)
    }

    /// `end_time` is taken before the response's last write, so the client cannot have seen the
    /// end of a response, and sent its next request, before it: on a kept-alive connection each
    /// request arrives at or after the previous response's `end_time`, whatever kind of response it
    /// was. A stall's `end_time` is its last byte, not the client's hang-up a second later.
    @Test func aResponseEndsBeforeTheClientCanSeeItsEnd() async throws {
        let fixture = try Fixture()
        defer { fixture.finish() }
        let server = fixture.server
        // With this Range: a 206 body, a text body, a chunked 206 (its terminator written last),
        // a 416 with only headers; then HEADs; each curl run keeps one connection.
        _ = try await fixture.curl(
            server.url("/gen/70000/a.bin"), server.url("/status/404"), server.url("/fault/chunked=1/gen/9000/c.bin"),
            server.url("/gen/0/empty.bin"), server.url("/gen/6000/b.bin"), options: ["-H", "Range: bytes=5000-"])
        _ = try await fixture.curl(server.url("/gen/10/h1.bin"), server.url("/status/503"), server.url("/gen/10/h2.bin"), options: ["-I"])
        let stall = try await fixture.curl(server.url("/fault/stall_at=500/gen/5000/s.bin"), options: ["--max-time", "1"])
        #expect(stall.exitStatus == 28, "\(stall)")

        let log = try await server.waitForRequests { $0.count == 9 }
        #expect(log.map(\.status) == [206, 404, 206, 416, 206, 200, 503, 200, 200], "\(log)")
        for (_, requests) in Dictionary(grouping: log, by: \.connectionID) {
            let ordered = requests.sorted { $0.requestInConnection < $1.requestInConnection }
            for (previous, next) in zip(ordered, ordered.dropFirst()) {
                #expect(previous.endTime >= previous.time && next.time >= previous.endTime, "\(previous)\n\(next)")
            }
        }
        #expect(Set(log.prefix(5).map(\.connectionID)).count == 1 && Set(log[5..<8].map(\.connectionID)).count == 1, "\(log)")
        let stalled = try #require(log.last)
        // Below the client's 1 s --max-time: stamped at the last byte, not at the hang-up.
        #expect(stalled.clientDisconnected && stalled.endTime - stalled.time < 0.9, "\(stalled)")
    }

    @Test func filesUnderTheRootAreServedAndNothingElse() async throws {
        let root = try TemporaryDirectory(prefix: "faultserver-root")
        defer { root.remove() }
        try root.write(file: "sub/file.txt", contents: "hello, file\n")
        try root.write(file: "../faultserver-outside.txt", contents: "secret\n")
        defer { try? FileManager.default.removeItem(atPath: root.path("../faultserver-outside.txt")) }
        let fixture = try Fixture(FaultServer.Options(root: root.path))
        defer { fixture.finish() }

        let file = try await fixture.curl(fixture.server.url("/sub/file.txt"))
        #expect(file.status == 200 && String(decoding: file.body, as: UTF8.self) == "hello, file\n", "\(file)")
        let ranged = try await fixture.curl(fixture.server.url("/sub/file.txt"), options: ["-r", "7-"])
        #expect(ranged.status == 206 && String(decoding: ranged.body, as: UTF8.self) == "file\n")
        #expect(try await fixture.curl(fixture.server.url("/sub/missing.txt")).status == 404)
        #expect(try await fixture.curl(fixture.server.url("/sub")).status == 404)
        let escape = try await fixture.curl(fixture.server.url("/../faultserver-outside.txt"), options: ["--path-as-is"])
        #expect(escape.status == 404, "\(escape)")
    }

    @Test(.enabled(if: FaultServer.isTLSAvailable, "needs the openssl command"))
    func httpsWithItsOwnCertificate() async throws {
        let fixture = try Fixture(FaultServer.Options(isTLSEnabled: true))
        defer { fixture.finish() }
        let caFile = try #require(fixture.server.caFile)
        let url = try fixture.server.url("/gen/3000/tls.bin", on: .tls)
        #expect(url.hasPrefix("https://127.0.0.1:"))

        let trusted = try await fixture.curl(url, options: ["--cacert", caFile])
        #expect(trusted.exitStatus == 0 && trusted.status == 200, "\(trusted)")
        #expect(trusted.body == Generated.bytes(size: 3_000, name: "tls.bin"))
        let untrusted = try await fixture.curl(url)
        #expect(untrusted.exitStatus == 60, "certificate not trusted: \(untrusted)")

        let log = try await fixture.server.waitForRequests { $0.contains { $0.scheme == "https" } }
        #expect(log.filter { $0.scheme == "https" }.map(\.port) == [fixture.server.tlsPort])
    }

    @Test func stopEndsTheServerAndSoDoesMaxSeconds() async throws {
        let server = try FaultServer()
        let pid = server.pid
        #expect(server.isRunning && kill(pid, 0) == 0)
        server.stop()
        #expect(!server.isRunning)
        #expect(kill(pid, 0) != 0, "reaped, so the pid is gone")
        server.stop()  // idempotent

        let shortLived = try FaultServer(FaultServer.Options(maxSeconds: 1))
        #expect(await Poll.until(timeout: .seconds(10)) { !shortLived.isRunning })
    }

    @Test func badRequestsAreAnsweredNotDropped() async throws {
        let fixture = try Fixture()
        defer { fixture.finish() }
        let unknown = try await fixture.curl(fixture.server.url("/fault/explode=1/gen/10/x"))
        #expect(unknown.status == 400 && String(decoding: unknown.body, as: UTF8.self).contains("unknown fault option 'explode'"))
        #expect(try await fixture.curl(fixture.server.url("/fault/n=two/gen/10/x")).status == 400)
        #expect(try await fixture.curl(fixture.server.url("/gen/ten/x")).status == 400)
        #expect(try await fixture.curl(fixture.server.url("/nothing-here")).status == 404)
        #expect(try await fixture.curl(fixture.server.url("/gen/10/x"), options: ["-X", "POST"]).status == 405)
    }
}
