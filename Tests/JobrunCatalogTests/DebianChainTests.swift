import JobrunCore
import JobrunManifest
import JobrunTestSupport
import Testing

@testable import JobrunCatalog

/// The parts of a Debian repository's chain that decide without the network: the Release's
/// fitness, gpgv's verdicts, and the indexes' compressions.
@Suite struct DebianChainTests {
    static func chain(now: Int64 = 1_783_764_997) -> DebianCatalog {
        var catalog = CatalogSource(url: "http://h/debian/dists/bookworm/InRelease", format: .debian, location: SourceLocation(file: "m", line: 1, column: 1))
        catalog.keyring = "/k.gpg"
        return DebianCatalog(
            catalog: catalog, selection: DebianSelection(suite: "bookworm", components: ["main"], architectures: ["amd64"]), root: "http://h/debian/",
            cache: CatalogCache(root: "/nonexistent", resourceID: "r"), now: now, gpgv: nil)
    }

    static func release(suite: String = "stable", codename: String = "bookworm", validUntil: Int64? = nil) -> DebianRelease {
        var release = DebianRelease()
        (release.suite, release.codename) = (suite, codename)
        release.components = ["main", "contrib"]
        release.architectures = ["amd64", "arm64"]
        release.validUntil = validUntil
        return release
    }

    @Test func theReleaseMustBeOfTheSuiteCurrentAndHaveWhatIsAsked() {
        let chain = Self.chain()
        #expect(chain.check(Self.release()) == nil)
        #expect(chain.check(Self.release(codename: "trixie")) == "the Release is of 'stable' or 'trixie', not 'bookworm'")
        #expect(chain.check(Self.release(validUntil: 1_783_764_996))?.hasPrefix("the Release of 'bookworm' expired on 2026-07-11T10:16:36Z") == true)
        #expect(chain.check(Self.release(validUntil: 1_783_764_997)) == nil)
        var dated = Self.release()
        dated.date = 1_783_764_997 + 3_600
        #expect(chain.check(dated)?.contains("in the future: it is not valid yet") == true)
        dated.date = 1_783_764_997 - 86_400
        var kept = Self.chain()
        kept.keptDate = 1_783_764_997 - 3_600
        #expect(kept.check(dated)?.hasSuffix("before the one this mirror was made from (2026-07-11T09:16:37Z): a rollback") == true)
        var undated = Self.release()
        undated.date = nil
        #expect(kept.check(undated)?.contains("has no Date") == true)
        // The copy the mirror was made from is read as it was: verify does not judge it current.
        kept.judgesCurrency = false
        #expect(kept.check(dated) == nil && kept.check(Self.release(validUntil: 1)) == nil)
        var other = Self.chain()
        other.selection.components = ["non-free"]
        #expect(other.check(Self.release()) == "the Release of 'bookworm' has no component 'non-free' (it has main, contrib)")
        other.selection = DebianSelection(suite: "bookworm", components: ["main"], architectures: ["riscv64"])
        #expect(other.check(Self.release()) == "the Release of 'bookworm' has no architecture 'riscv64' (it has amd64, arm64)")
    }

    @Test func gpgvVerdictsAreReadAsAptReadsThem() {
        let good = "[GNUPG:] NEWSIG\n[GNUPG:] GOODSIG BC86F42B4471C61B jobrun test\n[GNUPG:] VALIDSIG D1E823F928F3029CEDB21AC1BC86F42B4471C61B 2026 0 4\n"
        #expect(GPGStatus(good).goodSigners == ["BC86F42B4471C61B"] && GPGStatus(good).problem(keyring: "k") == nil)
        // Debian signs with several keys: one in the keyring is enough, the others not found or expired.
        let several =
            "[GNUPG:] NEWSIG\n[GNUPG:] ERRSIG 6ED0E7B82643E131 22 8 01 1 9\n[GNUPG:] NO_PUBKEY 6ED0E7B82643E131\n" + good
            + "[GNUPG:] NEWSIG\n[GNUPG:] EXPKEYSIG 0E98404D386FA1D9 old\n"
        #expect(GPGStatus(several).problem(keyring: "k") == nil)
        #expect(GPGStatus("[GNUPG:] GOODSIG BC86F42B4471C61B x\n").problem(keyring: "k") == "gpgv found no good signature", "a GOODSIG without VALIDSIG")
        #expect(GPGStatus("[GNUPG:] GOODSIG AAAA x\n[GNUPG:] VALIDSIG D1E8BBBB 2026\n").goodSigners.isEmpty, "a VALIDSIG of another key")
        #expect(GPGStatus(good + "[GNUPG:] BADSIG AB x\n").problem(keyring: "k")?.contains("does not match it") == true, "a bad signature beside a good one")
        #expect(
            GPGStatus("[GNUPG:] ERRSIG AB 22 8 01 1 9\n[GNUPG:] NO_PUBKEY AB\n").problem(keyring: "k")
                == "it is signed by key AB, which is not in the keyring 'k'")
        #expect(GPGStatus("[GNUPG:] EXPSIG AB x\n[GNUPG:] VALIDSIG F\n").problem(keyring: "k") == "the signature by key AB has expired")
        #expect(GPGStatus("[GNUPG:] EXPKEYSIG AB x\n").problem(keyring: "k") == "it is signed by key AB, which has expired")
        #expect(GPGStatus("[GNUPG:] REVKEYSIG AB x\n").problem(keyring: "k") == "it is signed by key AB, which was revoked")
        #expect(GPGStatus("[GNUPG:] NODATA 1\n").problem(keyring: "k") == "it holds no OpenPGP signature")
        let weak = "[GNUPG:] GOODSIG BC86F42B4471C61B t\n[GNUPG:] VALIDSIG D1E823F928F3029CEDB21AC1BC86F42B4471C61B 2026-11-29 1795000000 0 4 0 22 2 01 D1E8\n"
        #expect(GPGStatus(weak).problem(keyring: "k")?.contains("weak hash") == true, "a SHA-1 signature")
        #expect(GPGStatus(weak.replacingOccurrences(of: " 22 2 01", with: " 22 8 01")).problem(keyring: "k") == nil, "a SHA-256 one")
        #expect(GPGStatus("[GNUPG:] NO_PUBKEY AB\n").explainsFailure && !GPGStatus(good).explainsFailure)
        #expect(
            GPGStatus("GOODSIG BC86F42B4471C61B\nVALIDSIG D1E823F928F3029CEDB21AC1BC86F42B4471C61B\n").goodSigners.isEmpty, "lines without the status prefix")
    }

    @Test(.enabled(if: ["/usr/bin/xz", "/usr/bin/gzip"].allSatisfy { FileManager.default.isExecutableFile(atPath: $0) }, "needs xz and gzip"))
    func indexesAreDecompressedWithinTheirLimit() async throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let text = Array(String(repeating: "Package: hello\nSize: 1\n\n", count: 2_000).utf8)
        try folder.write(file: "P", bytes: text)
        for (tool, format) in [("xz", Decompression.Format.xz), ("gzip", .gzip)] {
            let made = try await BinaryRunner(executable: "/usr/bin/\(tool)").run(["-k", "-f", folder.path("P")])
            try #require(made.status == 0, "\(made)")
            let packed = try #require(folder.bytes(of: tool == "xz" ? "P.xz" : "P.gz"))
            #expect((try? Decompression.decompress(packed, format: format, limit: text.count).get()) == text, "\(tool)")
            guard case .failure(let over) = Decompression.decompress(packed, format: format, limit: text.count - 1) else {
                Issue.record("\(tool): more than the limit was decompressed")
                continue
            }
            #expect(over.message == "it decompresses to more than \(text.count - 1) bytes")
            var corrupt = packed
            corrupt[corrupt.count / 2] ^= 0xFF
            #expect((try? Decompression.decompress(corrupt, format: format, limit: 1 << 20).get()) == nil, "\(tool): corrupt data was read")
            #expect((try? Decompression.decompress(Array(packed.prefix(packed.count / 2)), format: format, limit: 1 << 20).get()) == nil, "\(tool): cut short")
        }
        #expect(Decompression.Format(path: "main/binary-amd64/Packages.bz2") == nil)
        #expect(Decompression.Format(path: "main/binary-amd64/Packages") == Decompression.Format.none)
    }
}
