import Foundation
import JobrunTestSupport
import Testing

/// Whether the tools that make and use a Debian repository are here (`make deps` installs them).
let debianToolsAvailable = ["/usr/bin/gpg", "/usr/bin/gpgv", "/usr/bin/dpkg-deb", "/usr/bin/xz"].allSatisfy {
    FileManager.default.isExecutableFile(atPath: $0)
}

/// `format: debian` on the real binary: a repository the test makes (its own key, `InRelease`,
/// `Packages.xz`, two packages) mirrored and then used by `apt-get`; a tampered index, a
/// tampered `InRelease`, another key and an expired signature each refused before any package
/// is requested.
@Suite(.enabled(if: debianToolsAvailable, "needs gpg, gpgv, dpkg-deb and xz (make deps)"))
struct DebianCatalogTests {
    /// The repository (served from `upstream/repo`), its key, and a jobrun fixture mirroring it.
    struct Repository {
        let fixture: ApplyFixture
        let upstream: TemporaryDirectory
        static let script = (SharedPaths.packageRoot(startingAt: #filePath) ?? ".") + "/Tests/Support/debrepo.sh"

        init(byHash: Bool = false) async throws {
            upstream = try TemporaryDirectory(prefix: "jobrun-debian")
            do {
                fixture = try ApplyFixture(FaultServer.Options(root: upstream.path))
                try await script(["key", upstream.path])
                try await script(["build", upstream.path, upstream.path("repo")], environment: byHash ? ["BYHASH": "1"] : [:])
                try fixture.directory.write(file: "archive.asc", bytes: upstream.bytes(of: "key.asc") ?? [])
                try fixture.write(
                    manifest: """
                        version: 1
                        resources:
                          - id: debian
                            base_url: "\(fixture.url("/repo/"))"
                            slices_from:
                              format: debian
                              suite: jobrun-test
                              components: [main]
                              architectures: [amd64]
                              keyring: archive.asc
                        """)
            } catch {
                upstream.remove()
                throw error
            }
        }

        func script(_ arguments: [String], environment: [String: String] = [:]) async throws {
            let made = try await BinaryRunner(executable: "/bin/bash", defaultTimeout: .seconds(60)).run([Self.script] + arguments, environment: environment)
            try #require(made.status == 0, "debrepo.sh \(arguments): \(made)")
        }

        func finish() async {
            try? await script(["stop", upstream.path])
            fixture.finish()
            upstream.remove()
        }

        /// Paths requested below the pool since `count` requests.
        func poolRequests(after count: Int) async throws -> [String] {
            try await fixture.sentRequests().dropFirst(count).map(\.path).filter { $0.contains("/pool/") }
        }
    }

    @Test func aRepositoryIsMirroredVerifiedAndUsableByApt() async throws {
        let repo = try await Repository()
        let fixture = repo.fixture
        let first = try await fixture.apply()
        #expect(first.status == 0 && first.stdout.contains("4 fetched"), "\(first)")
        for path in ["dists/jobrun-test/InRelease", "dists/jobrun-test/main/binary-amd64/Packages.xz", "pool/main/h/hello-jobrun/hello-jobrun_1.0_amd64.deb"] {
            #expect(fixture.directory.bytes(of: "mirror/debian/" + path) == repo.upstream.bytes(of: "repo/" + path), "\(path)")
        }
        // The chain first: InRelease, then its index, then the packages.
        let order = try await fixture.sentRequests().map(\.path)
        #expect(order.prefix(2) == ["/repo/dists/jobrun-test/InRelease", "/repo/dists/jobrun-test/main/binary-amd64/Packages.xz"], "\(order)")
        try await fixture.expectVerified()
        // Unchanged (a 304), the repository is not verified or read again: no gpgv on PATH needed.
        let again = try await fixture.apply(environment: ["PATH": "/nonexistent"])
        #expect(again.status == 0 && again.stdout.contains("0 fetched") && again.stdout.contains("4 up to date"), "\(again)")

        if FileManager.default.isExecutableFile(atPath: "/usr/bin/apt-get") {
            try await expectAptUses(mirror: fixture.directory.path("mirror"), key: repo.upstream.path("key.gpg"), in: repo.upstream)
        }
        await repo.finish()
    }

    @Test func indexesOfferedByHashAreFetchedByHash() async throws {
        let repo = try await Repository(byHash: true)
        let fixture = repo.fixture
        let result = try await fixture.apply()
        #expect(result.status == 0 && result.stdout.contains("5 fetched"), "\(result)")
        let index = "dists/jobrun-test/main/binary-amd64/Packages.xz"
        let hash = PortableSHA256.hex(of: repo.upstream.bytes(of: "repo/" + index) ?? [])
        let byHash = "dists/jobrun-test/main/binary-amd64/by-hash/SHA256/" + hash
        for path in [index, byHash] {
            #expect(fixture.directory.bytes(of: "mirror/debian/" + path) == repo.upstream.bytes(of: "repo/" + index), "\(path)")
        }
        // Never by its name, which a newer index may already hold.
        let asked = try await fixture.sentRequests().map(\.path)
        #expect(!asked.contains("/repo/" + index) && asked.contains("/repo/" + byHash), "\(asked)")
        if FileManager.default.isExecutableFile(atPath: "/usr/bin/apt-get") {
            try await expectAptUses(mirror: fixture.directory.path("mirror"), key: repo.upstream.path("key.gpg"), in: repo.upstream)
        }
        await repo.finish()
    }

    /// `apt-get update` and `apt-get download` with a private configuration against the mirror,
    /// served by a server of its own.
    func expectAptUses(mirror: String, key: String, in folder: TemporaryDirectory) async throws {
        let server = try FaultServer(FaultServer.Options(root: mirror))
        defer { server.stop() }
        let apt = folder.path("apt")
        for sub in ["lists/partial", "cache/archives/partial", "etc/parts", "download"] {
            try FileManager.default.createDirectory(atPath: apt + "/" + sub, withIntermediateDirectories: true)
        }
        try folder.write(file: "apt/status", contents: "")
        try folder.write(file: "apt/etc/sources.list", contents: "deb [signed-by=\(key)] \(server.url("/debian/")) jobrun-test main\n")
        let options = [
            "Dir::Etc::SourceList=\(apt)/etc/sources.list", "Dir::Etc::SourceParts=\(apt)/etc/parts", "Dir::Etc::Parts=\(apt)/etc/parts",
            "Dir::Etc::PreferencesParts=\(apt)/etc/parts", "Dir::Etc::Preferences=\(apt)/etc/preferences", "Dir::State::Lists=\(apt)/lists",
            "Dir::State::status=\(apt)/status", "Dir::Cache=\(apt)/cache", "Debug::NoLocking=1", "APT::Sandbox::User=root", "Acquire::Languages=none",
            "APT::Architecture=amd64", "APT::Architectures=amd64",
        ].flatMap { ["-o", $0] }
        let aptGet = BinaryRunner(executable: "/usr/bin/apt-get", defaultTimeout: .seconds(60))
        let update = try await aptGet.run(options + ["update"], environment: ["LC_ALL": "C"])
        #expect(update.status == 0 && !update.stderr.contains("W:") && !update.stderr.contains("E:"), "\(update)")
        let download = try await aptGet.run(options + ["download", "hello-jobrun"], environment: ["LC_ALL": "C"], workingDirectory: apt + "/download")
        #expect(download.status == 0, "\(download)")
        #expect(
            folder.bytes(of: "apt/download/hello-jobrun_1.0_amd64.deb")
                == FileManager.default.contents(atPath: mirror + "/debian/pool/main/h/hello-jobrun/hello-jobrun_1.0_amd64.deb").map { [UInt8]($0) })
    }

    /// How the repository is spoiled after it was made, and what the refusal says.
    enum Spoil: String, CaseIterable {
        case tamperedIndex, tamperedInRelease, anotherKey, expiredSignature
    }

    @Test(arguments: Spoil.allCases)
    func aSpoiledRepositoryIsRefusedBeforeAnyPackageIsRequested(_ spoil: Spoil) async throws {
        let repo = try await Repository()
        let fixture = repo.fixture
        let expected: String
        switch spoil {
        case .tamperedIndex:
            // Another Packages.xz than the one the Release signs.
            let index = "repo/dists/jobrun-test/main/binary-amd64/Packages.xz"
            var bytes = repo.upstream.bytes(of: index) ?? []
            bytes[bytes.count / 2] ^= 0x01
            try repo.upstream.write(file: index, bytes: bytes)
            expected = "Packages.xz' has another SHA256 than the Release lists"
        case .tamperedInRelease:
            let path = "repo/dists/jobrun-test/InRelease"
            let text = String(decoding: repo.upstream.bytes(of: path) ?? [], as: UTF8.self)
            try repo.upstream.write(file: path, contents: text.replacingOccurrences(of: "Label: jobrun-test", with: "Label: jobrun-tesT"))
            expected = "does not match it (it was changed after it was signed)"
        case .anotherKey:
            let other = try TemporaryDirectory(prefix: "jobrun-debian-other")
            defer { other.remove() }
            let made = try await BinaryRunner(executable: "/bin/bash", defaultTimeout: .seconds(60)).run([Repository.script, "key", other.path])
            try #require(made.status == 0, "\(made)")
            try fixture.directory.write(file: "archive.asc", bytes: other.bytes(of: "key.asc") ?? [])
            _ = try? await BinaryRunner(executable: "/bin/bash").run([Repository.script, "stop", other.path])
            expected = "which is not in the keyring"
        case .expiredSignature:
            try await repo.script([
                "sign", repo.upstream.path, repo.upstream.path("repo"), "--faked-system-time", "20200101T000000", "--default-sig-expire", "1d",
            ])
            expected = "has expired"
        }
        let result = try await fixture.apply()
        #expect(result.status == 1, "\(result)")
        #expect(result.stderr.contains(expected) && result.stderr.contains("resource 'debian' refused"), "\(result)")
        #expect(try await repo.poolRequests(after: 0).isEmpty, "a package was requested from a repository that is not trusted")
        #expect(fixture.size(of: "mirror/debian/dists/jobrun-test/InRelease") == nil)
        await repo.finish()
    }

    @Test func aListWithADetachedOpenPGPSignatureIsReadOnlyOnceGpgvVerifiesIt() async throws {
        let repo = try await Repository()
        let fixture = repo.fixture
        let digest = PortableSHA256.hex(of: repo.upstream.bytes(of: "repo/pool/main/h/hello-jobrun/hello-jobrun_1.0_amd64.deb") ?? [])
        try repo.upstream.write(file: "repo/pool/SHA256SUMS", contents: "\(digest)  main/h/hello-jobrun/hello-jobrun_1.0_amd64.deb\n")
        try await repo.script(["detach", repo.upstream.path, repo.upstream.path("repo/pool/SHA256SUMS")])
        try fixture.write(
            manifest: """
                version: 1
                resources:
                  - id: pool
                    base_url: "\(fixture.url("/repo/pool/"))"
                    slices_from: {url: SHA256SUMS, keyring: archive.asc, signature: SHA256SUMS.asc}
                """)
        let good = try await fixture.apply()
        #expect(good.status == 0 && good.stdout.contains("1 fetched"), "\(good)")
        let before = try await fixture.sentRequests().count
        try repo.upstream.write(file: "repo/pool/SHA256SUMS", contents: "\(digest)  main/h/hello-jobrun/other.deb\n")
        let changed = try await fixture.apply()
        #expect(changed.status == 1 && changed.stderr.contains("SHA256SUMS' is not trusted: the signature by key"), "\(changed)")
        let after = try await fixture.sentRequests().dropFirst(before).map(\.path)
        #expect(after == ["/repo/pool/SHA256SUMS", "/repo/pool/SHA256SUMS.asc"], "\(after)")
        await repo.finish()
    }

    @Test func aLocalListWithADetachedOpenPGPSignatureIsVerifiedByEveryCommand() async throws {
        let repo = try await Repository()
        let fixture = repo.fixture
        let package = "main/h/hello-jobrun/hello-jobrun_1.0_amd64.deb"
        let digest = PortableSHA256.hex(of: repo.upstream.bytes(of: "repo/pool/" + package) ?? [])
        try fixture.directory.write(file: "SHA256SUMS", contents: "\(digest)  \(package)\n")
        try await repo.script(["detach", repo.upstream.path, fixture.directory.path("SHA256SUMS")])
        try fixture.write(
            manifest: """
                version: 1
                resources:
                  - id: pool
                    base_url: "\(fixture.url("/repo/pool/"))"
                    slices_from: {path: SHA256SUMS, keyring: archive.asc, signature: SHA256SUMS.asc}
                """)
        let good = try await fixture.apply()
        #expect(good.status == 0 && good.stdout.contains("1 fetched"), "\(good)")
        let verified = try await fixture.run(["verify", "site.yaml"])
        #expect(verified.status == 0, "\(verified)")
        let before = try await fixture.sentRequests().count
        // A changed list with the old signature: refused by apply and by verify, nothing asked.
        try fixture.directory.write(file: "SHA256SUMS", contents: "\(digest)  main/h/hello-jobrun/other.deb\n")
        let changed = try await fixture.apply()
        #expect(changed.status == 1 && changed.stderr.contains("SHA256SUMS' is not trusted: the signature by key"), "\(changed)")
        let refused = try await fixture.run(["verify", "site.yaml"])
        #expect(refused.status == 1 && refused.stderr.contains("is not trusted"), "\(refused)")
        let after = try await fixture.sentRequests().count
        #expect(after == before)
        await repo.finish()
    }
}
