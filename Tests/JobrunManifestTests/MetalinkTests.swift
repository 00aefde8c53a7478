import JobrunCore
import Testing

@testable import JobrunManifest

/// Metalink 4 (RFC 5854) catalogs: each file a slice with its size, hashes and URLs by priority;
/// URLs kept to the origins a catalog may lead to; hostile documents refused, located.
@Suite struct MetalinkTests {
    static let sha256 = String(repeating: "ab", count: 32)
    static let allowance = CatalogAllowance(origins: ["https://a.example.org"], hosts: [])

    static func slices(_ xml: String, allowance: CatalogAllowance = allowance) -> ([Slice], [String]) {
        var diagnostics = DiagnosticCollector()
        let slices = MetalinkSlices.slices(in: Array(xml.utf8), file: "M", allowance: allowance, diagnostics: &diagnostics)
        return (slices, diagnostics.diagnostics.map { "\($0.location?.line ?? 0): \($0.severity.rawValue): \($0.message)" })
    }

    @Test func filesAreSlicesWithTheirURLsByPriority() {
        let (slices, problems) = Self.slices(
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <metalink xmlns="urn:ietf:params:xml:ns:metalink" xmlns:x="urn:other">
              <published>2026-11-29T00:00:00Z</published>
              <file name="iso/debian.iso">
                <size>1234</size>
                <hash type="sha-256">\(Self.sha256.uppercased())</hash>
                <hash type="sha3-256">ignored</hash>
                <pieces length="262144" type="sha-1"><hash>\(String(repeating: "0", count: 40))</hash></pieces>
                <url priority="2" location="de">https://a.example.org/second/debian.iso</url>
                <url priority="1">https://a.example.org/first/debian.iso</url>
                <url>ftp://a.example.org/debian.iso</url>
                <metaurl mediatype="torrent" priority="1">https://a.example.org/debian.torrent</metaurl>
                <x:url>https://a.example.org/foreign</x:url>
              </file>
              <file name="notes.txt"><url><![CDATA[https://a.example.org/notes.txt]]></url></file>
            </metalink>
            """)
        #expect(problems.isEmpty, "\(problems)")
        #expect(slices.map(\.path) == ["iso/debian.iso", "notes.txt"])
        #expect(slices[0].urls == ["https://a.example.org/first/debian.iso", "https://a.example.org/second/debian.iso"])
        #expect(slices[0].size == 1234 && slices[0].digests.map(\.hex) == [Self.sha256])
        #expect(slices[0].location == SourceLocation(file: "M", line: 4, column: 1))
        #expect(slices[1].urls == ["https://a.example.org/notes.txt"] && slices[1].size == nil)
    }

    @Test func urlsLeadOnlyWhereTheCatalogMay() throws {
        let xml = """
            <metalink xmlns="urn:ietf:params:xml:ns:metalink">
              <file name="a.bin">
                <url>http://169.254.169.254/latest/meta-data/</url>
                <url>https://mirror.example.net/a.bin</url>
                <url>https://a.example.org/a.bin</url>
              </file>
              <file name="b.bin"><url>http://10.0.0.1/b.bin</url></file>
            </metalink>
            """
        let (slices, problems) = Self.slices(xml)
        #expect(slices.map(\.urls) == [["https://a.example.org/a.bin"]])
        #expect(
            problems.contains { $0.hasPrefix("3: warning: the URL 'http://169.254.169.254/latest/meta-data/' of 'a.bin' is at http://169.254.169.254") },
            "\(problems)")
        #expect(problems.contains("7: error: 'b.bin' has no http or https URL jobrun may fetch it from"), "\(problems)")
        let allowed = CatalogAllowance(origins: Self.allowance.origins, hosts: [try PathGlob("*.example.net")])
        #expect(Self.slices(xml, allowance: allowed).0.first?.urls == ["https://mirror.example.net/a.bin", "https://a.example.org/a.bin"])
    }

    @Test func hostileAndMalformedDocumentsAreRefusedAtTheirLine() {
        // An external entity is never fetched nor expanded: the URL is empty, so the file has none.
        let (xxe, xxeProblems) = Self.slices(
            """
            <?xml version="1.0"?>
            <!DOCTYPE metalink [<!ENTITY leak SYSTEM "file:///etc/passwd">]>
            <metalink xmlns="urn:ietf:params:xml:ns:metalink">
              <file name="a"><url>&leak;</url></file>
            </metalink>
            """)
        #expect(xxe.isEmpty && xxeProblems == ["2: error: a document type declaration (<!DOCTYPE …>) is not read in a Metalink"], "\(xxeProblems)")
        let (_, broken) = Self.slices("<metalink xmlns=\"urn:ietf:params:xml:ns:metalink\">\n<file name=\"a\">\n</metalink>\n")
        #expect(broken == ["2: error: the Metalink is not well-formed XML: Opening and ending tag mismatch: file line 2 and metalink"], "\(broken)")
        let (_, three) = Self.slices("<metalink version=\"3.0\" xmlns=\"http://www.metalinker.org/\"><files/></metalink>")
        #expect(three == ["1: error: the document is a Metalink 3 document; Metalink 4 (RFC 5854, .meta4) is read"], "\(three)")
        let (_, escaping) = Self.slices(
            "<metalink xmlns=\"urn:ietf:params:xml:ns:metalink\">\n<file name=\"../etc/x\"><url>https://a.example.org/x</url></file>\n<file name=\"y\"><size>-1</size><hash type=\"sha-256\">12</hash><url>https://a.example.org/y</url></file>\n</metalink>"
        )
        #expect(escaping.contains("2: error: file name '../etc/x' escapes the output root through '..'"), "\(escaping)")
        #expect(escaping.contains("3: error: 'size' is not a size: '-1'"), "\(escaping)")
        #expect(escaping.contains("3: error: the sha-256 hash of 'y' is not 64 hex digits"), "\(escaping)")
        let (_, empty) = Self.slices("")
        #expect(empty.count == 1, "\(empty)")
    }
}
