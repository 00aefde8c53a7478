import JobrunCore
import Testing
@testable import JobrunManifest

/// `base_urls` and a slice's `urls`: the origins in order, each one's URL and headers, and the
/// URLs and headers a slice is fetched with at each. The mistakes are in the broken corpus
/// (`70-origins.yaml`).
@Suite struct OriginDecodingTests {
    @Test func originsAreKeptInOrderWithTheirOwnHeaders() throws {
        let loaded = try loadManifests([
            "m.yaml": """
            version: 1
            resources:
              - id: r
                headers: {X-Everyone: all, X-Mirror: default}
                base_urls:
                  - https://a.example/x/
                  - url: https://b.example/y/
                    headers: {Authorization: "Bearer b", X-Mirror: b}
                    per_host: 2
                    weight: 3
                slices:
                  - {path: "one two.bin", headers: {X-Slice: s, X-Mirror: slice}}
                  - {path: own.bin, urls: ["https://c.example/own.bin?sig=1", https://d.example/own.bin]}
              - id: single
                base_url: https://e.example/
                slices: [{path: f.bin}]
            """
        ])
        let m = try #require(loaded.manifest, "\(loaded.rendered)")
        let r = m.resources[0]
        #expect(r.origins.map(\.url) == ["https://a.example/x/", "https://b.example/y/"])
        #expect(r.baseURL == "https://a.example/x/")
        #expect(r.origins[0].headers.isEmpty)
        #expect(r.origins.map(\.perHost) == [nil, 2] && r.origins.map(\.weight) == [1, 3])
        #expect(r.origins[1].headers.allSatisfy { $0.staysAtOrigin })
        let (one, own) = (r.slices[0], r.slices[1])
        #expect(r.urlCount(of: one) == 2 && r.urlCount(of: own) == 2)
        #expect(r.url(of: one, at: 0) == "https://a.example/x/one%20two.bin")
        #expect(r.url(of: one, at: 1) == "https://b.example/y/one%20two.bin")
        #expect(r.url(of: own, at: 0) == "https://c.example/own.bin?sig=1" && r.url(of: own, at: 1) == "https://d.example/own.bin")
        #expect(own.url == "https://c.example/own.bin?sig=1" && own.urls.count == 2)
        #expect(r.identity(of: own) == "https://c.example/own.bin")
        func headers(_ s: Slice, at k: Int) -> [String] {
            r.headers(for: s, at: k).map { "\($0.name)=\($0.value)\($0.staysAtOrigin ? " (origin)" : "")" }
        }
        // The slice's headers over the resource's; the origin's over both, at that origin only.
        #expect(headers(one, at: 0) == ["X-Everyone=all", "X-Mirror=slice", "X-Slice=s"])
        #expect(headers(one, at: 1) == ["Authorization=Bearer b (origin)", "X-Everyone=all", "X-Mirror=b (origin)", "X-Slice=s"])
        // A slice with its own URLs takes no origin's headers.
        #expect(headers(own, at: 1) == ["X-Everyone=all", "X-Mirror=default"])
        let single = m.resources[1]
        #expect(single.origins.map(\.url) == ["https://e.example/"] && single.urlCount(of: single.slices[0]) == 1)
    }

    @Test func aSecretForTheWholeResourceOverSeveralOriginsIsWarnedOf() throws {
        let loaded = try loadManifests([
            "m.yaml": """
            version: 1
            resources:
              - id: r
                headers: {Authorization: "Bearer all"}
                base_urls: [https://a.example/, https://b.example/]
                slices: [{path: f.bin}]
              - id: one-host
                headers: {Authorization: "Bearer all"}
                base_urls: [https://a.example/x/, https://a.example/y/]
                slices: [{path: f.bin}]
              - id: slice-secret
                base_urls: [https://a.example/, https://b.example/]
                slices: [{path: f.bin}, {path: g.bin, headers: {X-Api-Key: "slice-secret-value"}}]
              - id: own-urls
                headers: {Authorization: "Bearer all"}
                slices: [{path: f.bin, urls: [https://a.example/f.bin, https://b.example/f.bin]}]
            """
        ])
        #expect(loaded.manifest != nil)
        #expect(
            loaded.rendered.contains(
                "m.yaml:5:16: warning: header 'Authorization' is secret and given for the whole resource: it goes to each of its 2 origins; give it under the origin it belongs to ('base_urls' entries take 'headers')"
            ), "\(loaded.rendered)")
        #expect(!loaded.rendered.contains("Bearer all"), "a literal credential is never quoted")
        #expect(
            loaded.rendered.contains(
                "m.yaml:13:29: warning: header 'X-Api-Key' of slice 'g.bin' is secret: it goes to each of its resource's 2 origins; give it under the origin it belongs to"
            ), "\(loaded.rendered)")
        #expect(
            loaded.rendered.contains("m.yaml:16:14: warning: header 'Authorization' is secret and goes to each of the 2 hosts of slice 'f.bin''s 'urls'"),
            "\(loaded.rendered)")
        #expect(loaded.rendered.components(separatedBy: "is secret and given").count == 2, "one host: no such warning (\(loaded.rendered))")
        #expect(!loaded.rendered.contains("slice-secret-value"))
    }

    @Test func atMost64URLsASlice() throws {
        let many = (0...64).map { "https://m\($0).example/" }
        let text = try diagnose(
            """
            version: 1
            resources:
              - id: r
                base_urls: [\(many.joined(separator: ", "))]
                slices: [{path: a.bin, urls: [\(many.map { $0 + "a.bin" }.joined(separator: ", "))]}]
            """)
        #expect(text.contains("m.yaml:4:16: error: 'base_urls' has 65 entries; at most 64 are allowed"), "\(text)")
        #expect(text.contains("error: 'urls' has 65 entries; at most 64 are allowed"), "\(text)")
    }
}
