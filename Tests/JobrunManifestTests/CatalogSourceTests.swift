import JobrunCore
import JobrunTrust
import Testing

@testable import JobrunManifest

/// `slices_from: {url: …}`: a catalog fetched at each run is decoded, not read, and
/// ``CatalogReader`` reads what was fetched as a manifest's own list is read.
@Suite struct CatalogSourceTests {
    static let sha256 = "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824"

    static func resource(_ source: String, base: String = "    base_url: https://example.com/rel/\n") throws -> (Resource?, String) {
        let loaded = try loadManifests(["m.yaml": "version: 1\nresources:\n  - id: r\n\(base)    slices_from: \(source)\n"])
        return (loaded.manifest?.resources.first, loaded.rendered)
    }

    @Test func aURLIsResolvedAgainstTheBaseAndNothingIsRead() throws {
        let (relative, rendered) = try Self.resource("{url: SHA256SUMS, include: '*.iso'}")
        #expect(rendered == "")
        let catalog = try #require(relative?.catalog)
        #expect(catalog.url == "https://example.com/rel/SHA256SUMS" && catalog.format == .sha256sum && catalog.trust == nil)
        #expect(relative?.slices.isEmpty == true)
        #expect(catalog.keeps("a.iso") && !catalog.keeps("a.txt"))
        let (absolute, _) = try Self.resource("{url: 'https://cdn.example.org/list.m3u8', format: hls}")
        #expect(absolute?.catalog?.url == "https://cdn.example.org/list.m3u8" && absolute?.catalog?.format == .hls)
    }

    @Test func aSignedCatalogsSignatureIsBesideItUnlessNamed() throws {
        // The key's line alone is the key given inline.
        let inline = "RWQf6LRCGA9i53mlYecO4IzT51TGPpvWucNSCh1CBM0QTaLn73Y7GFO3"
        let (beside, rendered) = try Self.resource("{url: SHA256SUMS, minisign_key: \"\(inline)\"}")
        #expect(rendered == "")
        #expect(beside?.catalog?.trust?.signatureURL == "https://example.com/rel/SHA256SUMS.minisig")
        let (named, _) = try Self.resource("{url: SHA256SUMS, minisign_key: \"\(inline)\", signature: ../sig/SHA256SUMS.minisig}")
        #expect(named?.catalog?.trust?.signatureURL == "https://example.com/sig/SHA256SUMS.minisig")
    }

    @Test func mistakesAreLocated() throws {
        let (_, both) = try Self.resource("{url: SHA256SUMS, path: SHA256SUMS}")
        #expect(both.contains("m.yaml:5:24: error: 'path' and 'url' both given in 'slices_from'"), "\(both)")
        let (_, unbased) = try Self.resource("{url: SHA256SUMS}", base: "")
        #expect(unbased.contains("'slices_from' url 'SHA256SUMS' is relative, and the resource has no 'base_url'"), "\(unbased)")
        let (_, scheme) = try Self.resource("{url: 'ftp://example.com/SHA256SUMS'}")
        #expect(scheme.contains("'url' uses the scheme 'ftp'; only http and https are allowed"), "\(scheme)")
        let (_, neither) = try Self.resource("{format: hls}")
        #expect(neither.contains("missing required key 'path' or 'url' in 'slices_from'"), "\(neither)")
    }

    @Test func theReaderKeepsWhatThePatternsSelectAndLocatesProblemsInTheCatalog() throws {
        let catalog = CatalogSource(
            url: "https://e.com/SUMS", format: .sha256sum, include: [try PathGlob("*.iso")], location: SourceLocation(file: "m.yaml", line: 5, column: 5))
        let list = Array("\(Self.sha256)  a.iso\n\(Self.sha256)  a.txt\n".utf8)
        let read = CatalogReader.slices(of: catalog, list: list, signature: nil, file: catalog.url, signatureFile: "", origins: [])
        #expect((try? read.get())?.map(\.path) == ["a.iso"])

        let bad = Array("\(Self.sha256)  a.iso\nnot a line\n".utf8)
        guard case .failure(let refusal) = CatalogReader.slices(of: catalog, list: bad, signature: nil, file: catalog.url, signatureFile: "", origins: [])
        else {
            Issue.record("a malformed catalog was read")
            return
        }
        #expect(refusal.diagnostics.first?.location == SourceLocation(file: "https://e.com/SUMS", line: 2, column: 1), "\(refusal.diagnostics)")

        let none = Array("\(Self.sha256)  a.txt\n".utf8)
        guard case .failure(let empty) = CatalogReader.slices(of: catalog, list: none, signature: nil, file: catalog.url, signatureFile: "", origins: []) else {
            Issue.record("a catalog whose patterns keep nothing was read")
            return
        }
        #expect(empty.message == "'https://e.com/SUMS' lists 1 slices, and 'include' and 'exclude' keep none of them")
    }

    @Test func aSignedCatalogWithoutItsSignatureOrWithAnotherIsRefused() throws {
        let key = try SignatureKey(
            parsing: "untrusted comment: k\nRWQf6LRCGA9i53mlYecO4IzT51TGPpvWucNSCh1CBM0QTaLn73Y7GFO3\n", scheme: .minisign)
        var catalog = CatalogSource(url: "https://e.com/SUMS", format: .sha256sum, location: SourceLocation(file: "m.yaml", line: 5, column: 5))
        catalog.trust = CatalogTrust(key: key, signatureURL: "https://e.com/SUMS.minisig", location: SourceLocation(file: "m.yaml", line: 6, column: 5))
        let list = Array("\(Self.sha256)  a.iso\n".utf8)
        let unsigned = CatalogReader.slices(
            of: catalog, list: list, signature: nil, file: catalog.url, signatureFile: "https://e.com/SUMS.minisig", origins: [])
        guard case .failure(let missing) = unsigned else {
            Issue.record("a signed catalog was read without its signature")
            return
        }
        #expect(missing.message.contains("was not fetched; none of its slices is used"))
        let forged = CatalogReader.slices(
            of: catalog, list: list, signature: Array("untrusted comment: x\nnot base64\n".utf8), file: catalog.url,
            signatureFile: "https://e.com/SUMS.minisig",
            origins: [])
        guard case .failure(let refusal) = forged else {
            Issue.record("a catalog with a malformed signature was read")
            return
        }
        #expect(refusal.message.hasPrefix("'https://e.com/SUMS' is not trusted: "), "\(refusal.message)")
        #expect(refusal.diagnostics.first?.location?.file == "https://e.com/SUMS.minisig", "\(refusal.diagnostics)")
    }

    @Test func aDebianRepositoryIsItsBaseURLAndItsSuite() throws {
        let loaded = try loadManifests([
            "m.yaml": """
            version: 1
            resources:
              - id: r
                base_url: https://deb.example.org/debian/
                slices_from: {format: debian, suite: bookworm, components: [main, contrib], architectures: amd64, keyring: k.gpg, include: hello}
            """,
            "k.gpg": "key",
        ])
        #expect(loaded.rendered == "")
        let catalog = try #require(loaded.manifest?.resources.first?.catalog)
        #expect(catalog.url == "https://deb.example.org/debian/dists/bookworm/InRelease" && catalog.format == .debian)
        #expect(catalog.debian == DebianSelection(suite: "bookworm", components: ["main", "contrib"], architectures: ["amd64"]))
        #expect(catalog.keyring?.hasSuffix("/k.gpg") == true && catalog.include.count == 1)
    }

    @Test func debianMistakesAreLocated() throws {
        let (_, wrong) = try Self.resource("{format: debian, url: x, suite: ../up, architectures: [AMD64]}")
        #expect(wrong.contains("'url' is not used with 'format: debian'"), "\(wrong)")
        #expect(wrong.contains("'suite' '../up' escapes the output root through '..'"), "\(wrong)")
        #expect(wrong.contains("architecture 'AMD64' is not a Debian architecture name"), "\(wrong)")
        #expect(wrong.contains("missing required key 'keyring' in a Debian 'slices_from'"), "\(wrong)")
        let (_, missing) = try Self.resource("{format: debian, keyring: nowhere.gpg}", base: "    base_url: https://e.com/debian\n")
        #expect(missing.contains("missing required key 'suite'") && missing.contains("missing required key 'architectures'"), "\(missing)")
        #expect(missing.contains("cannot read 'keyring' file"), "\(missing)")
        #expect(missing.contains("a Debian repository is the resource's 'base_url', which must end with '/'"), "\(missing)")
    }

    @Test func aCatalogOfBadLinesIsReportedByItsFirstProblems() {
        let catalog = CatalogSource(url: "https://e.com/SUMS", format: .sha256sum, location: SourceLocation(file: "m.yaml", line: 5, column: 5))
        let junk = Array(String(repeating: "not a checksum line\n", count: 5_000).utf8)
        guard case .failure(let refusal) = CatalogReader.slices(of: catalog, list: junk, signature: nil, file: catalog.url, signatureFile: "", origins: [])
        else {
            Issue.record("a catalog of junk was read")
            return
        }
        #expect(refusal.diagnostics.count == CatalogRefusal.reportedProblems + 1)
        #expect(refusal.diagnostics.last?.message == "more problems follow; only the first 100 are reported")
    }

    @Test func anOpenPGPKeyringVerifiesAFetchedListAgainstItsSignature() throws {
        let loaded = try loadManifests([
            "m.yaml":
                "version: 1\nresources:\n  - id: r\n    base_url: https://example.com/rel/\n    slices_from: {url: SHA256SUMS, keyring: k.asc, signature: SHA256SUMS.sign}\n",
            "k.asc": "key",
        ])
        #expect(loaded.rendered == "")
        let catalog = try #require(loaded.manifest?.resources.first?.catalog)
        #expect(catalog.openPGPSignatureURL == "https://example.com/rel/SHA256SUMS.sign" && catalog.keyring?.hasSuffix("/k.asc") == true)
        #expect(catalog.signatureURL == catalog.openPGPSignatureURL && catalog.trust == nil)
        let (_, unsigned) = try Self.resource("{url: SHA256SUMS, keyring: k.asc}")
        #expect(unsigned.contains("'keyring' needs 'signature'"), "\(unsigned)")
    }

    @Test func aLocalListSignedWithOpenPGPIsReadAtEachRunNotWithTheManifest() throws {
        let loaded = try loadManifests([
            "m.yaml":
                "version: 1\nresources:\n  - id: r\n    base_url: https://example.com/rel/\n    slices_from: {path: sums/SHA256SUMS, keyring: k.asc, signature: sums/SHA256SUMS.asc}\n",
            "k.asc": "key",
        ])
        #expect(loaded.rendered == "")
        let resource = try #require(loaded.manifest?.resources.first)
        let catalog = try #require(resource.catalog)
        #expect(catalog.isLocal && catalog.url.hasSuffix("/sums/SHA256SUMS") && catalog.url.hasPrefix("/"))
        #expect(catalog.openPGPSignatureURL?.hasSuffix("/sums/SHA256SUMS.asc") == true && resource.slices.isEmpty)
        let (_, unsigned) = try Self.resource("{path: SHA256SUMS, keyring: k.asc}")
        #expect(unsigned.contains("'keyring' needs 'signature': the detached OpenPGP signature's file"), "\(unsigned)")
    }

    @Test func keysOfAnotherFormatAreRefusedNotIgnored() throws {
        let (_, debianKeys) = try Self.resource("{url: SHA256SUMS, suite: bookworm, architectures: amd64}")
        #expect(debianKeys.contains("'suite' is used with 'format: debian' only; this list's format is 'sha256sum'"), "\(debianKeys)")
        #expect(debianKeys.contains("'architectures' is used with 'format: debian' only"), "\(debianKeys)")
        let (_, allow) = try Self.resource("{format: debian, suite: bookworm, architectures: amd64, keyring: k.gpg, allow: cdn.example.org}")
        #expect(allow.contains("'allow' is not used with 'format: debian'"), "\(allow)")
    }
}
