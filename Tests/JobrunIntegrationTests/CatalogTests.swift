import Foundation
import JobrunTestSupport
import Testing

/// `slices_from` catalogs on the real binary: an HLS playlist mirrored with its token kept to its
/// own segment, and a signed list that was changed refused before any request.
@Suite struct CatalogTests {
    @Test func anHLSPlaylistIsMirroredAndATokenGoesOnlyWithItsSegment() async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        try fixture.directory.write(
            file: "index.m3u8",
            contents: """
                #EXTM3U
                #EXT-X-TARGETDURATION:6
                #EXT-X-MAP:URI="init.mp4"
                #EXTINF:6.0,
                seg/0001.ts
                #EXTINF:6.0,
                seg/0002.ts?token=abc
                #EXT-X-ENDLIST

                """)
        try fixture.write(
            manifest: """
                version: 1
                resources:
                  - id: lesson
                    base_url: "\(fixture.url("/gen/300/"))"
                    slices_from: {path: index.m3u8, format: hls}
                """)
        let result = try await fixture.apply()
        #expect(result.status == 0 && result.stdout.contains("3 fetched"), "\(result)")
        for name in ["init.mp4", "seg/0001.ts", "seg/0002.ts"] {
            #expect(fixture.directory.bytes(of: "mirror/lesson/\(name)") == Generated.bytes(size: 300, name: name), "\(name)")
        }
        let sent = try await fixture.sentRequests().map(\.path).sorted()
        #expect(sent == ["/gen/300/init.mp4", "/gen/300/seg/0001.ts", "/gen/300/seg/0002.ts?token=abc"], "\(sent)")
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/minisign"), "needs minisign"))
    func aChangedSignedListIsRefusedBeforeAnyRequest() async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        let list = "\(Generated.sha256Hex(size: 300, name: "a.iso"))  a.iso\n"
        try fixture.directory.write(file: "SHA256SUMS", contents: list)
        let minisign = BinaryRunner(executable: "/usr/bin/minisign", defaultTimeout: .seconds(30))
        for step in [["-G", "-W", "-p", "release.pub", "-s", "release.sec"], ["-S", "-s", "release.sec", "-m", "SHA256SUMS"]] {
            let made = try await minisign.run(step, workingDirectory: fixture.directory.path)
            try #require(made.status == 0, "\(made)")
        }
        try fixture.write(
            manifest: """
                version: 1
                resources:
                  - id: release
                    base_url: "\(fixture.url("/gen/300/"))"
                    slices_from: {path: SHA256SUMS, minisign_key: release.pub}
                """)
        let good = try await fixture.apply()
        #expect(good.status == 0 && good.stdout.contains("1 fetched"), "\(good)")
        let before = try await fixture.sentRequests().count

        try fixture.directory.write(file: "SHA256SUMS", contents: list + "\(Generated.sha256Hex(size: 300, name: "b.iso"))  b.iso\n")
        let refused = try await fixture.apply()
        #expect(refused.status == 65, "\(refused)")
        #expect(refused.stderr.contains("SHA256SUMS' is not trusted: the minisign signature does not match the file"), "\(refused)")
        #expect(try await fixture.sentRequests().count == before, "a request was made for a list that is not trusted")
        let validate = try await fixture.run(["validate", "site.yaml"])
        #expect(validate.status == 65 && validate.stderr.contains("is not trusted"), "\(validate)")
    }
}
