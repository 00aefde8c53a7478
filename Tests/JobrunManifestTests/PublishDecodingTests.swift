import JobrunCore
import Testing

@testable import JobrunManifest

/// `publish:` in `defaults` and resources, and the folders an atomic publication needs.
@Suite struct PublishDecodingTests {
    @Test func scalarAndMappingFormsMergeOverDefaults() throws {
        let loaded = try loadManifests([
            "m.yaml": """
            version: 1
            defaults:
              publish: {mode: atomic, grace: 2h}
            resources:
              - id: a
                slices: [{path: x, url: "https://example.com/x"}]
              - id: b
                publish: {grace: 5m}
                slices: [{path: x, url: "https://example.com/x"}]
              - id: c
                publish: in_place
                slices: [{path: x, url: "https://example.com/x"}]
            """
        ])
        #expect(loaded.rendered == "")
        let settings = try #require(loaded.manifest).resources.map(\.settings.publish)
        #expect(settings[0] == PublishPolicy(mode: .atomic, grace: .seconds(7200)))
        #expect(settings[1] == PublishPolicy(mode: .atomic, grace: .seconds(300)))
        #expect(settings[2] == PublishPolicy(mode: .inPlace, grace: .seconds(7200)))
    }

    @Test func theDefaultIsInPlace() throws {
        let loaded = try loadManifests(["m.yaml": "version: 1\nresources:\n  - id: a\n    slices: [{path: x, url: \"https://example.com/x\"}]\n"])
        #expect(try #require(loaded.manifest).resources[0].settings.publish == PublishPolicy())
        #expect(PublishPolicy().grace == .seconds(900) && !PublishPolicy().isAtomic)
    }

    @Test func mistakesAreLocatedAllAtOnce() throws {
        let text = try diagnose(
            """
            version: 1
            resources:
              - id: a
                publish: atomik
                slices: [{path: x, url: "https://example.com/x"}]
              - id: b
                publish: {mode: atomic, grace: 9d, when: now}
                slices: [{path: x, url: "https://example.com/x"}]
              - id: c
                publish: [atomic]
                slices: [{path: x, url: "https://example.com/x"}]
            """)
        #expect(text.contains("m.yaml:4:14: error: 'publish' must be in_place or atomic, found 'atomik' (did you mean 'atomic'?)"), "\(text)")
        #expect(text.contains("m.yaml:7:40: error: unknown key 'when' in 'publish'"), "\(text)")
        #expect(text.contains("m.yaml:7:36: error: 'grace' is out of range: 9d (allowed: 0ms…7d)"), "\(text)")
        #expect(text.contains("m.yaml:10:14: error: 'publish' must be in_place or atomic, or a mapping with 'mode' and 'grace'; found a list"), "\(text)")
    }

    @Test func anAtomicFolderIsItsOwn() throws {
        let text = try diagnose(
            """
            version: 1
            resources:
              - id: root
                dest: null
                publish: atomic
                slices: [{path: x, url: "https://example.com/x"}]
              - id: site
                publish: atomic
                slices: [{path: x, url: "https://example.com/x"}]
              - id: inside
                dest: site/extra
                slices: [{path: y, url: "https://example.com/y"}]
              - id: around
                dest: null
                slices: [{path: site/z, url: "https://example.com/z"}, {path: elsewhere, url: "https://example.com/e"}]
              - id: beside
                dest: null
                slices: [{path: other/z, url: "https://example.com/z"}]
            """)
        #expect(text.contains("m.yaml:3:9: error: resource 'root' has 'publish: atomic' but no 'dest'"), "\(text)")
        #expect(
            text.contains(
                "error: resource 'site' has 'publish: atomic', which switches 'mirror/site' whole, but resource 'inside' writes into a folder inside it"),
            "\(text)")
        #expect(
            text.contains("error: resource 'site' has 'publish: atomic', which switches 'mirror/site' whole, but resource 'around' has slices inside it"),
            "\(text)")
        #expect(!text.contains("'beside'"), "\(text)")
        #expect(!text.contains("resource 'root' has 'publish: atomic', which switches"), "\(text)")
    }
}
