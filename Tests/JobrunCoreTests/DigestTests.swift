import Testing
@testable import JobrunCore

@Suite struct DigestTests {
    @Test func hexLengthsAreDistinctPerAlgorithm() {
        #expect(DigestAlgorithm.allCases.map(\.hexLength) == [32, 40, 56, 64, 96, 128])
        for a in DigestAlgorithm.allCases {
            #expect(DigestAlgorithm.candidates(forHexLength: a.hexLength) == [a])
        }
        #expect(DigestAlgorithm.candidates(forHexLength: 63).isEmpty)
    }

    @Test func parsesAnyCaseAndRendersLowerCase() throws {
        let upper = "9F86D081884C7D659A2FEAA0C55AD015A3BF4F1B2B0B822CD15D6C15B0F00A08"
        let d = try #require(Digest(algorithm: .sha256, hex: upper))
        #expect(d.hex == upper.lowercased())
        #expect(d.bytes.count == 32)
        #expect(d.description == "sha256:" + upper.lowercased())
    }

    @Test func refusesWrongLengthOrAlphabet() {
        #expect(Digest(algorithm: .md5, hex: "0cc175b9c0f1b6a831c399e26977266") == nil)
        #expect(Digest(algorithm: .md5, hex: "0cc175b9c0f1b6a831c399e26977266g") == nil)
        #expect(Digest.firstNonHex(in: "abcxef")?.offset == 3)
        #expect(Digest.firstNonHex(in: "abcdef") == nil)
    }
}

@Suite struct DiagnosticRendererTests {
    @Test func rendersLineAndCaretAndNotes() {
        var sources = SourceFiles()
        sources.add("m.yaml", bytes: Array("version: 1\nresources:\n  - id: a\n    checksumm: sha256\n".utf8))
        let d = Diagnostic.error(
            "unknown key 'checksumm' in a resource (did you mean 'checksum'?)",
            at: JobrunCore.SourceLocation(file: "m.yaml", line: 4, column: 5),
            notes: [.note("the resource starts here", at: JobrunCore.SourceLocation(file: "m.yaml", line: 3, column: 5))])
        #expect(
            DiagnosticRenderer(sources: sources).render(d) == """
                m.yaml:4:5: error: unknown key 'checksumm' in a resource (did you mean 'checksum'?)
                    checksumm: sha256
                    ^
                m.yaml:3:5: note: the resource starts here
                  - id: a
                    ^

                """)
    }

    @Test func caretCountsUnicodeScalarsAndKeepsTabs() {
        var sources = SourceFiles()
        sources.add("u.yaml", bytes: Array("\tkey: \u{00FC}ber: x\r\n".utf8))
        let d = Diagnostic.warning("here", at: JobrunCore.SourceLocation(file: "u.yaml", line: 1, column: 12))
        #expect(DiagnosticRenderer(sources: sources).render(d) == "u.yaml:1:12: warning: here\n\tkey: \u{00FC}ber: x\n\t          ^\n")
    }

    @Test func controlCharactersAreShownSafely() {
        var sources = SourceFiles()
        sources.add("c.yaml", bytes: [0x61, 0x1B, 0x62, 0x0A])
        let d = Diagnostic.error("bad", at: JobrunCore.SourceLocation(file: "c.yaml", line: 1, column: 2))
        #expect(DiagnosticRenderer(sources: sources).render(d) == "c.yaml:1:2: error: bad\na\u{FFFD}b\n ^\n")
    }

    @Test func unlocatedAndMissingLines() {
        let r = DiagnosticRenderer(sources: SourceFiles())
        #expect(r.render(.error("no place", at: nil)) == "jobrun: error: no place\n")
        #expect(r.render(.error("gone", at: JobrunCore.SourceLocation(file: "x.yaml", line: 9, column: 1))) == "x.yaml:9:1: error: gone\n")
    }

    @Test func collectorSortsByLocation() {
        var c = DiagnosticCollector()
        c.error("b", at: JobrunCore.SourceLocation(file: "b.yaml", line: 1, column: 1))
        c.warning("a2", at: JobrunCore.SourceLocation(file: "a.yaml", line: 2, column: 1))
        c.error("a1", at: JobrunCore.SourceLocation(file: "a.yaml", line: 1, column: 9))
        c.error("none", at: nil)
        #expect(c.sorted.map(\.message) == ["none", "a1", "a2", "b"])
        #expect(c.errorCount == 3)
        #expect(c.warningCount == 1)
        #expect(c.hasErrors)
    }
}

@Suite struct ExitStatusTests {
    @Test func valuesAreTheDocumentedContract() {
        #expect(ExitStatus.allCases.map(\.rawValue) == [0, 1, 2, 64, 65, 66, 74, 75, 130, 143])
    }
}

@Suite struct DigestMismatchTests {
    @Test func everyDeclaredDigestDifferingOnesFirst() throws {
        let md5 = try #require(Digest(algorithm: .md5, hex: String(repeating: "0", count: 32)))
        let sha256 = try #require(Digest(algorithm: .sha256, hex: String(repeating: "a", count: 64)))
        let otherSHA256 = try #require(Digest(algorithm: .sha256, hex: String(repeating: "b", count: 64)))
        let text = Digest.mismatchDescription(expected: [md5, sha256], actual: [md5, otherSHA256])
        #expect(text == "sha256 differs: expected \(sha256.hex), actual \(otherSHA256.hex); md5 matches")
        #expect(
            Digest.comparisonLines(expected: [sha256], actual: [md5, otherSHA256]) == "expected sha256: \(sha256.hex)\nactual sha256: \(otherSHA256.hex)\n")
    }
}
