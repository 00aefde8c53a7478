import Foundation
import JobrunTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What jobrun refuses to store or wait for: more bytes than declared (or than `max_size`),
/// compressed bodies, silent servers, closed ports, a full disk, and folders that are symbolic
/// links. Whatever the failure, no final file appears.
@Suite struct ApplyLimitTests {
    static func manifest(_ settings: String = "", slices: String) -> String {
        """
        version: 1
        defaults:
          retries: {attempts: 2, backoff: {initial: 50ms, max: 200ms}}
        \(settings)
        resources:
          - id: r
            slices:
        \(slices)

        """
    }

    @Test func moreBytesThanDeclaredAreRefused() async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        let larger = "/gen/4096/larger.bin"
        let lying = FaultServer.path("/gen/1000/lying.bin", faults: "length=5000")
        let unannounced = FaultServer.path("/gen/4096/chunked.bin", faults: "chunked=1")
        try fixture.write(
            manifest: Self.manifest(
                slices: """
                          - {path: larger.bin, url: "\(fixture.url(larger))", size: 1000}
                          - {path: lying.bin, url: "\(fixture.url(lying))", size: 1000}
                          - {path: chunked.bin, url: "\(fixture.url(unannounced))", size: 1000}
                    """))
        let (result, report) = try await fixture.applyJSON()
        #expect(result.status == 1, "\(result)")
        // Announced by Content-Length: refused before a byte is stored; not worth a retry.
        for name in ["larger.bin", "lying.bin"] {
            let record = try report.slice("r", name)
            #expect(record.status == "failed" && record.error?.type == "SizeMismatch" && record.attempts == 1, "\(record)")
        }
        // No Content-Length: the cap in the write callback stops it.
        let chunked = try report.slice("r", "chunked.bin")
        #expect(chunked.status == "failed" && chunked.error?.type == "TooLarge", "\(chunked)")
        #expect(chunked.bytesTransferred <= 1000, "\(chunked)")
        for name in ["larger.bin", "lying.bin", "chunked.bin"] {
            #expect(!fixture.directory.exists("mirror/r/\(name)"), "\(name) was stored")
        }
        #expect(try fixture.server.requests(path: larger).count == 1)
    }

    @Test func withoutADeclaredSizeMaxSizeIsTheCap() async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        let announced = "/gen/4096/big.bin"
        let unannounced = FaultServer.path("/gen/4096/big.bin", faults: "chunked=1")
        try fixture.write(
            manifest: Self.manifest(
                "  max_size: 1KiB",
                slices: """
                          - {path: big.bin, url: "\(fixture.url(announced))"}
                          - {path: stream.bin, url: "\(fixture.url(unannounced))"}
                          - {path: small.bin, url: "\(fixture.url("/gen/1024/small.bin"))"}
                    """))
        let (result, report) = try await fixture.applyJSON()
        #expect(result.status == 1, "\(result)")
        for name in ["big.bin", "stream.bin"] {
            let record = try report.slice("r", name)
            #expect(record.status == "failed" && record.error?.type == "TooLarge" && record.attempts == 1, "\(record)")
            #expect(!fixture.directory.exists("mirror/r/\(name)"))
        }
        #expect(try report.slice("r", "small.bin").status == "fetched")
        #expect(fixture.size(of: "mirror/r/small.bin") == 1024)
    }

    @Test func aCompressedBodyIsRefusedAndNeverAskedFor() async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        let gzip = FaultServer.path("/gen/1000/packed.bin", faults: "gzip=1")
        try fixture.write(
            manifest: Self.manifest(
                slices: """
                          - {path: packed.bin, url: "\(fixture.url(gzip))"}
                          - {path: plain.bin, url: "\(fixture.url("/gen/1000/plain.bin"))", size: 1000}
                    """))
        let (result, report) = try await fixture.applyJSON()
        #expect(result.status == 1, "\(result)")
        let record = try report.slice("r", "packed.bin")
        #expect(record.status == "failed" && record.error?.type == "ContentEncoding" && record.attempts == 1, "\(record)")
        #expect(!fixture.directory.exists("mirror/r/packed.bin"))
        let log = try await fixture.server.waitForRequests { $0.count == 2 }
        #expect(log.allSatisfy { $0.header(named: "Accept-Encoding") == nil && $0.header(named: "TE") == nil }, "\(log)")
    }

    /// A transfer coding other than chunked is refused by its head, never decoded into the
    /// file: 4 MiB of zeros are a few KiB of gzip on the wire, and an unsized slice has no size
    /// to stop a decoded body at.
    @Test(arguments: ["gzip,chunked", "gzip"])
    func aTransferCodingOtherThanChunkedIsRefused(codings: String) async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        let path = FaultServer.path("/zeros/4194304/coded.bin", faults: "transfer_encoding=\(codings)")
        try fixture.write(
            manifest: Self.manifest(
                slices: """
                          - {path: coded.bin, url: "\(fixture.url(path))"}
                    """))
        let (result, report) = try await fixture.applyJSON()
        #expect(result.status == 1, "\(result)")
        let record = try report.slice("r", "coded.bin")
        let sent = codings.replacingOccurrences(of: ",", with: ", ")
        #expect(record.status == "failed" && record.error?.type == "TransferEncoding" && record.attempts == 1, "\(record)")
        #expect(record.error?.message.contains("Transfer-Encoding: \(sent)") == true, "\(record)")
        #expect(record.bytesTransferred == 0, "\(record)")
        #expect(
            DirectoryTree.entries(under: fixture.directory.path("mirror")).allSatisfy { !$0.contains("coded.bin") },
            "\(DirectoryTree.entries(under: fixture.directory.path("mirror")))")
        let log = try await fixture.requests(path, count: 1)
        #expect(log[0].responseHeader(named: "Transfer-Encoding") == sent && log[0].header(named: "TE") == nil, "\(log)")
    }

    /// `timeouts.request` is "no byte for that long": a stalled body times out, is retried, fails.
    @Test func aStalledBodyTimesOut() async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        let path = FaultServer.path("/gen/1000/stall.bin", faults: "stall_at=100")
        try await expectTimeouts(fixture, settings: "  timeouts: {request: 1s}", name: "stall.bin", url: fixture.url(path))
        let log = try await fixture.requests(path, count: 2)
        #expect(log.allSatisfy { $0.clientDisconnected && $0.bytesSent == 100 }, "\(log)")
    }

    /// Applies one slice `name` at `url` that must fail both attempts with a timeout: exit 1,
    /// `Timeout` in the JSON and the JUnit report, no final file. Returns its JSON record.
    @discardableResult
    func expectTimeouts(
        _ fixture: ApplyFixture, settings: String, name: String, url: String, extra: [String] = [],
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> ApplyJSON.Slice {
        try fixture.write(
            manifest: Self.manifest(
                settings,
                slices: """
                          - {path: \(name), url: "\(url)", size: 1000}
                    """))
        let (result, report) = try await fixture.applyJSON(["--junit", "junit.xml"] + extra)
        #expect(result.status == 1, "\(result)", sourceLocation: sourceLocation)
        let record = try report.slice("r", name, sourceLocation: sourceLocation)
        #expect(record.status == "failed" && record.error?.type == "Timeout" && record.attempts == 2, "\(record)", sourceLocation: sourceLocation)
        #expect((fixture.directory.contents(of: "junit.xml") ?? "").contains(#"<error type="Timeout""#), sourceLocation: sourceLocation)
        #expect(!fixture.directory.exists("mirror/r/\(name)"), sourceLocation: sourceLocation)
        return record
    }

    #if os(Linux)
    /// `timeouts.connect` bounds the TCP handshake. The "server" is a loopback listener whose
    /// accept queue is full (backlog 0, never accepting, filled by connections of our own): the
    /// kernel drops further SYNs, so a connect hangs as it would towards a black-holed address.
    @Test func aConnectThatHangsTimesOut() async throws {
        let blackhole = try FullListener()
        defer { blackhole.release() }
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        let record = try await expectTimeouts(
            fixture, settings: "  timeouts: {connect: 1s, request: 1m, resource: 1m}", name: "hang.bin",
            url: "http://127.0.0.1:\(blackhole.port)/hang.bin",
            // The only origin unreachable is the network gone (ApplyOfflineTests); without the
            // pause, a connect that times out is an attempt like any other.
            extra: ["--offline-wait", "0"])
        // Two attempts of about a second each (and a short backoff): not the minute of the others.
        #expect(record.seconds >= 1.9 && record.seconds < 30, "\(record)")
    }
    #endif

    /// `timeouts.resource` bounds the whole life of a slice, retries included, even when bytes
    /// stopped arriving less than `timeouts.request` ago.
    @Test func theResourceTimeoutBoundsASlice() async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        let path = FaultServer.path("/gen/1000/slow.bin", faults: "stall_at=100")
        try fixture.write(
            manifest: Self.manifest(
                "  timeouts: {request: 1m, resource: 1500ms}",
                slices: """
                          - {path: slow.bin, url: "\(fixture.url(path))", size: 1000}
                    """))
        let (result, report) = try await fixture.applyJSON()
        #expect(result.status == 1, "\(result)")
        let record = try report.slice("r", "slow.bin")
        #expect(record.status == "failed" && record.error?.type == "Timeout", "\(record)")
        #expect(record.seconds < 30, "\(record)")
        let log = try await fixture.requests(path, count: 1)
        #expect(log.count == 1 && log[0].clientDisconnected, "\(log)")
    }

    @Test func aClosedPortIsAConnectError() async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        let (refusing, port) = try HTTPGet.refusingPort()
        defer { close(refusing) }
        try fixture.write(
            manifest: Self.manifest(
                slices: """
                          - {path: closed.bin, url: "http://127.0.0.1:\(port)/gen/100/closed.bin"}
                    """))
        // Its only origin refusing, the run would take the network to be gone and pause
        // (ApplyOfflineTests): without the pause, a refusal is an attempt like any other.
        let (result, report) = try await fixture.applyJSON(["--junit", "junit.xml", "--offline-wait", "0"])
        #expect(result.status == 1, "\(result)")
        let record = try report.slice("r", "closed.bin")
        #expect(record.status == "failed" && record.error?.type == "Connect" && record.attempts == 2, "\(record)")
        #expect((fixture.directory.contents(of: "junit.xml") ?? "").contains(#"<error type="Connect""#))
    }

    /// A 1 MiB tmpfs as the output root (needs root and a kernel that lets us mount).
    @Test(.enabled(if: DiskFull.canMount, "cannot mount a tmpfs here (needs root)"))
    func aFullDiskFailsTheSliceAndKeepsItsPartial() async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        let mirror = try fixture.directory.makeDirectory("mirror")
        try #require(DiskFull.mount(at: mirror), "mount -t tmpfs failed")
        defer { DiskFull.unmount(mirror) }
        let size = 2 << 20
        try fixture.write(
            manifest: Self.manifest(
                slices: """
                          - {path: big.bin, url: "\(fixture.url("/gen/\(size)/big.bin"))", size: \(size)}
                    """))
        // The space check would refuse this before any request: the disk must fill up mid-run.
        let (result, report) = try await fixture.applyJSON(["--junit", "junit.xml", "--no-space-check"])
        #expect(result.status == 1, "\(result)")
        let record = try report.slice("r", "big.bin")
        #expect(record.status == "failed" && record.error?.type == "DiskFull" && record.attempts == 1, "\(record)")
        #expect(record.error?.message.contains("No space left on device") == true, "\(record)")
        #expect((fixture.directory.contents(of: "junit.xml") ?? "").contains(#"<error type="DiskFull""#))
        #expect(!fixture.directory.exists("mirror/r/big.bin"))
        #expect((fixture.size(of: "mirror/r/.big.bin.jobrun-part") ?? 0) > 0, "the partial file was not kept")
    }

    /// After ENOSPC twice nothing new starts: not the rest of the queue, and not the slices of a
    /// resource whose dependency completes afterwards.
    @Test(.enabled(if: DiskFull.canMount, "cannot mount a tmpfs here (needs root)"))
    func aDiskFullTwiceStopsSchedulingNewSlices() async throws {
        let fixture = try ApplyFixture(secondPort: true)
        defer { fixture.finish() }
        let mirror = try fixture.directory.makeDirectory("mirror")
        try #require(DiskFull.mount(at: mirror), "mount -t tmpfs failed")
        defer { DiskFull.unmount(mirror) }
        let other = try #require(fixture.server.secondBaseURL)
        // `full` fills the disk on the second port one slice at a time; `first` (an empty file,
        // held 2 s by the server) completes only after that, and `then` depends on it.
        try fixture.write(
            manifest: """
                version: 1
                defaults:
                  concurrency: {per_host: 1}
                  retries: {attempts: 3, backoff: {initial: 50ms, max: 100ms}}
                resources:
                  - id: full
                    slices:
                      - {path: big.bin, url: "\(other)/gen/\(2 << 20)/big.bin", size: \(2 << 20)}
                      - {path: s1.bin, url: "\(other)/gen/1000/s1.bin", size: 1000}
                      - {path: s2.bin, url: "\(other)/gen/1000/s2.bin", size: 1000}
                      - {path: s3.bin, url: "\(other)/gen/1000/s3.bin", size: 1000}
                  - id: first
                    slices:
                      - {path: empty.bin, url: "\(fixture.url("/fault/delay_ms=2000/gen/0/empty.bin"))", size: 0}
                  - id: then
                    depends_on: [first]
                    slices:
                      - {path: t1.bin, url: "\(fixture.url("/gen/1000/t1.bin"))", size: 1000}
                      - {path: t2.bin, url: "\(fixture.url("/gen/1000/t2.bin"))", size: 1000}

                """)
        let (result, report) = try await fixture.applyJSON(["--no-space-check"])
        #expect(result.status == 1, "\(result)")
        #expect(try report.slice("first", "empty.bin").status == "fetched")
        for (id, path) in [("full", "big.bin"), ("full", "s1.bin"), ("full", "s2.bin"), ("full", "s3.bin"), ("then", "t1.bin"), ("then", "t2.bin")] {
            let record = try report.slice(id, path)
            #expect(record.status == "failed" && record.error?.type == "DiskFull", "\(record)")
        }
        let log = try await fixture.server.settledRequests()
        let requested = Set(log.map(\.path))
        for path in ["/gen/1000/s2.bin", "/gen/1000/s3.bin", "/gen/1000/t1.bin", "/gen/1000/t2.bin"] {
            #expect(!requested.contains(path), "\(path) was requested after the disk was full twice")
        }
    }

    /// A symbolic link planted where an output folder belongs: those slices fail, nothing is
    /// written through it, the rest of the mirror is fetched.
    @Test func aSymbolicLinkInTheOutputIsNeverWrittenThrough() async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        let elsewhere = try fixture.directory.makeDirectory("elsewhere")
        try fixture.directory.makeDirectory("mirror/inner")
        try FileManager.default.createSymbolicLink(atPath: fixture.directory.path("mirror/res"), withDestinationPath: elsewhere)
        try FileManager.default.createSymbolicLink(atPath: fixture.directory.path("mirror/inner/sub"), withDestinationPath: elsewhere)
        try fixture.write(
            manifest: """
                version: 1
                resources:
                  - id: res
                    slices:
                      - {path: a.bin, url: "\(fixture.url("/gen/100/a.bin"))", size: 100}
                      - {path: deep/b.bin, url: "\(fixture.url("/gen/100/b.bin"))", size: 100}
                  - id: inner
                    slices:
                      - {path: sub/c.bin, url: "\(fixture.url("/gen/100/c.bin"))", size: 100}
                      - {path: d.bin, url: "\(fixture.url("/gen/100/d.bin"))", size: 100}

                """)
        let (result, report) = try await fixture.applyJSON()
        #expect(result.status == 1, "\(result)")
        for (id, path) in [("res", "a.bin"), ("res", "deep/b.bin"), ("inner", "sub/c.bin")] {
            let record = try report.slice(id, path)
            #expect(record.status == "failed" && record.error?.type == "UnsafePath", "\(record)")
        }
        #expect(try report.slice("inner", "d.bin").status == "fetched")
        #expect(DirectoryTree.entries(under: elsewhere).isEmpty, "written through a link: \(DirectoryTree.entries(under: elsewhere))")
        // The server logs a request once its response has ended, which may be after jobrun exits.
        let log = try await fixture.server.waitForRequests { !$0.isEmpty }
        #expect(log.map(\.path) == ["/gen/100/d.bin"], "\(log)")
    }

    /// Links where the file or its partial file belongs are replaced, never followed.
    @Test func aSymbolicLinkInAFilesPlaceIsReplacedNotFollowed() async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        let target = try fixture.directory.write(file: "elsewhere/target.txt", contents: "keep me\n")
        let partTarget = try fixture.directory.write(file: "elsewhere/part.txt", contents: "keep me too\n")
        try fixture.directory.makeDirectory("mirror/r")
        try FileManager.default.createSymbolicLink(atPath: fixture.directory.path("mirror/r/a.bin"), withDestinationPath: target)
        try FileManager.default.createSymbolicLink(atPath: fixture.directory.path("mirror/r/.b.bin.jobrun-part"), withDestinationPath: partTarget)
        try fixture.write(
            manifest: """
                version: 1
                resources:
                  - id: r
                    slices:
                      - {path: a.bin, url: "\(fixture.url("/gen/100/a.bin"))", size: 100, sha256: \(Generated.sha256Hex(size: 100, name: "a.bin"))}
                      - {path: b.bin, url: "\(fixture.url("/gen/100/b.bin"))", size: 100, sha256: \(Generated.sha256Hex(size: 100, name: "b.bin"))}

                """)
        let result = try await fixture.apply()
        #expect(result.status == 0, "\(result)")
        #expect(fixture.directory.contents(of: "elsewhere/target.txt") == "keep me\n")
        #expect(fixture.directory.contents(of: "elsewhere/part.txt") == "keep me too\n")
        let entries = DirectoryTree.entries(under: fixture.directory.path("mirror/r"))
        #expect(entries == ["a.bin", "b.bin"], "\(entries)")
        try await fixture.expectVerified()
    }
}

#if os(Linux)
/// A TCP listener on 127.0.0.1 that never accepts, with its accept queue (backlog 0) filled by
/// connections of its own: Linux drops every further SYN, so connecting to it hangs.
final class FullListener {
    let port: Int
    private var descriptors: [Int32] = []

    init() throws {
        let (listener, port) = try HTTPGet.boundSocket()
        self.port = port
        descriptors.append(listener)
        guard listen(listener, 0) == 0 else { throw failure("listen") }
        // More connections than the queue holds; on loopback the handshakes that fit complete
        // inside `connect`, the rest stay in SYN-SENT.
        for _ in 0..<4 {
            let client = socket(AF_INET, HTTPGet.streamSocket | Int32(SOCK_NONBLOCK.rawValue), 0)
            guard client >= 0 else { throw failure("socket") }
            descriptors.append(client)
            _ = HTTPGet.connectLoopback(client, port: port)
        }
    }

    /// Closes what is open so far and describes `errno`.
    private func failure(_ call: String) -> HTTPGet.Failure {
        let error = errno
        release()
        return HTTPGet.Failure(description: "\(call): \(String(cString: strerror(error)))")
    }

    func release() {
        for fd in descriptors { close(fd) }
        descriptors = []
    }
}
#endif
