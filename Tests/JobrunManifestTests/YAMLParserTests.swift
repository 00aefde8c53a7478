import JobrunCore
import Testing

@testable import JobrunManifest

/// Parses `bytes` as `m.yaml`; returns the document and the diagnostics rendered like the CLI does.
/// Each input is parsed twice, as asked and read ahead on a thread (``YAMLEventSource``): both
/// must give the same document and the same diagnostics.
private func parse(_ bytes: [UInt8], sizeLimit: Int = YAMLParser.maximumFileSize) -> (document: YAMLDocument?, rendered: String) {
    var sources = SourceFiles()
    sources.add("m.yaml", bytes: bytes)
    let (document, diagnostics) = YAMLParser.parse(file: "m.yaml", bytes: bytes, sizeLimit: sizeLimit, threadedSize: .max)
    let (ahead, aheadDiagnostics) = YAMLParser.parse(file: "m.yaml", bytes: bytes, sizeLimit: sizeLimit, threadedSize: 0)
    let rendered = DiagnosticRenderer(sources: sources).render(diagnostics)
    #expect(aheadDiagnostics == diagnostics && ahead == document, "read ahead on a thread")
    return (document, rendered)
}

private func parse(_ text: String) -> (document: YAMLDocument?, rendered: String) { parse(Array(text.utf8)) }

/// The document of input that must parse cleanly.
private func document(_ text: String) throws -> YAMLDocument {
    let (document, rendered) = parse(text)
    #expect(rendered == "")
    return try #require(document)
}

private let anchorMessage = "YAML anchors are not allowed in manifests (manifests are data; aliases are how expansion bombs work)"
private let aliasMessage = "YAML aliases are not allowed in manifests (manifests are data; aliases are how expansion bombs work)"
private let tagMessage = "YAML tags are not allowed in manifests (manifests are data; write the value without '!…')"

// MARK: - Tree shape

@Test func nestedMappingsAndSequencesFormATree() throws {
    let doc = try document(
        """
        name: site
        slices:
          - path: a.bin
            size: 10
          - [x, y]
        empty: {}
        """)
    let root = try #require(doc.root)
    #expect(root.index == 0)
    #expect(doc.kind(root) == .mapping)
    #expect(doc.count(root) == 3)
    #expect(doc.pairs(root).map { doc.scalar($0.key) } == ["name", "slices", "empty"])

    let slices = try #require(doc.value(forKey: "slices", in: root))
    #expect(doc.kind(slices) == .sequence)
    #expect(doc.count(slices) == 2)
    let first = doc.items(slices)[0]
    #expect(doc.kind(first) == .mapping)
    #expect(doc.value(forKey: "path", in: first).map(doc.scalar) == "a.bin")
    #expect(doc.value(forKey: "size", in: first).map(doc.scalar) == "10")
    #expect(doc.value(forKey: "missing", in: first) == nil)
    let flow = doc.items(slices)[1]
    #expect(doc.kind(flow) == .sequence)
    #expect(doc.items(flow).map(doc.scalar) == ["x", "y"])

    let empty = try #require(doc.value(forKey: "empty", in: root))
    #expect(doc.kind(empty) == .mapping)
    #expect(doc.count(empty) == 0)
    #expect(doc.pairs(empty).isEmpty)
    #expect(doc.kindDescription(empty) == "a mapping")
    #expect(doc.kindDescription(slices) == "a list")

    // Other kinds answer with nothing rather than trapping.
    #expect(doc.items(root).isEmpty)
    #expect(doc.pairs(slices).isEmpty)
    #expect(doc.scalar(root) == "")
    #expect(doc.value(forKey: "name", in: slices) == nil)
}

@Test func nodesAreNumberedInPreOrder() throws {
    let doc = try document("a: [b, c]\nd: e\n")
    let root = try #require(doc.root)
    // mapping(0) a(1) [ ](2) b(3) c(4) d(5) e(6)
    let pairs = doc.pairs(root)
    #expect(pairs.map { [$0.key.index, $0.value.index] } == [[1, 2], [5, 6]])
    #expect(doc.items(pairs[0].value).map(\.index) == [3, 4])
    #expect(doc.records.count == 7)
}

@Test func scalarStylesAndContents() throws {
    let doc = try document(
        """
        plain: one two
        single: 'it''s'
        double: "tab\\tend"
        literal: |
          line 1
          line 2
        folded: >
          joined
          words

        """)
    let root = try #require(doc.root)
    func check(_ key: StaticString, _ style: YAMLDocument.ScalarStyle, _ text: String) throws {
        let node = try #require(doc.value(forKey: key, in: root))
        #expect(doc.kind(node) == .scalar)
        #expect(doc.style(node) == style)
        #expect(doc.scalar(node) == text)
    }
    try check("plain", .plain, "one two")
    try check("single", .singleQuoted, "it's")
    try check("double", .doubleQuoted, "tab\tend")
    try check("literal", .literal, "line 1\nline 2\n")
    try check("folded", .folded, "joined words\n")
}

@Test func locationsAreOneBasedLineAndColumn() throws {
    let doc = try document("top:\n  inner: value\n  list:\n    - item\n")
    let root = try #require(doc.root)
    let top = try #require(doc.value(forKey: "top", in: root))
    let inner = try #require(doc.value(forKey: "inner", in: top))
    let item = try #require(doc.value(forKey: "list", in: top).map { doc.items($0)[0] })
    #expect(doc.location(root) == SourceLocation(file: "m.yaml", line: 1, column: 1))
    #expect(doc.location(doc.pairs(root)[0].key) == SourceLocation(file: "m.yaml", line: 1, column: 1))
    #expect(doc.location(top) == SourceLocation(file: "m.yaml", line: 2, column: 3))
    #expect(doc.location(inner) == SourceLocation(file: "m.yaml", line: 2, column: 10))
    #expect(doc.location(item) == SourceLocation(file: "m.yaml", line: 4, column: 7))
}

@Test func columnsCountUnicodeScalarsAndSkipTheByteOrderMark() throws {
    let bytes: [UInt8] = [0xEF, 0xBB, 0xBF] + Array("é: ü\n日本語: 🎉 party\n".utf8)
    let (parsed, rendered) = parse(bytes)
    #expect(rendered == "")
    let doc = try #require(parsed)
    let root = try #require(doc.root)
    let pairs = doc.pairs(root)
    #expect(doc.scalar(pairs[0].key) == "é")
    #expect(doc.location(pairs[0].value) == SourceLocation(file: "m.yaml", line: 1, column: 4))
    #expect(doc.location(pairs[1].value) == SourceLocation(file: "m.yaml", line: 2, column: 6))
    #expect(doc.scalar(pairs[1].value) == "🎉 party")
}

@Test func aByteOrderMarkDoesNotShiftTheCaret() {
    // The mark is neither counted in columns nor quoted, so the caret lines up.
    #expect(
        parse([0xEF, 0xBB, 0xBF] + Array("a: *x\n".utf8)).rendered == """
            m.yaml:1:4: error: \(aliasMessage)
            a: *x
               ^

            """)
}

@Test func nullIsDetectedOnlyForPlainNullSpellings() throws {
    let doc = try document(
        """
        a: ~
        b: null
        c: Null
        d: NULL
        e:
        f: "null"
        g: ''
        h: nil
        i: nulls
        """)
    let root = try #require(doc.root)
    let isNull = doc.pairs(root).map { doc.isNull($0.value) }
    #expect(isNull == [true, true, true, true, true, false, false, false, false])
    let e = try #require(doc.value(forKey: "e", in: root))
    #expect(doc.kindDescription(e) == "null")
    #expect(doc.scalar(e) == "")
}

@Test func scalarEqualsComparesBytes() throws {
    let doc = try document("key: sha256\n")
    let value = try #require(doc.root.flatMap { doc.value(forKey: "key", in: $0) })
    #expect(doc.scalar(value, equals: "sha256"))
    #expect(!doc.scalar(value, equals: "sha25"))
    #expect(!doc.scalar(value, equals: "sha2566"))
}

@Test func aLoneScalarIsADocument() throws {
    let doc = try document("just text\n")
    let root = try #require(doc.root)
    #expect(doc.kind(root) == .scalar)
    #expect(doc.scalar(root) == "just text")
}

// MARK: - Empty input

@Test(arguments: ["", "\n\n", "# only a comment\n", "  # indented comment\n# another\n", "\u{FEFF}"])
func emptyInputHasNoDocumentAndNoDiagnostics(_ text: String) {
    let (document, rendered) = parse(text)
    #expect(document == nil)
    #expect(rendered == "")
}

// MARK: - Rule 1: size

@Test func anOversizedFileIsRejectedWithoutParsing() {
    let bytes = [UInt8](repeating: UInt8(ascii: "["), count: (1 << 20) + 1)
    let (document, rendered) = parse(bytes, sizeLimit: 1 << 20)
    #expect(document == nil)
    #expect(rendered.hasPrefix("m.yaml:1:1: error: manifest is 1048577 bytes; the limit is 1 MiB\n"))
    #expect(YAMLParser.maximumFileSize == 256 * 1024 * 1024)
}

// MARK: - Rule 2: encoding

@Test func invalidUTF8IsReportedAtTheBadByte() {
    let (document, rendered) = parse(Array("name: ok\ntitle: caf".utf8) + [0xE9] + Array(" au lait\n".utf8))
    #expect(document == nil)
    #expect(
        rendered == """
            m.yaml:2:11: error: invalid UTF-8 (byte 0xE9 starts a sequence that is cut short); a manifest must be UTF-8 text
            title: caf\u{FFFD} au lait
                      ^

            """)
}

@Test func aStrayContinuationByteAfterMultiByteCharacters() {
    let (_, rendered) = parse(Array("ключ: ".utf8) + [0x80] + Array("\n".utf8))
    #expect(
        rendered == """
            m.yaml:1:7: error: invalid UTF-8 (byte 0x80 is a continuation byte without a lead byte); a manifest must be UTF-8 text
            ключ: \u{FFFD}
                  ^

            """)
}

@Test func encodedSurrogatesAndOverlongsAreInvalid() {
    #expect(
        parse([0x61, 0x3A, 0x20, 0xED, 0xA0, 0x80]).rendered.hasPrefix(
            "m.yaml:1:4: error: invalid UTF-8 (byte 0xED starts an encoded UTF-16 surrogate)"))
    #expect(
        parse([0x61, 0x3A, 0x20, 0xC0, 0xAF]).rendered.hasPrefix(
            "m.yaml:1:4: error: invalid UTF-8 (byte 0xC0 starts an overlong encoding)"))
    #expect(
        parse([0x61, 0x3A, 0x20, 0xF4, 0x90, 0x80, 0x80]).rendered.hasPrefix(
            "m.yaml:1:4: error: invalid UTF-8 (byte 0xF4 starts a code point beyond U+10FFFF)"))
}

@Test func utf16IsRejectedWithoutRunningLibYAML() {
    let (document, rendered) = parse([0xFF, 0xFE, 0x61, 0x00, 0x3A, 0x00])
    #expect(document == nil)
    #expect(
        rendered == """
            m.yaml:1:1: error: invalid UTF-8 (the file starts with a UTF-16 byte order mark); save the manifest as UTF-8
            \u{FFFD}\u{FFFD}a\u{FFFD}:\u{FFFD}
            ^

            """)
}

@Test func nulAndControlCharactersAreErrors() {
    let (document, rendered) = parse(Array("a: 1\nb: \"x".utf8) + [0x00] + Array("y\"\nc: bell".utf8) + [0x07] + [0x0A])
    #expect(document == nil)
    #expect(
        rendered == """
            m.yaml:2:6: error: NUL byte in manifest; a manifest must be text, not binary data
            b: "x\u{FFFD}y"
                 ^
            m.yaml:3:8: error: control character U+0007 is not allowed in YAML; write it as an escape in a double-quoted string
            c: bell\u{FFFD}
                   ^

            """)
}

@Test func c1ControlsAndNoncharactersAreErrorsButOtherUnicodeIsFine() throws {
    #expect(parse("a: \u{9B}\n").rendered.hasPrefix("m.yaml:1:4: error: control character U+009B is not allowed in YAML"))
    #expect(parse("a: \u{FFFF}\n").rendered.hasPrefix("m.yaml:1:4: error: character U+FFFF is not allowed in YAML"))
    let doc = try document("a: \u{A0}\u{FEFF}\u{10FFFF}\u{E000}\n")
    #expect(doc.root.flatMap { doc.value(forKey: "a", in: $0) }.map(doc.scalar) == "\u{A0}\u{FEFF}\u{10FFFF}\u{E000}")
}

// MARK: - Rule 3: tabs

@Test func tabIndentationIsReportedPerLine() {
    let (document, rendered) = parse("a:\n\tb: 1\n  c: 2\n \td: 3\n")
    #expect(document == nil)
    // libyaml's own complaint about line 2 is dropped: the pre-scan already explained it.
    #expect(
        rendered == """
            m.yaml:2:1: error: tab character in indentation; YAML indents with spaces
            \tb: 1
            ^
            m.yaml:4:2: error: tab character in indentation; YAML indents with spaces
             \td: 3
             ^

            """)
}

@Test func tabsInsideScalarsAreFine() throws {
    let doc = try document("script: |\n  make\n  \tindented\nquoted: \"a\tb\"\nkey:\tvalue\n")
    let root = try #require(doc.root)
    #expect(doc.value(forKey: "script", in: root).map(doc.scalar) == "make\n\tindented\n")
    #expect(doc.value(forKey: "quoted", in: root).map(doc.scalar) == "a\tb")
    #expect(doc.value(forKey: "key", in: root).map(doc.scalar) == "value")
}

@Test func aTabOnABlankLineIsReportedOnlyWhenLibYAMLRejectsIt() throws {
    _ = try document("a: x\n  \t\nb: 2\n")
    #expect(
        parse("a: x\n\t\nb: 2\n").rendered == """
            m.yaml:2:1: error: tab character in indentation; YAML indents with spaces
            \t
            ^

            """)
}

@Test func manyTabIndentedLinesEndInOneSummary() {
    var text = "a:\n"
    for k in 0..<25 { text += "\tk\(k): \(k)\n" }
    let (document, rendered) = parse(text)
    #expect(document == nil)
    var expected = ""
    for k in 0..<20 {
        expected += "m.yaml:\(k + 2):1: error: tab character in indentation; YAML indents with spaces\n\tk\(k): \(k)\n^\n"
    }
    expected += "m.yaml:22:1: error: … and 5 more lines with a tab character in indentation\n\tk20: 20\n^\n"
    #expect(rendered == expected)
}

// MARK: - Rule 4: syntax errors

@Test func syntaxErrorWithoutContext() {
    let (document, rendered) = parse("a: b: c\n")
    #expect(document == nil)
    #expect(
        rendered == """
            m.yaml:1:5: error: mapping values are not allowed in this context
            a: b: c
                ^

            """)
}

@Test func syntaxErrorWithContextNote() {
    #expect(
        parse("a:\n  b:\n    c: 1\n   d: 2\n").rendered == """
            m.yaml:4:4: error: did not find expected key (while parsing a block mapping)
               d: 2
               ^
            m.yaml:2:3: note: the block mapping starts here
              b:
              ^

            """)
    #expect(
        parse("a: [1, 2\nb: 3\n").rendered == """
            m.yaml:2:2: error: did not find expected ',' or ']' (while parsing a flow sequence)
            b: 3
             ^
            m.yaml:1:4: note: the flow sequence starts here
            a: [1, 2
               ^

            """)
}

@Test func syntaxErrorsStillComeWithPreScanProblems() {
    // The pre-scan's findings past the point where libyaml gives up are kept.
    #expect(
        parse("a: b: c\nd:\n\te: 1\n").rendered == """
            m.yaml:1:5: error: mapping values are not allowed in this context
            a: b: c
                ^
            m.yaml:3:1: error: tab character in indentation; YAML indents with spaces
            \te: 1
            ^

            """)
    #expect(
        parse("a: 'open\nb: 1\n").rendered == """
            m.yaml:3:1: error: found unexpected end of stream (while scanning a quoted scalar)

            ^
            m.yaml:1:4: note: the quoted scalar starts here
            a: 'open
               ^

            """)
}

// MARK: - Rule 5: anchors, aliases, tags, merge keys

@Test func anchorsAliasesTagsAndMergeKeysAreAllReported() {
    let (document, rendered) = parse(
        """
        base: &b {x: 1}
        other: *b
        t: !!str 5
        u: !local [1]
        v: !!binary aGk=
        <<: {y: 2}
        "<<": quoted is just a key
        """)
    #expect(document == nil)
    #expect(
        rendered == """
            m.yaml:1:7: error: \(anchorMessage)
            base: &b {x: 1}
                  ^
            m.yaml:2:8: error: \(aliasMessage)
            other: *b
                   ^
            m.yaml:3:4: error: \(tagMessage)
            t: !!str 5
               ^
            m.yaml:4:4: error: \(tagMessage)
            u: !local [1]
               ^
            m.yaml:5:4: error: \(tagMessage)
            v: !!binary aGk=
               ^
            m.yaml:6:1: error: merge keys ('<<') are not allowed in manifests; write the keys out
            <<: {y: 2}
            ^
            m.yaml:7:1: error: duplicate key '<<'
            "<<": quoted is just a key
            ^
            m.yaml:6:1: note: first defined here
            <<: {y: 2}
            ^

            """)
}

@Test func aliasesAsKeysAreNotDuplicatesOfEachOther() {
    #expect(
        parse("{*a : 1, *b : 2}\n").rendered == """
            m.yaml:1:2: error: \(aliasMessage)
            {*a : 1, *b : 2}
             ^
            m.yaml:1:10: error: \(aliasMessage)
            {*a : 1, *b : 2}
                     ^

            """)
}

// MARK: - Rule 6: one document

@Test func aSecondDocumentIsAnError() {
    #expect(
        parse("a: 1\n---\nb: 2\n").rendered == """
            m.yaml:2:1: error: a manifest must contain exactly one YAML document
            ---
            ^

            """)
    #expect(
        parse("---\na: 1\n...\n---\n").rendered == """
            m.yaml:4:1: error: a manifest must contain exactly one YAML document
            ---
            ^

            """)
}

@Test func explicitMarkersAroundOneDocumentAreFine() throws {
    let doc = try document("---\na: 1\n...\n")
    #expect(doc.root.map { doc.count($0) } == 1)
}

// MARK: - Rule 7: depth

@Test func sixtyFourLevelsAreAllowed() throws {
    #expect(YAMLParser.maximumDepth == 64)
    let doc = try document(String(repeating: "[", count: 64) + String(repeating: "]", count: 64))
    #expect(doc.records.count == 64)
}

@Test func theSixtyFifthLevelIsReportedOnce() {
    let text = String(repeating: "[", count: 65) + "x" + String(repeating: "]", count: 65) + "\n"
    let (document, rendered) = parse(text)
    #expect(document == nil)
    #expect(rendered == "m.yaml:1:65: error: nesting deeper than 64 levels\n\(text)" + String(repeating: " ", count: 64) + "^\n")
}

@Test func blockNestingCountsToo() {
    var text = ""
    for level in 0..<70 { text += String(repeating: " ", count: level) + "k:\n" }
    #expect(
        parse(text).rendered == """
            m.yaml:65:65: error: nesting deeper than 64 levels
            \(String(repeating: " ", count: 64))k:
            \(String(repeating: " ", count: 64))^

            """)
}

@Test(arguments: ["[", "{a: ", "- "])
func hostileNestingIsRefusedQuickly(_ opener: String) {
    // 100,000 levels: must neither recurse nor let libyaml's quadratic flow scanner run away.
    let text = String(repeating: opener, count: 100_000)
    let diagnostics = YAMLParser.parse(file: "m.yaml", bytes: Array(text.utf8)).diagnostics
    #expect(diagnostics.map(\.message) == ["nesting deeper than 64 levels"])
}

// MARK: - Rule 8: scalar keys

@Test func collectionKeysAreErrors() {
    #expect(
        parse("[a, b]: 1\n{c: d}: 2\n? - x\n: 3\n").rendered == """
            m.yaml:1:1: error: mapping keys must be plain strings
            [a, b]: 1
            ^
            m.yaml:2:1: error: mapping keys must be plain strings
            {c: d}: 2
            ^
            m.yaml:3:3: error: mapping keys must be plain strings
            ? - x
              ^

            """)
}

// MARK: - Rule 9: duplicate keys

@Test func duplicateKeysPointAtTheFirstDefinition() {
    let (document, rendered) = parse("a: 1\nb: 2\n'a': 3\nc: {b: 1, b: 2}\n")
    #expect(document == nil)
    #expect(
        rendered == """
            m.yaml:3:1: error: duplicate key 'a'
            'a': 3
            ^
            m.yaml:1:1: note: first defined here
            a: 1
            ^
            m.yaml:4:11: error: duplicate key 'b'
            c: {b: 1, b: 2}
                      ^
            m.yaml:4:5: note: first defined here
            c: {b: 1, b: 2}
                ^

            """)
}

@Test func keysThatDifferOnlyInCaseOrInOtherMappingsAreFine() throws {
    _ = try document("a: 1\nA: 2\nx: {a: 1}\ny: {a: 1}\n")
}

@Test func duplicatesInLargeMappingsAreFoundToo() {
    var text = ""
    for k in 0..<10_000 { text += "k\(k): \(k)\n" }
    text += "k7: again\nk9999: again\n"
    #expect(
        parse(text).rendered == """
            m.yaml:10001:1: error: duplicate key 'k7'
            k7: again
            ^
            m.yaml:8:1: note: first defined here
            k7: 7
            ^
            m.yaml:10002:1: error: duplicate key 'k9999'
            k9999: again
            ^
            m.yaml:10000:1: note: first defined here
            k9999: 9999
            ^

            """)
}

@Test func longAndMultiLineKeysAreShortenedInMessages() {
    let key = String(repeating: "x", count: 70)
    let message = parse("\(key): 1\n\(key): 2\n").rendered.split(separator: "\n")[0]
    #expect(message == "m.yaml:2:1: error: duplicate key '\(String(repeating: "x", count: 60))…'")
    let multiLine = parse("\"a\\nb\": 1\n\"a\\nb\": 2\n").rendered.split(separator: "\n")[0]
    #expect(multiLine == "m.yaml:2:1: error: duplicate key 'a\\nb'")
}

// MARK: - Everything at once, and odd line breaks

@Test func problemsOfEveryKindAreReportedTogetherInOrder() {
    // libyaml stops at line 3's tab; what it had read before still counts, duplicates included.
    #expect(
        parse("a: &x 1\na: 2\n\tc: 3\n").rendered == """
            m.yaml:1:4: error: \(anchorMessage)
            a: &x 1
               ^
            m.yaml:2:1: error: duplicate key 'a'
            a: 2
            ^
            m.yaml:1:1: note: first defined here
            a: &x 1
            ^
            m.yaml:3:1: error: tab character in indentation; YAML indents with spaces
            \tc: 3
            ^

            """)
}

@Test func lineBreaksOtherThanLFDoNotShiftLocations() {
    // libyaml counts a lone CR and U+2028 as line breaks; the quoted source line does not.
    #expect(
        parse("a: 1\rb: c: d\n").rendered == """
            m.yaml:1:10: error: mapping values are not allowed in this context
            a: 1\u{FFFD}b: c: d
                     ^

            """)
    #expect(
        parse("a: \"x\u{2028}y\"\nb: *q\n").rendered == """
            m.yaml:2:4: error: \(aliasMessage)
            b: *q
               ^

            """)
}

@Test func crlfLineEndingsKeepLocations() throws {
    let doc = try document("a: 1\r\nb:\r\n  - x\r\n")
    let root = try #require(doc.root)
    let item = try #require(doc.value(forKey: "b", in: root).map { doc.items($0)[0] })
    #expect(doc.location(item) == SourceLocation(file: "m.yaml", line: 3, column: 5))
    #expect(doc.scalar(item) == "x")
}

// MARK: - Read ahead on a thread

/// Inputs of many chunks of events: the thread's chunks and the hand-over between them give the
/// same document as parsing as asked, and a problem far into the input is reported the same way.
@Test(arguments: [
    "", "slices:\n  - {path: tail.bin, size: [1}\n", "slices:\n  - {path: tail.bin, size: &a 1}\n",
    "slices:\n  - " + String(repeating: "[", count: 70) + "\n", "---\nslices: []\n---\nb: 1\n",
])
func aLongInputReadAheadIsTheSame(ending tail: String) {
    var text = "resources:\n  - id: r\n    slices:\n"
    for k in 0..<3 * YAMLEventSource.chunkSize { text += "      - {path: d\(k % 7)/\(k).bin, size: \(k), sha256: \"\(k)\"}\n" }
    text += tail
    let result = parse(Array(text.utf8))
    #expect((result.document == nil) == !tail.isEmpty, "\(result.rendered)")
}

/// A parse that stops early (at a second document) while the thread waits for room, with chunks
/// read and not taken: the thread stops, and what it read is let go of.
@Test func anEarlyStopLeavesTheThreadWaitingForRoom() {
    var text = "a: 1\n---\nb:\n"
    for k in 0..<(YAMLEventSource.chunksAhead + 2) * YAMLEventSource.chunkSize { text += "  - \(k)\n" }
    let result = parse(Array(text.utf8))
    #expect(result.document == nil)
    #expect(result.rendered.contains("a manifest must contain exactly one YAML document"), "\(result.rendered)")
}

/// A file of at least `threadedSize` bytes is read ahead on a thread by default, and its list
/// items still reach the item sink one by one, in order.
@Test func aLargeFileIsReadAheadWithItsItemsInOrder() throws {
    var text = "resources:\n  - id: r\n    slices:\n"
    var k = 0
    while text.utf8.count < YAMLEventSource.threadedSize + 1 {
        text += "      - {path: \(k).bin, size: \(k)}\n"
        k += 1
    }
    final class Counter: YAMLItemSink {
        var paths: [String] = []
        var listPath: [StaticString?] { ["resources", nil, "slices"] }
        func item(_ node: YAMLNode, in document: YAMLDocument) {
            if let path = document.value(forKey: "path", in: node) { paths.append(document.scalar(path)) }
        }
        func endList() -> UInt32 { 0 }
    }
    let sink = Counter()
    let (document, diagnostics) = YAMLParser.parse(file: "m.yaml", bytes: Array(text.utf8), itemSink: sink)
    #expect(diagnostics.isEmpty && document != nil)
    #expect(sink.paths == (0..<k).map { "\($0).bin" })
}
