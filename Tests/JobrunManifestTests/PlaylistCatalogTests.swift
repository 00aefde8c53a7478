import JobrunCore
import Testing

@testable import JobrunManifest

/// `slices_from: {path: …, format: hls}`: a media package's playlist becomes its slices, every
/// URI resolved against the resource's origins and none outside them.
@Suite struct PlaylistCatalogTests {
    static func manifest(_ extra: String = "", base: String = "base_url: https://cdn.example.com/class/923/") -> String {
        "version: 1\nresources:\n  - id: lesson\n    \(base)\n    slices_from: {path: index.m3u8, format: hls\(extra)}\n"
    }

    @Test func aMediaPlaylistNamesItsSegmentsKeysAndInitSection() throws {
        let playlist = """
            #EXTM3U
            #EXT-X-VERSION:7
            #EXT-X-TARGETDURATION:6
            #EXT-X-KEY:METHOD=AES-128,URI="keys/k1.key",IV=0x1
            #EXT-X-MAP:URI="init.mp4",BYTERANGE="720@0"
            #EXTINF:6.0,
            raw/ts/0001.ts
            #EXT-X-BYTERANGE:1000@0
            #EXTINF:6.0,
            raw/ts/big.ts
            #EXT-X-BYTERANGE:1000@1000
            #EXTINF:6.0,
            raw/ts/big.ts
            #EXTINF:6.0,
            https://cdn.example.com/class/923/raw/ts/0004%20b.ts?token=abc
            #EXT-X-KEY:METHOD=NONE
            #EXTINF:6.0,
            /class/923/raw/ts/0005.ts
            #EXT-X-ENDLIST

            """
        let loaded = try loadManifests(["m.yaml": Self.manifest(), "index.m3u8": playlist])
        #expect(loaded.rendered == "")
        let slices = try #require(loaded.manifest).resources[0].slices
        #expect(slices.map(\.path) == ["keys/k1.key", "init.mp4", "raw/ts/0001.ts", "raw/ts/big.ts", "raw/ts/0004 b.ts", "raw/ts/0005.ts"])
        // The token stays with the one slice that was given it; the others go by the base URL.
        #expect(slices[4].url == "https://cdn.example.com/class/923/raw/ts/0004%20b.ts?token=abc" && slices[0].url == nil)
        #expect(slices.allSatisfy { $0.digests.isEmpty && $0.size == nil })
    }

    @Test func aMasterPlaylistNamesItsVariantsAndRenditions() throws {
        let playlist = """
            #EXTM3U
            #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="a",NAME="en, main",URI="audio/en.m3u8"
            #EXT-X-STREAM-INF:BANDWIDTH=800000,CODECS="avc1.4d401e,mp4a.40.2",AUDIO="a"
            low/index.m3u8
            #EXT-X-I-FRAME-STREAM-INF:BANDWIDTH=90000,URI="low/iframes.m3u8"
            """
        let loaded = try loadManifests(["m.yaml": Self.manifest(", include: \"*.m3u8\""), "index.m3u8": playlist])
        #expect(loaded.rendered == "")
        #expect(try #require(loaded.manifest).resources[0].slices.map(\.path) == ["audio/en.m3u8", "low/index.m3u8", "low/iframes.m3u8"])
    }

    @Test func urisOutsideTheOriginsAndMalformedPlaylistsAreLocated() throws {
        let playlist = """
            #EXTM3U
            #EXTINF:6.0,
            http://169.254.169.254/latest/meta-data
            #EXTINF:6.0,
            https://cdn.example.com/other/x.ts
            #EXT-X-KEY:METHOD=AES-128,URI="skd://key"
            #EXTINF:6.0,
            ../escape.ts
            #EXTINF:6.0,
            bad%zz.ts
            #EXT-X-MAP:URI="unterminated
            """
        let text = try loadManifests(["m.yaml": Self.manifest(), "index.m3u8": playlist]).rendered
        #expect(text.contains("index.m3u8:3:1: error: the segment URI 'http://169.254.169.254/latest/meta-data' is outside the resource's origins"), "\(text)")
        #expect(text.contains("index.m3u8:5:1: error: the segment URI 'https://cdn.example.com/other/x.ts' is outside the resource's origins"), "\(text)")
        #expect(text.contains("index.m3u8:6:32: error: the key URI 'skd://key' is not an http or https URL"), "\(text)")
        #expect(text.contains("index.m3u8:8:1: error: the segment URI '../escape.ts': "), "\(text)")
        #expect(text.contains("index.m3u8:10:1: error: the segment URI 'bad%zz.ts' has a malformed '%' escape"), "\(text)")
        #expect(text.contains("index.m3u8:11:16: error: a quoted attribute value without its closing '\"'"), "\(text)")
        let notHLS = try loadManifests(["m.yaml": Self.manifest(), "index.m3u8": "seg.ts\n"]).rendered
        #expect(notHLS.contains("index.m3u8:1:1: error: not an HLS playlist: its first line is not '#EXTM3U'"), "\(notHLS)")
        let loose = try loadManifests([
            "m.yaml": Self.manifest(base: "base_url: https://cdn.example.com/class/923"), "index.m3u8": "#EXTM3U\n/class/other/x.ts\n",
        ])
        #expect(
            loose.rendered.contains(
                "index.m3u8:2:1: error: an HLS playlist's URIs are resolved below the base URL 'https://cdn.example.com/class/923', which must end with '/'"),
            "\(loose.rendered)")
        let noBase = try loadManifests(["m.yaml": Self.manifest(base: "dest: x"), "index.m3u8": "#EXTM3U\nseg.ts\n"]).rendered
        #expect(noBase.contains("index.m3u8:2:1: error: an HLS playlist's URIs are resolved against the resource's 'base_url', and it has none"), "\(noBase)")
    }

    @Test func schemesAndEscapes() {
        #expect(
            ManifestDecoder.hasScheme("https://x") && ManifestDecoder.hasScheme("skd:x") && !ManifestDecoder.hasScheme("a/b:c")
                && !ManifestDecoder.hasScheme("1a:b"))
        #expect(
            ParsedURL.percentDecoded("a%20b%C3%A9") == "a bé" && ParsedURL.percentDecoded("%e") == nil
                && ParsedURL.percentDecoded("%ff") == nil)
    }
}
