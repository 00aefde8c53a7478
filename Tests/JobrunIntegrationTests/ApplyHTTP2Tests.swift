import Foundation
import JobrunTestSupport
import Testing

/// HTTP/2 over TLS against a private nginx (the fault server speaks HTTP/1.1 only): ALPN picks h2,
/// and the slices of one host share a connection per engine thread as multiplexed streams.
@Suite struct ApplyHTTP2Tests {
    static let nginx = ["/usr/sbin/nginx", "/usr/bin/nginx"].first { FileManager.default.isExecutableFile(atPath: $0) }
    static let openssl = ["/usr/bin/openssl", "/usr/local/bin/openssl"].first { FileManager.default.isExecutableFile(atPath: $0) }

    @Test(.enabled(if: nginx != nil && openssl != nil, "needs nginx (nginx-light) and openssl"))
    func slicesAreMultiplexedOverOneConnectionPerEngine() async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        let dir = fixture.directory
        let count = 24
        var slices = ""
        for i in 0..<count {
            let name = "s\(i).bin"
            _ = try dir.write(file: "site/pkg/\(name)", bytes: Generated.bytes(size: 8_192, name: name))
            slices += "      - {path: \(name), size: 8192, sha256: \(Generated.sha256Hex(size: 8_192, name: name))}\n"
        }
        let (server, port) = try await Self.startNginx(in: dir)
        defer { server.kill() }
        try fixture.write(
            manifest: """
                version: 1
                defaults: {concurrency: {total: 8, per_host: 8, streams: 24}}
                resources:
                  - id: pkg
                    base_url: https://127.0.0.1:\(port)/pkg/
                    slices:
                \(slices)
                """)
        let (result, report) = try await fixture.applyJSON(["--cacert", dir.path("cert.pem")])
        #expect(result.status == 0, "\(result)")
        let records = report.resources.flatMap(\.slices)
        #expect(records.count == count)
        #expect(records.allSatisfy { $0.status == "fetched" && $0.httpVersion == "2" }, "\(records.map { ($0.path, $0.status, $0.httpVersion ?? "-") })")
        try await fixture.expectVerified()

        let lines = (dir.contents(of: "nginx/access.log") ?? "").split(separator: "\n")
        #expect(lines.count == count, "\(lines)")
        #expect(lines.allSatisfy { $0.contains(" HTTP/2.0 ") }, "\(lines)")
        // Eight slices in flight over at most one connection per engine thread (two on a
        // machine with more than one core): streams were multiplexed, or libcurl would have
        // opened a connection per transfer.
        let connections = Set(lines.map { $0.split(separator: " ").first ?? "" })
        #expect((1...2).contains(connections.count), "expected one multiplexed connection per engine thread, saw \(connections.count)")
    }

    /// Over HTTP/2 a slot is a connection's worth of `streams` transfers: with `per_host: 1` and
    /// `total: 1`, the first answer says the origin multiplexes, and then up to `streams` slow
    /// responses are in flight at once over the one connection, never more. (nginx speaks
    /// HTTP/2 and passes each request on to the fault server, which answers after 250 ms and
    /// logs when each request came and ended.) Another resource allows 50 streams, so libcurl is
    /// allowed that many per connection and only the scheduler holds `slow` to its 3.
    @Test(.enabled(if: nginx != nil && openssl != nil, "needs nginx (nginx-light) and openssl"))
    func aMultiplexingOriginCarriesStreamsPerSlot() async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        let dir = fixture.directory
        let count = 13
        let slices = (0..<count).map { "      - {path: s\($0).bin, size: 8192}" }.joined(separator: "\n")
        let (server, port) = try await Self.startNginx(
            in: dir, extra: "location /slow/ { proxy_pass http://127.0.0.1:\(fixture.server.port)/fault/delay_ms=250/gen/8192/; }")
        defer { server.kill() }
        try fixture.write(
            manifest: """
                version: 1
                defaults: {concurrency: {total: 1, per_host: 1, streams: 3}}
                resources:
                  - id: slow
                    base_url: https://127.0.0.1:\(port)/slow/
                    slices:
                \(slices)
                  - id: other
                    base_url: http://127.0.0.1:\(fixture.server.port)/gen/16/
                    concurrency: {streams: 50}
                    slices:
                      - {path: o.bin, size: 16}
                """)
        let (result, report) = try await fixture.applyJSON(["--cacert", dir.path("cert.pem")])
        #expect(result.status == 0, "\(result)")
        #expect(report.resources.first { $0.id == "slow" }?.slices.allSatisfy { $0.status == "fetched" && $0.httpVersion == "2" } == true)

        let lines = (dir.contents(of: "nginx/access.log") ?? "").split(separator: "\n").map { $0.split(separator: " ") }
        #expect(lines.count == count && Set(lines.map { $0.first ?? "" }).count == 1, "one connection: \(lines)")
        let log = try await fixture.server.waitForRequests { $0.filter { $0.path.contains("/gen/8192/") }.count >= count }
        let inFlight = RequestOverlap.maximum(log.filter { $0.path.contains("/gen/8192/") })
        #expect(inFlight == 3, "at most `streams` responses at once over the one slot, and that many: \(inFlight)")
        // The report says the same: one connection of 3 streams, 3 at most in flight, its limit
        // 1 before the first answer and 3 after.
        let slow = try #require(report.origins.first { $0.origin == "https://127.0.0.1:\(port)" }, "\(report.origins.map(\.origin))")
        #expect(slow.requests == count && slow.connections == 1 && slow.streams == 3 && slow.inFlightPeak == 3 && !slow.adaptive)
        #expect(slow.limitPath.map(\.limit) == [1, 3], "\(slow.limitPath)")
    }

    /// A private nginx serving `dir/site` over TLS with HTTP/2 (a certificate for 127.0.0.1 in
    /// `dir/cert.pem`); its access log (`nginx/access.log`) says per request the connection, the
    /// protocol, the path, the status, the end (`$msec`) and the duration. `extra` goes in the server block.
    static func startNginx(in dir: TemporaryDirectory, extra: String = "") async throws -> (BackgroundProcess, Int) {
        let nginx = try #require(Self.nginx)
        let openssl = try #require(Self.openssl)
        let cert = try await BinaryRunner(executable: openssl).run([
            "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "2",
            "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
            "-keyout", dir.path("key.pem"), "-out", dir.path("cert.pem"),
        ])
        #expect(cert.status == 0, "\(cert)")
        let port = try HTTPGet.closedPort()
        _ = try dir.makeDirectory("nginx")
        _ = try dir.write(
            file: "nginx.conf",
            contents: """
                daemon off;
                master_process off;
                worker_processes 1;
                pid \(dir.path("nginx/nginx.pid"));
                error_log \(dir.path("nginx/error.log"));
                events { worker_connections 64; }
                http {
                    log_format streams '$connection $server_protocol $request_uri $status $msec $request_time';
                    access_log \(dir.path("nginx/access.log")) streams;
                    client_body_temp_path \(dir.path("nginx"));
                    proxy_temp_path \(dir.path("nginx"));
                    fastcgi_temp_path \(dir.path("nginx"));
                    uwsgi_temp_path \(dir.path("nginx"));
                    scgi_temp_path \(dir.path("nginx"));
                    server {
                        listen 127.0.0.1:\(port) ssl http2;
                        ssl_certificate \(dir.path("cert.pem"));
                        ssl_certificate_key \(dir.path("key.pem"));
                        root \(dir.path("site"));
                        \(extra)
                    }
                }
                """)
        let server = try BinaryRunner(executable: nginx).start(["-p", dir.path("nginx"), "-c", dir.path("nginx.conf")])
        let listening = await Poll.until(timeout: .seconds(20), interval: .milliseconds(20)) {
            HTTPGet.acceptsConnections(port: port)
        }
        guard listening else {
            server.kill()
            throw NginxError(message: "nginx did not start: \(server.stderr) \(dir.contents(of: "nginx/error.log") ?? "")")
        }
        return (server, port)
    }

    struct NginxError: Error, CustomStringConvertible {
        let message: String
        var description: String { message }
    }
}
