import JobrunCore
import JobrunTestSupport
import Testing
@testable import JobrunManifest

/// Slices decoded as the parser reads them (``SliceListReader``) are the slices, and the
/// diagnostics, that decoding the whole tree gives.
@Suite struct SliceListReaderTests {
    static let sha = String(repeating: "ab", count: 32)
    static let md5 = String(repeating: "cd", count: 16)

    static let manifest = """
        version: 1
        defaults:
          headers: {X-Team: media}
        resources:
          - id: a
            base_url: https://h.example/a/
            slices:
              - {path: one.ts, size: 10, sha256: \(sha)}
              - path: two/deep.ts
                md5: \(md5)
                sha256: \(sha)
                headers:
                  X-Slice: "2"
              - {path: own.ts, url: "https://other.example/x/own.ts?sig=1"}
            hooks:
              on_complete: [/bin/true]
          - id: b
            base_url: https://h.example/b/
            depends_on: [a]
            slices: [{path: "ü ber.ts", size: 0}]
        """

    /// The manifest decoded from the whole tree, the way it was before slices were collapsed.
    static func decodedFromTree(_ yaml: String) -> (resources: [Resource], diagnostics: [Diagnostic]) {
        let (document, yamlDiagnostics) = YAMLParser.parse(file: "m.yaml", bytes: Array(yaml.utf8))
        guard let document else { return ([], yamlDiagnostics) }
        var options = ManifestLoader.Options()
        options.environment = [:]
        var decoder = ManifestDecoder(doc: document, manifestDirectory: "", options: options)
        let resources = decoder.decode()
        return (resources, yamlDiagnostics + decoder.diagnostics.diagnostics)
    }

    /// The same, with a reader taking the slices as they are read.
    static func decodedWhileRead(_ yaml: String) -> (resources: [Resource], diagnostics: [Diagnostic], document: YAMLDocument?) {
        var options = ManifestLoader.Options()
        options.environment = [:]
        let reader = SliceListReader(file: "m.yaml", manifestDirectory: "", options: options)
        let (document, yamlDiagnostics) = YAMLParser.parse(file: "m.yaml", bytes: Array(yaml.utf8), itemSink: reader)
        guard let document else { return ([], yamlDiagnostics, nil) }
        var decoder = ManifestDecoder(doc: document, manifestDirectory: "", options: options, sliceLists: reader.lists)
        let resources = decoder.decode()
        return (resources, yamlDiagnostics + reader.decoder.diagnostics.diagnostics + decoder.diagnostics.diagnostics, document)
    }

    static func lines(_ diagnostics: [Diagnostic]) -> [String] {
        diagnostics.map { "\($0.location.map(\.description) ?? "-") \($0.severity.rawValue) \($0.message)" }.sorted()
    }

    static func describe(_ resources: [Resource]) -> [String] {
        resources.flatMap { r in
            r.slices.map { s in
                "\(r.id) \(s.path) \(s.url ?? "-") \(s.size.map(String.init) ?? "-") \(s.digests) \(s.headers.map { "\($0.name)=\($0.value)" }) \(s.location)"
            }
        }
    }

    @Test func theSlicesAreThoseOfTheWholeTree() throws {
        let tree = Self.decodedFromTree(Self.manifest)
        let read = Self.decodedWhileRead(Self.manifest)
        #expect(tree.diagnostics.isEmpty && read.diagnostics.isEmpty)
        #expect(Self.describe(read.resources) == Self.describe(tree.resources))
        #expect(Self.describe(read.resources).count == 4)
        #expect(read.resources.map(\.dependsOn.count) == [0, 1])
        #expect(read.resources.first?.settings.hooks.commands[.onComplete] == ["/bin/true"], "the rest of the resource is read from the tree as before")
        // Each list is one node in the tree: none of the slices' nodes stay.
        let document = try #require(read.document)
        let full = try #require(YAMLParser.parse(file: "m.yaml", bytes: Array(Self.manifest.utf8)).document)
        #expect(full.records.count - document.records.count >= 4 * 5)
    }

    @Test func badSlicesAreReportedOnceAsFromTheTree() {
        let yaml = """
            version: 1
            resources:
              - id: a
                base_url: https://h.example/a/
                slices:
                  - {path: ok.ts}
                  - {path: ../up.ts, size: -1}
                  - just-a-string
                  - {pth: typo.ts}
                  - [a, list]
                  - {path: x.ts, sha256: 12}
              - id: b
                base_url: https://h.example/b/
                slices:
                  - {path: "", size: 1}
            """
        let tree = Self.decodedFromTree(yaml)
        let read = Self.decodedWhileRead(yaml)
        #expect(Self.lines(read.diagnostics) == Self.lines(tree.diagnostics))
        #expect(read.diagnostics.count >= 6)
        // A resource whose every slice is wrong is not also said to have none.
        #expect(!read.diagnostics.contains { $0.message.contains("has no slices") })
        #expect(Self.describe(read.resources) == Self.describe(tree.resources))
    }

    @Test func aDocumentWithYAMLErrorsReportsThoseOnly() {
        let yaml = """
            version: 1
            resources:
              - id: a
                base_url: https://h.example/a/
                slices:
                  - {path: ../bad.ts}
                  - &anchor {path: b.ts}
            """
        let tree = Self.decodedFromTree(yaml)
        let loaded = (try? loadManifests(["m.yaml": yaml]))?.diagnostics ?? []
        #expect(loaded.map(\.message) == tree.diagnostics.map(\.message))
        #expect(loaded.contains { $0.message.contains("anchors are not allowed") })
        #expect(!loaded.contains { $0.message.contains("..") })
    }

    /// Only lists at `resources[*].slices` are taken: a `slices` key elsewhere stays in the tree.
    @Test func otherListsStayInTheTree() throws {
        let yaml = """
            version: 1
            defaults:
              slices: [{path: a}]
            resources:
              - id: a
                base_url: https://h.example/a/
                slices: [{path: x.ts}]
                depends_on: [{slices: [1]}]
            """
        let read = Self.decodedWhileRead(yaml)
        let tree = Self.decodedFromTree(yaml)
        #expect(Self.lines(read.diagnostics) == Self.lines(tree.diagnostics))
        #expect(read.diagnostics.contains { $0.message.contains("unknown key 'slices' in 'defaults'") })
    }
}

@Suite struct PathTableTests {
    /// Every path hashes alike: the exact paths decide.
    @Test func pathsWhoseHashesCollideStayApart() {
        let paths = ["/m/a", "/m/b", "/m/c/d", "/m/a"]
        var table = PathTable(capacity: 4, hash: { _ in 7 }) { paths[$0] }
        #expect(table.insert(paths[0], 0) == nil)
        #expect(table.insert(paths[1], 1) == nil)
        #expect(table.insert(paths[2], 2) == nil)
        #expect(table.insert(paths[3], 3) == 0, "the same path as number 0")
        #expect(table.insert("/m/b", 9) == 1)
        #expect(table.number(of: "/m/a") == 0 && table.number(of: "/m/b") == 1 && table.number(of: "/m/c/d") == 2)
        #expect(table.number(of: "/m/e") == nil)
    }

    @Test func fnv1aIsTheReferenceFunction() {
        #expect(PathTable.fnv1a("") == 0xcbf2_9ce4_8422_2325)
        #expect(PathTable.fnv1a("a") == 0xaf63_dc4c_8601_ec8c)
        #expect(PathTable.fnv1a("foobar") == 0x8594_4171_f739_67e8)
    }

    /// Through the validator: the same file from two resources is one collision, with its note.
    @Test func theValidatorStillFindsTheSameFileTwice() throws {
        let loaded = try loadManifests([
            "m.yaml": """
            version: 1
            resources:
              - {id: a, base_url: "https://h/", dest: x, slices: [{path: y/z.ts}, {path: q.ts}]}
              - {id: b, base_url: "https://h/", dest: x/y, slices: [{path: z.ts}]}
              - {id: c, base_url: "https://h/", dest: x, slices: [{path: q.ts/r.ts}]}
            """
        ])
        #expect(loaded.rendered.contains("two slices write the same file 'mirror/x/y/z.ts'"), "\(loaded.rendered)")
        #expect(loaded.rendered.contains("the other slice is here"))
        #expect(loaded.rendered.contains("slice file 'mirror/x/q.ts' is also a folder that another slice writes into"), "\(loaded.rendered)")
    }
}
