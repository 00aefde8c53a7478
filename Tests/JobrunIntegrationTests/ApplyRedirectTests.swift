import Foundation
import JobrunTestSupport
import Testing

/// Redirects (at most 10, http and https only, never https → http, secrets stay with their
/// origin) and TLS (verification always on; `--cacert` for a private CA).
@Suite struct ApplyRedirectTests {
    static func manifest(headers: String = "", slices: String) -> String {
        """
        version: 1
        defaults:
          retries: {attempts: 2, backoff: {initial: 50ms, max: 200ms}}
        \(headers)
        resources:
          - id: r
            slices:
        \(slices)

        """
    }

    static func redirect(to url: String) -> String {
        "/redirect-to?url=" + (url.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? url)
    }

    @Test func aChainIsFollowedAndALoopIsNot() async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        try fixture.write(
            manifest: Self.manifest(
                slices: """
                          - path: chain.bin
                            url: \(fixture.url("/redirect/3/gen/1000/chain.bin"))
                            size: 1000
                            sha256: \(Generated.sha256Hex(size: 1_000, name: "chain.bin"))
                          - {path: loop.bin, url: "\(fixture.url("/redirect-loop/gen/10/loop.bin"))"}
                    """))
        let (result, report) = try await fixture.applyJSON()
        #expect(result.status == 1, "\(result)")
        #expect(try report.slice("r", "chain.bin").status == "fetched")
        #expect(try fixture.sha256(ofFile: "mirror/r/chain.bin") == Generated.sha256Hex(size: 1_000, name: "chain.bin"))
        let chain = try await fixture.server.waitForRequests { $0.contains { $0.path == "/gen/1000/chain.bin" } }
            .filter { $0.path.hasSuffix("chain.bin") }
        #expect(chain.map(\.status) == [302, 302, 302, 200], "\(chain)")

        let loop = try report.slice("r", "loop.bin")
        #expect(loop.status == "failed" && loop.error?.type == "Redirect" && loop.attempts == 1, "\(loop)")
        let hops = try fixture.server.requests(path: "/redirect-loop/gen/10/loop.bin")
        #expect(hops.count >= 2 && hops.count <= 11, "\(hops.count) requests for a redirect loop")
        #expect(!fixture.directory.exists("mirror/r/loop.bin"))
    }

    /// libcurl itself would forward `X-Api-Key` to another port; jobrun must not, and must not
    /// forward Authorization either. A same-origin redirect keeps both.
    @Test func secretHeadersStayWithTheirOrigin() async throws {
        let fixture = try ApplyFixture(secondPort: true)
        defer { fixture.finish() }
        let token = "tok-\(UUID().uuidString)"
        let elsewhere = try fixture.server.url("/gen/100/moved.bin", on: .second)
        let away = Self.redirect(to: elsewhere)
        try fixture.write(
            manifest: Self.manifest(
                headers: "  headers: {Authorization: \"Bearer ${JOBRUN_TEST_TOKEN}\", X-Api-Key: k, User-Agent: redirect-test/1}",
                slices: """
                          - {path: away.bin, url: "\(fixture.url(away))", size: 100}
                          - {path: home.bin, url: "\(fixture.url("/redirect/1/gen/100/home.bin"))", size: 100}
                    """))
        let result = try await fixture.apply(environment: ["JOBRUN_TEST_TOKEN": token])
        #expect(result.status == 0, "\(result)")
        let log = try await fixture.server.waitForRequests { $0.count == 4 }
        let primary = log.filter { $0.port == fixture.server.port }
        let second = log.filter { $0.port == fixture.server.secondPort }
        #expect(primary.count == 3 && second.count == 1, "\(log)")
        for request in primary {
            #expect(request.header(named: "Authorization") == "Bearer \(token)" && request.header(named: "X-Api-Key") == "k", "\(request)")
        }
        for request in second {
            #expect(request.header(named: "Authorization") == nil && request.header(named: "X-Api-Key") == nil, "secret sent to another port: \(request)")
            #expect(request.header(named: "User-Agent") == "redirect-test/1", "\(request)")
        }
    }

    @Test func redirectsToOtherSchemesAreRefused() async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        let ftp = Self.redirect(to: "ftp://127.0.0.1:\(fixture.server.port)/gen/10/x")
        let file = Self.redirect(to: "file:///etc/passwd")
        try fixture.write(
            manifest: Self.manifest(
                slices: """
                          - {path: ftp.bin, url: "\(fixture.url(ftp))"}
                          - {path: file.bin, url: "\(fixture.url(file))"}
                    """))
        let (result, report) = try await fixture.applyJSON()
        #expect(result.status == 1, "\(result)")
        for name in ["ftp.bin", "file.bin"] {
            let record = try report.slice("r", name)
            #expect(record.status == "failed" && record.error?.type == "Redirect" && record.attempts == 1, "\(record)")
            #expect(!fixture.directory.exists("mirror/r/\(name)"))
        }
        let log = try await fixture.server.waitForRequests { $0.count == 2 }
        #expect(log.allSatisfy { $0.pathWithoutQuery == "/redirect-to" }, "\(log)")
    }

    /// Proxies come from the standard environment variables (and `no_proxy` is honoured). The
    /// second port stands in for a proxy: it logs the absolute-form request it was sent.
    @Test func theProxyComesFromTheEnvironment() async throws {
        let fixture = try ApplyFixture(secondPort: true)
        defer { fixture.finish() }
        let proxy = try #require(fixture.server.secondBaseURL)
        let target = fixture.url("/gen/100/proxied.bin")
        try fixture.write(
            manifest: Self.manifest(
                slices: """
                          - {path: proxied.bin, url: "\(target)"}
                    """))
        _ = try await fixture.apply(environment: ["http_proxy": proxy])
        let proxied = try await fixture.server.waitForRequests { !$0.isEmpty }
        #expect(proxied.map(\.port) == [fixture.server.secondPort] && proxied.first?.path == target, "\(proxied)")

        let direct = try await fixture.apply(environment: ["http_proxy": proxy, "no_proxy": "127.0.0.1"])
        #expect(direct.status == 0, "\(direct)")
        let log = try await fixture.server.waitForRequests { $0.count == 2 }
        #expect(log.last?.port == fixture.server.port && log.last?.path == "/gen/100/proxied.bin", "\(log)")
    }

    @Test(.enabled(if: FaultServer.isTLSAvailable, "needs the openssl command"))
    func tlsNeedsTheCAAndNeverDowngradesToHTTP() async throws {
        let fixture = try ApplyFixture(tls: true)
        defer { fixture.finish() }
        let caFile = try #require(fixture.server.caFile)
        let secure = try fixture.server.url("/gen/1000/tls.bin", on: .tls)
        let downgrade = try fixture.server.url(Self.redirect(to: fixture.url("/gen/100/plain.bin")), on: .tls)
        try fixture.write(
            manifest: Self.manifest(
                slices: """
                          - path: tls.bin
                            url: \(secure)
                            size: 1000
                            sha256: \(Generated.sha256Hex(size: 1_000, name: "tls.bin"))
                          - {path: down.bin, url: "\(downgrade)"}
                    """))

        // Not trusted: a TLS error, not retried, and no HTTP request ever made.
        let (untrusted, failed) = try await fixture.applyJSON(["--junit", "junit.xml"])
        #expect(untrusted.status == 1, "\(untrusted)")
        let record = try failed.slice("r", "tls.bin")
        #expect(record.status == "failed" && record.error?.type == "TLS" && record.attempts == 1, "\(record)")
        #expect((fixture.directory.contents(of: "junit.xml") ?? "").contains(#"<error type="TLS""#))
        #expect(try fixture.server.requests().isEmpty)

        let (trusted, report) = try await fixture.applyJSON(["--cacert", caFile])
        #expect(trusted.status == 1, "\(trusted)")
        #expect(try report.slice("r", "tls.bin").status == "fetched")
        #expect(try fixture.sha256(ofFile: "mirror/r/tls.bin") == Generated.sha256Hex(size: 1_000, name: "tls.bin"))
        let down = try report.slice("r", "down.bin")
        #expect(down.status == "failed" && down.error?.type == "Redirect", "\(down)")
        #expect(down.error?.message.contains("https to http") == true, "\(down)")
        let log = try await fixture.server.waitForRequests { $0.count == 2 }
        #expect(log.allSatisfy { $0.scheme == "https" }, "followed to http: \(log)")
    }

    /// A private CA named in the manifest (`tls: {ca_file}`, relative to the manifest) is trusted.
    @Test(.enabled(if: FaultServer.isTLSAvailable, "needs the openssl command"))
    func manifestCAFileIsTrusted() async throws {
        let fixture = try ApplyFixture(tls: true)
        defer { fixture.finish() }
        let caFile = try #require(fixture.server.caFile)
        _ = try fixture.directory.write(
            file: "certs/private-ca.pem", contents: String(decoding: try Data(contentsOf: URL(fileURLWithPath: caFile)), as: UTF8.self))
        let secure = try fixture.server.url("/gen/1000/tls-manifest.bin", on: .tls)
        try fixture.write(
            manifest: Self.manifest(
                headers: "  tls: {ca_file: certs/private-ca.pem}",
                slices: """
                          - path: tls.bin
                            url: \(secure)
                            size: 1000
                            sha256: \(Generated.sha256Hex(size: 1_000, name: "tls-manifest.bin"))
                    """))
        let (result, report) = try await fixture.applyJSON([])
        #expect(result.status == 0, "\(result)")
        #expect(try report.slice("r", "tls.bin").status == "fetched")
    }
}
