import Foundation
import JobrunTestSupport
import Testing

/// What `apply` says and sends: failures in the user's terms, every declared digest's actual
/// value on a mismatch, and a User-Agent of its own.
@Suite struct ApplyMessageTests {
    static func manifest(_ slices: String, headers: String = "") -> String {
        """
        version: 1
        defaults:
          retries: {attempts: 1}
        resources:
          - id: r
        \(headers)
            slices:
        \(slices)

        """
    }

    @Test func aDefaultUserAgentUnlessTheManifestSetsOne() async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        let plain = "/gen/10/plain.bin"
        let own = "/gen/10/own.bin"
        try fixture.write(
            manifest: Self.manifest(
                """
                      - {path: plain.bin, url: "\(fixture.url(plain))"}
                      - {path: own.bin, url: "\(fixture.url(own))", headers: {user-agent: "mirror-bot/2"}}
                """))
        let version = try await fixture.run(["version"]).stdout.split(separator: "\n").first.map(String.init) ?? ""
        let result = try await fixture.apply()
        #expect(result.status == 0, "\(result)")
        let sent = try #require(try await fixture.requests(plain, count: 1).first?.headers.filter { $0.name.lowercased() == "user-agent" })
        let number = version.split(separator: " ").last.map(String.init) ?? "?"
        let expected = ["jobrun/" + number]
        #expect(sent.map(\.value) == expected, "\(sent); version: \(version)")
        let replaced = try #require(try await fixture.requests(own, count: 1).first?.headers.filter { $0.name.lowercased() == "user-agent" })
        #expect(replaced.map(\.value) == ["mirror-bot/2"], "one User-Agent, the manifest's: \(replaced)")
    }

    /// libcurl says "Out of memory" for a header line over its limit; jobrun says what it was.
    @Test func oversizedResponseHeadersAreNamedAsSuch() async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        let path = "/fault/header_bytes=200000/gen/10/big-head.bin"
        try fixture.write(manifest: Self.manifest("      - {path: big-head.bin, url: \"\(fixture.url(path))\"}"))
        let (result, report) = try await fixture.applyJSON()
        #expect(result.status == 1, "\(result)")
        let record = try report.slice("r", "big-head.bin")
        #expect(record.error?.message.hasPrefix("response headers larger than libcurl accepts (100 KiB per header line)") == true, "\(record)")
        #expect(!(record.error?.message.lowercased().contains("out of memory") ?? true), "\(record)")
    }

    /// A mismatch shows the body's value for every declared digest, in text, JSON and JUnit, so
    /// each can be compared with `sha256sum` output: the differing ones and the matching one.
    @Test func aDigestMismatchReportsEveryDeclaredDigest() async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        let content = "/gen/3000/wrong.bin"
        let path = FaultServer.path(content, faults: "wrong_bytes=1")
        let good = (
            sha256: try fixture.digest(content), md5: try fixture.digest(content, algorithm: "md5"), sha1: try fixture.digest(content, algorithm: "sha1")
        )
        let actual = (sha256: try fixture.digest(content, corrupted: true), md5: try fixture.digest(content, algorithm: "md5", corrupted: true))
        // sha1 declared as the served (corrupted) bytes' own: it matches; the others do not.
        let served = try fixture.digest(content, algorithm: "sha1", corrupted: true)
        try fixture.write(
            manifest: Self.manifest("      - {path: wrong.bin, url: \"\(fixture.url(path))\", sha256: \(good.sha256), md5: \(good.md5), sha1: \(served)}"))
        #expect(good.sha1 != served)
        let text = try await fixture.apply(["--junit", "junit.xml"])
        #expect(text.status == 1, "\(text)")
        #expect(text.stdout.contains("sha256 differs: expected \(good.sha256), actual \(actual.sha256)"), "\(text)")
        #expect(text.stdout.contains("md5 differs: expected \(good.md5), actual \(actual.md5)"), "\(text)")
        #expect(text.stdout.contains("sha1 matches"), "\(text)")
        let xml = try #require(fixture.directory.contents(of: "junit.xml"))
        for line in ["actual sha256: \(actual.sha256)", "actual md5: \(actual.md5)", "actual sha1: \(served)", "expected md5: \(good.md5)"] {
            #expect(xml.contains(line), "\(line) not in \(xml)")
        }
        let (_, report) = try await fixture.applyJSON()
        let record = try report.slice("r", "wrong.bin")
        #expect(record.error?.type == "ChecksumMismatch", "\(record)")
        #expect(record.error?.actualDigests == ["sha256": actual.sha256, "md5": actual.md5, "sha1": served], "\(record)")
    }

    /// `verify` shows the file's value for every declared digest too: text, JSON and JUnit.
    @Test func verifyReportsEveryDeclaredDigestOfAMismatch() async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        // "abc" declared; "abd" on disk.
        let sha256 = (
            want: "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad", got: "a52d159f262b2c6ddb724a61840befc36eb30c88877a4030b65cbe86298449c9"
        )
        let md5 = (want: "900150983cd24fb0d6963f7d28e17f72", got: "4911e516e5aa21d327512e0c8b197616")
        try fixture.write(manifest: Self.manifest("      - {path: x.txt, url: \"\(fixture.url("/gen/3/x"))\", sha256: \(sha256.want), md5: \(md5.want)}"))
        _ = try fixture.directory.write(file: "mirror/r/x.txt", contents: "abd")
        let text = try await fixture.run(["verify", "site.yaml", "--junit", "verify.xml"])
        #expect(text.status == 1, "\(text)")
        #expect(
            text.stdout.contains(
                "* mirror/r/x.txt: md5 differs: expected \(md5.want), actual \(md5.got); sha256 differs: expected \(sha256.want), actual \(sha256.got)"),
            "\(text)")
        let xml = try #require(fixture.directory.contents(of: "verify.xml"))
        #expect(xml.contains("actual md5: \(md5.got)") && xml.contains("actual sha256: \(sha256.got)"), "\(xml)")
        let json = try await fixture.run(["verify", "site.yaml", "--json"])
        #expect(json.stdout.contains("\"md5\": \"\(md5.got)\"") && json.stdout.contains("\"sha256\": \"\(sha256.got)\""), "\(json)")
    }

    /// A verified slice followed by one that fails its digest: the resource is done when the
    /// failure is known, not when the one-second commit timer fires, and the good slice's time
    /// is its own (the batched commit that follows is not).
    @Test func aMismatchDoesNotHoldItsResourceUntilTheCommitTimer() async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        let good = "/gen/100/good.bin"
        let bad = FaultServer.path("/gen/100/bad.bin", faults: "delay_ms=100", "wrong_bytes=1")
        try fixture.write(
            manifest: Self.manifest(
                """
                      - {path: good.bin, url: "\(fixture.url(good))", sha256: \(try fixture.digest(good))}
                      - {path: bad.bin, url: "\(fixture.url(bad))", sha256: \(try fixture.digest("/gen/100/bad.bin"))}
                """))
        let (result, report) = try await fixture.applyJSON()
        #expect(result.status == 1, "\(result)")
        #expect(try report.slice("r", "bad.bin").error?.type == "ChecksumMismatch")
        // The commit timer is 1 s; the run needs a tenth of that.
        #expect(report.summary.elapsedSeconds < 0.9, "\(report.summary)")
        let fast = try report.slice("r", "good.bin")
        #expect(fast.seconds < 0.9, "\(fast)")
        #expect(fixture.directory.exists("mirror/r/good.bin"))
    }

    /// A verify JUnit case's `time` is the time its own file took to hash (and `0.000` in a
    /// reproducible report).
    @Test func verifyJUnitTimesAreEachSlicesOwn() async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        let zeros = String(repeating: "0", count: 64)
        try fixture.write(
            manifest: Self.manifest(
                """
                      - {path: big.bin, url: "\(fixture.url("/gen/1/big"))", sha256: \(zeros)}
                      - {path: small.bin, url: "\(fixture.url("/gen/1/small"))", sha256: \(zeros)}
                """))
        _ = try fixture.directory.write(file: "mirror/r/big.bin", bytes: [UInt8](repeating: 7, count: 96 << 20))
        _ = try fixture.directory.write(file: "mirror/r/small.bin", contents: "x")
        _ = try await fixture.run(["verify", "site.yaml", "--junit", "measured.xml", "--jobs", "1"])
        let measured = try JUnitFile.parse(try #require(fixture.directory.contents(of: "measured.xml")))
        let big = try #require(measured.cases["r/big.bin"]?.time.flatMap(Double.init))
        let small = try #require(measured.cases["r/small.bin"]?.time.flatMap(Double.init))
        #expect(big > 0 && big > small, "big \(big) s, small \(small) s")
        _ = try await fixture.run(["verify", "site.yaml", "--junit", "fixed.xml"], environment: ["SOURCE_DATE_EPOCH": "0"])
        let fixed = try JUnitFile.parse(try #require(fixture.directory.contents(of: "fixed.xml")))
        #expect(fixed.cases.values.allSatisfy { $0.time == "0.000" }, "\(fixed)")
    }

    /// Each message names what was actually seen: an HTTP/0.9 reply, a refused connection, a
    /// folder where the file goes, a file where a folder is needed (in plan's words too).
    @Test func messagesNameWhatWasSeen() async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        // A port nothing listens on, held so that no other test's server takes it.
        let (refusing, port) = try HTTPGet.refusingPort()
        defer { close(refusing) }
        try fixture.write(
            manifest: Self.manifest(
                """
                      - {path: old.bin, url: "\(fixture.url("/http09/hello"))"}
                      - {path: refused.bin, url: "http://127.0.0.1:\(port)/x"}
                      - {path: folder.bin, url: "\(fixture.url("/gen/10/folder.bin"))", size: 10}
                      - {path: sub/inner.bin, url: "\(fixture.url("/gen/10/inner.bin"))", size: 10}
                """))
        try fixture.directory.makeDirectory("mirror/r/folder.bin/kept")
        try fixture.directory.write(file: "mirror/r/sub", contents: "a file where a folder goes\n")
        let plan = try await fixture.run(["plan", "site.yaml", "-v"])
        #expect(plan.stdout.contains("~ folder.bin (10 B) [size only]: 'mirror/r/folder.bin' is a directory, not a regular file\n"), "\(plan)")
        #expect(plan.stdout.contains("~ sub/inner.bin (10 B) [size only]: 'mirror/r/sub' is a regular file, not a folder\n"), "\(plan)")

        // Without the offline pause: once the other slices have ended, the refusing port is the
        // only origin with work, and its refusals would read as the network gone.
        let result = try await fixture.apply(["--offline-wait", "0"])
        #expect(result.status == 1, "\(result)")
        #expect(result.stdout.contains("! r/old.bin: Protocol: the server's reply is not HTTP/1.0 or later (an HTTP/0.9 reply, or not HTTP)"), "\(result)")
        #expect(result.stdout.contains("! r/refused.bin: Connect: the connection was refused"), "\(result)")
        #expect(result.stdout.contains("! r/folder.bin: UnsafePath: rename into 'mirror/r/folder.bin': a folder is in the place of the file"), "\(result)")
        #expect(result.stdout.contains("! r/sub/inner.bin: UnsafePath: open folder 'mirror/r/sub': it is a file, where a folder is needed"), "\(result)")
        #expect(!result.stdout.contains("symbolic link") && !result.stdout.contains("scheme"), "\(result)")
    }
}
