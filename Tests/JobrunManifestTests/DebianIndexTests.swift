import JobrunCore
import Testing

@testable import JobrunManifest

/// Debian's control files as jobrun reads them: a Release's suite, dates and index list, and a
/// Packages index's pool files, each problem at its line.
@Suite struct DebianIndexTests {
    static let hash = String(repeating: "ab", count: 32)

    static let release = """
        Origin: Debian
        Suite: stable
        Codename: bookworm
        Date: Sat, 11 Jul 2026 10:16:37 UTC
        Valid-Until: Sat, 18 Jul 2026 10:16:37 UTC
        Acquire-By-Hash: yes
        Architectures: all amd64 arm64
        Components: main contrib
        Description: Debian 12.11 Released 17 May 2025
        MD5Sum:
         0123456789abcdef0123456789abcdef 10 main/binary-amd64/Packages
        SHA256:
         \(hash) 50060337 main/binary-amd64/Packages
         \(hash)  8790396 main/binary-amd64/Packages.xz

        """

    @Test func aReleaseSaysItsSuiteDatesAndIndexes() throws {
        var diagnostics = DiagnosticCollector()
        let release = try #require(DebianRelease.parse(Array(Self.release.utf8), file: "R", diagnostics: &diagnostics))
        #expect(diagnostics.diagnostics.isEmpty, "\(diagnostics.diagnostics)")
        #expect(release.names("stable") && release.names("bookworm") && !release.names("trixie"))
        #expect(release.components == ["main", "contrib"] && release.architectures == ["all", "amd64", "arm64"])
        #expect(release.date == 1_783_764_997 && release.validUntil == 1_783_764_997 + 7 * 86_400)
        #expect(release.acquiresByHash)
        let xz = try #require(release.indexes["main/binary-amd64/Packages.xz"])
        #expect(xz.size == 8_790_396 && xz.sha256.hex == Self.hash && xz.line == 14)
        #expect(release.indexes.count == 2, "the MD5Sum list is not read")
    }

    @Test func releaseMistakesAreLocated() {
        var diagnostics = DiagnosticCollector()
        let text = "Suite: stable\nDate: yesterday\nSHA256:\n \(Self.hash) 12\n \(Self.hash) x main/P\n \(Self.hash) 1 ../../etc/passwd\n"
        _ = DebianRelease.parse(Array(text.utf8), file: "R", diagnostics: &diagnostics)
        let found = diagnostics.diagnostics.map { "\($0.location?.line ?? 0): \($0.message)" }
        #expect(found.contains("2: 'Date' is not a date: 'yesterday'"), "\(found)")
        #expect(found.contains("4: expected '<sha256> <size> <path>' in the Release's SHA256 list"), "\(found)")
        #expect(found.contains("5: 'x' is not a size"), "\(found)")
        #expect(found.contains("6: index path '../../etc/passwd' escapes the output root through '..'"), "\(found)")
        var none = DiagnosticCollector()
        #expect(DebianRelease.parse(Array("Suite: stable\n".utf8), file: "R", diagnostics: &none) == nil)
        #expect(none.diagnostics.first?.message == "the Release has no 'SHA256' list of its indexes")
    }

    @Test func releaseDatesAreReadAsDebianWritesThem() {
        #expect(DebianRelease.releaseDate("Sat, 11 Jul 2026 10:16:37 UTC") == 1_783_764_997)
        #expect(DebianRelease.releaseDate("Sat, 1 Jul 2026 10:16:37 +0000") == DebianRelease.releaseDate("Wed, 01 Jul 2026 10:16:37 GMT"))
        #expect(DebianRelease.releaseDate("Sat, 11 Jul 2026 10:16:37 +0200") == nil)
        #expect(DebianRelease.releaseDate("2026-07-11") == nil)
    }

    static func packages(_ stanzas: [[String]]) -> [UInt8] {
        Array(stanzas.map { $0.joined(separator: "\n") + "\n" }.joined(separator: "\n").utf8)
    }

    @Test func packagesListTheirPoolFilesOnceEach() {
        let index = Self.packages([
            [
                "Package: hello", "Version: 2.10-3", "Filename: pool/main/h/hello/hello_2.10-3_amd64.deb", "Size: 53092", "SHA256: \(Self.hash)",
                "Description: the classic", " greeting program",
            ],
            ["Package: libc6", "Filename: pool/main/g/glibc/libc6_2.36_amd64.deb", "size: 2800000", "sha256: \(Self.hash)"],
            ["Package: hello", "Filename: pool/main/h/hello/hello_2.10-3_amd64.deb", "Size: 53092", "SHA256: \(Self.hash)"],
        ])
        var diagnostics = DiagnosticCollector()
        let slices = DebianPackages.slices(in: index, file: "P", keeps: { _, _ in true }, diagnostics: &diagnostics)
        #expect(diagnostics.diagnostics.isEmpty, "\(diagnostics.diagnostics)")
        #expect(slices.map(\.path) == ["pool/main/h/hello/hello_2.10-3_amd64.deb", "pool/main/g/glibc/libc6_2.36_amd64.deb"])
        #expect(slices.map(\.size) == [53_092, 2_800_000] && slices[0].digests.first?.hex == Self.hash)
        #expect(slices[0].location == SourceLocation(file: "P", line: 3, column: 1))
        let onlyHello = DebianPackages.slices(in: index, file: "P", keeps: { name, _ in name == "hello" }, diagnostics: &diagnostics)
        #expect(onlyHello.count == 1)
    }

    @Test func packageMistakesAreLocatedAtTheirStanza() {
        let index = Self.packages([
            ["Package: a", "Filename: pool/a.deb", "Size: 1"],
            ["Package: b", "Filename: ../b.deb", "Size: 1", "SHA256: \(Self.hash)"],
            ["Package: c", "Filename: pool/c.deb", "Size: many", "SHA256: \(Self.hash)"],
            ["Package: d", "Filename: pool/a.deb", "Size: 1", "SHA256: \(Self.hash)"],
            ["Package: e", "Filename: pool/a.deb", "Size: 2", "SHA256: \(Self.hash)"],
            [" stray continuation"],
        ])
        var diagnostics = DiagnosticCollector()
        _ = DebianPackages.slices(in: index, file: "P", keeps: { _, _ in true }, diagnostics: &diagnostics)
        let found = diagnostics.diagnostics.map { "\($0.location?.line ?? 0): \($0.message)" }
        #expect(found.contains("1: a package without 'SHA256'"), "\(found)")
        #expect(found.contains("6: package 'b': 'Filename' '../b.deb' escapes the output root through '..'"), "\(found)")
        #expect(found.contains("10: package 'c': 'Size' is not a size"), "\(found)")
        #expect(found.contains("21: package 'e': 'pool/a.deb' is listed twice with another size or SHA256"), "\(found)")
        #expect(found.contains("25: a continuation line outside any field"), "\(found)")
    }
}
