import JobrunCore
import JobrunManifest
import JobrunTestSupport
import Testing
@testable import JobrunRun

/// The shortcut for slices under a `base_url` gives exactly what parsing each URL gives.
@Suite struct SliceAddressTests {
    @Test func theBaseShortcutAgreesWithAParse() throws {
        let dir = try TemporaryDirectory(prefix: "jobrun-address")
        defer { dir.remove() }
        _ = try dir.write(
            file: "m.yaml",
            contents: """
                version: 1
                resources:
                  - id: upper
                    base_url: HTTP://Media.Example.COM:80/Pkg%20One/
                    slices:
                      - {path: "a b/c#d?.ts"}
                      - {path: plain.ts}
                      - {path: signed.ts, url: "https://cdn.example.com:443/x/signed.ts?sig=s3cr3t#frag"}
                  - id: ported
                    base_url: https://h.example:8443/
                    slices:
                      - {path: "ü/ñ.bin"}
                  - id: bare
                    base_url: http://h.example/v1
                    slices:
                      - {path: x.bin}

                """)
        let manifest = try #require(ManifestLoader.load(paths: [dir.path("m.yaml")]).manifest)
        var checked = 0
        for resource in manifest.resources {
            let base = SliceAddress.Base.all(resource).first ?? nil
            #expect((base == nil) == (resource.id == "bare"), "\(resource.id)")
            for slice in resource.slices {
                let address = SliceAddress(slice, of: resource, base: base)
                #expect(address.url == resource.url(of: slice))
                #expect(address.identity == resource.identity(of: slice), "\(address.url)")
                let parsed = try ParsedURL.parse(address.url).get()
                #expect(address.origin == parsed.origin, "\(address.url)")
                checked += 1
            }
        }
        #expect(checked == 5)
    }
}
