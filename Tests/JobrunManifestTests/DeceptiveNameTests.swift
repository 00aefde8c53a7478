import JobrunCore
import Testing
@testable import JobrunManifest

/// Names a manifest gives are refused when a character makes them display differently from what
/// they are; the error names the character and points at it. Deceptive characters are written as
/// escapes here so that this file reads as it is.
@Suite struct DeceptiveNameTests {
    static let digest = "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824"

    /// A valid manifest naming something in every field that takes a name, with its companions.
    static let valid: [String: String] = [
        "m.yaml": """
        version: 1
        defaults:
          output: mirror
          tls: {ca_file: ca.pem}
        resources:
          - id: first
            base_url: https://cdn.example.com/a/
            slices:
              - path: index.json
          - id: second
            base_url: https://cdn.example.com/b/
            dest: lessons
            depends_on: [first]
            slices_from: sums.txt
            slices:
              - path: cover.png
                url: https://img.example.com/cover.png

        """,
        "sums.txt": "\(digest)  raw/0001.ts\n",
        "ca.pem": "",
    ]

    /// One field of ``valid`` and how to put a character `X` inside its name.
    struct NameField: Sendable, CustomTestStringConvertible {
        var field: String
        var file: String
        var original: String
        var withCharacter: String
        var testDescription: String { field }
    }

    static let fields: [NameField] = [
        NameField(field: "'output'", file: "m.yaml", original: "output: mirror", withCharacter: "output: mirXror"),
        NameField(field: "'ca_file'", file: "m.yaml", original: "ca_file: ca.pem", withCharacter: "ca_file: cXa.pem"),
        NameField(field: "resource id", file: "m.yaml", original: "id: second", withCharacter: "id: secXond"),
        NameField(field: "'base_url'", file: "m.yaml", original: "https://cdn.example.com/b/", withCharacter: "https://cdn.example.com/bX/"),
        NameField(field: "'dest'", file: "m.yaml", original: "dest: lessons", withCharacter: "dest: lesXsons"),
        NameField(field: "'depends_on'", file: "m.yaml", original: "[first]", withCharacter: "[fiXrst]"),
        NameField(field: "'slices_from'", file: "m.yaml", original: "slices_from: sums.txt", withCharacter: "slices_from: suXms.txt"),
        NameField(field: "slice path", file: "m.yaml", original: "path: cover.png", withCharacter: "path: coXver.png"),
        NameField(field: "'url'", file: "m.yaml", original: "img.example.com/cover", withCharacter: "img.example.com/coXver"),
        NameField(field: "slice path", file: "sums.txt", original: "raw/0001.ts", withCharacter: "raw/00X01.ts"),
    ]

    /// A character to put in a name, shown by its code point in test names.
    struct Sample: Sendable, CustomTestStringConvertible {
        var scalar: Unicode.Scalar
        var testDescription: String { "U+" + String(scalar.value, radix: 16, uppercase: true) }
    }

    /// One or more of every kind; characters YAML refuses raw (C1, U+FFFE, U+FFFF) have their own tests.
    static let characters: [Sample] = [
        "\u{202E}", "\u{2066}", "\u{200E}", "\u{061C}",  // bidirectional controls
        "\u{200B}", "\u{200D}", "\u{2060}", "\u{FEFF}", "\u{00AD}", "\u{E0041}",  // invisible format
        scalar(0xFDD0), scalar(0x1FFFF),  // noncharacters
    ].map(Sample.init)

    /// Swift refuses noncharacters in literals.
    static func scalar(_ value: UInt32) -> Unicode.Scalar { Unicode.Scalar(value) ?? "?" }

    /// The rule for every field and every kind: exactly one error, at the character, naming it,
    /// with the quoted line showing it as U+FFFD.
    @Test(arguments: fields, characters)
    func everyNameRefusesEveryDeceptiveCharacter(name: NameField, sample: Sample) throws {
        let character = sample.scalar
        var files = Self.valid
        let marked = name.withCharacter.replacingOccurrences(of: "X", with: String(character))
        let original = try #require(files[name.file])
        #expect(original.components(separatedBy: name.original).count == 2, "template must occur once")
        files[name.file] = original.replacingOccurrences(of: name.original, with: marked)

        let lines = try #require(files[name.file]).split(separator: "\n", omittingEmptySubsequences: false)
        let lineIndex = try #require(lines.firstIndex { $0.unicodeScalars.contains(character) })
        let line = lines[lineIndex]
        let column =
            try #require(line.unicodeScalars.firstIndex(of: character).map { line.unicodeScalars.distance(from: line.unicodeScalars.startIndex, to: $0) }) + 1
        let found = try #require(DeceptiveCharacter(character))
        let shown = String(line).replacingOccurrences(of: String(character), with: "\u{FFFD}")
        let expected = """
            \(name.file):\(lineIndex + 1):\(column): error: \(name.field) contains \(found)
            \(shown)
            \(String(repeating: " ", count: column - 1))^

            """
        let loaded = try loadManifests(files, load: ["m.yaml"])
        #expect(loaded.rendered == expected)
        #expect(loaded.manifest == nil)
    }

    /// A manifest of one resource whose slices have these paths, written as they are from line 6 on.
    static func manifest(slicePaths: String...) -> String {
        "version: 1\nresources:\n  - id: a\n    base_url: https://cdn.example.com/a/\n    slices:\n"
            + slicePaths.map { "      - path: \($0)\n" }.joined()
    }

    @Test func aBidiControlInASlicePath() throws {
        #expect(
            try diagnose(Self.manifest(slicePaths: "invoices/report\u{202E}fdp.exe")) == """
                m.yaml:6:30: error: slice path contains U+202E RIGHT-TO-LEFT OVERRIDE, a bidirectional control that can make a name display differently from what it is
                      - path: invoices/report\u{FFFD}fdp.exe
                                             ^

                """)
    }

    @Test func aZeroWidthSpaceInAnId() throws {
        #expect(
            try diagnose(
                """
                version: 1
                resources:
                  - id: "lesson\u{200B}-a"
                    base_url: https://cdn.example.com/a/
                    slices:
                      - path: a.ts
                """) == """
                    m.yaml:3:16: error: resource id contains U+200B ZERO WIDTH SPACE, an invisible format character that can make different names look the same
                      - id: "lesson\u{FFFD}-a"
                                   ^

                    """)
    }

    @Test func aNoncharacterInDest() throws {
        // Written as an escape in a double-quoted string; the caret is at the escape.
        #expect(
            try diagnose(
                """
                version: 1
                resources:
                  - id: a
                    base_url: https://cdn.example.com/a/
                    dest: "lessons/\\U0010FFFF/a"
                    slices:
                      - path: a.ts
                """) == """
                    m.yaml:5:20: error: 'dest' contains U+10FFFF, a noncharacter, which Unicode reserves for internal use
                        dest: "lessons/\\U0010FFFF/a"
                                       ^

                    """)
    }

    @Test func aFormatCharacterInAChecksumListPath() throws {
        let loaded = try loadManifests([
            "m.yaml": """
            version: 1
            resources:
              - id: a
                base_url: https://cdn.example.com/a/
                slices_from: a.sha256sums
            """,
            "a.sha256sums": "# made by sha256sum\n\(Self.digest) *raw/ts/00\u{2060}01.ts\n",
        ])
        #expect(
            loaded.rendered == """
                a.sha256sums:2:76: error: slice path contains U+2060 WORD JOINER, an invisible format character that can make different names look the same
                \(Self.digest) *raw/ts/00\u{FFFD}01.ts
                                                                                           ^

                """)
    }

    @Test func anEscapedChecksumListNameIsLocatedWhereTheCharacterIsWritten() throws {
        // GNU's escaped form: `\\` and `\n` are two columns written for one character meant.
        let loaded = try loadManifests([
            "m.yaml": "version: 1\nresources:\n  - id: a\n    base_url: https://cdn.example.com/a/\n    slices_from: a.sums\n",
            "a.sums": "\u{FEFF}\\\(Self.digest)  a\\\\b\\\\c\u{200C}.ts\n",
        ])
        // The byte order mark at the start of the list is skipped and not counted, as in manifests.
        #expect(
            loaded.rendered == """
                a.sums:1:75: error: slice path contains U+200C ZERO WIDTH NON-JOINER, an invisible format character that can make different names look the same
                \\\(Self.digest)  a\\\\b\\\\c\u{FFFD}.ts
                                                                                          ^

                """)
    }

    @Test func c1ControlsAndNoncharactersYAMLOnlyAllowsAsEscapes() throws {
        #expect(
            try diagnose(Self.manifest(slicePaths: #""a\x85b.ts""#, #""a\u009Fb.ts""#, #""a\uFFFEb.ts""#)) == """
                m.yaml:6:17: error: slice path contains U+0085, a control character
                      - path: "a\\x85b.ts"
                                ^
                m.yaml:7:17: error: slice path contains U+009F, a control character
                      - path: "a\\u009Fb.ts"
                                ^
                m.yaml:8:17: error: slice path contains U+FFFE, a noncharacter, which Unicode reserves for internal use
                      - path: "a\\uFFFEb.ts"
                                ^

                """)
    }

    @Test func everyProblemIsReportedInOneRun() throws {
        let loaded = try loadManifests([
            "m.yaml": """
            version: 1
            defaults:
              output: "mirror\u{2067}"
            resources:
              - id: a\u{00AD}b
                base_url: https://cdn.example.com/a/
                dest: x\(Self.scalar(0xFDEF))
                slices_from: a.sums
                slices:
                  - path: ok/caf\u{E9}.ts
                  - path: bad\u{200F}.ts
                    size: lots
                  - path: back\\slash\u{202D}.ts
                  - path: ~home\u{202A}.ts
                  - path: ../up\u{FEFF}.ts
            """,
            "a.sums": "\(Self.digest)  \u{2064}.ts\n\(Self.digest)  fine.ts\n",
        ])
        // A bad path does not hide the slice's other mistakes, and a deceptive character outranks
        // the problems whose messages would quote the path as it displays.
        #expect(
            loaded.rendered == """
                a.sums:1:67: error: slice path contains U+2064 INVISIBLE PLUS, an invisible format character that can make different names look the same
                \(Self.digest)  \u{FFFD}.ts
                                                                                  ^
                m.yaml:3:18: error: 'output' contains U+2067 RIGHT-TO-LEFT ISOLATE, a bidirectional control that can make a name display differently from what it is
                  output: "mirror\u{FFFD}"
                                 ^
                m.yaml:5:10: error: resource id contains U+00AD SOFT HYPHEN, an invisible format character that can make different names look the same
                  - id: a\u{FFFD}b
                         ^
                m.yaml:7:12: error: 'dest' contains U+FDEF, a noncharacter, which Unicode reserves for internal use
                    dest: x\u{FFFD}
                           ^
                m.yaml:11:18: error: slice path contains U+200F RIGHT-TO-LEFT MARK, a bidirectional control that can make a name display differently from what it is
                      - path: bad\u{FFFD}.ts
                                 ^
                m.yaml:12:15: error: 'size' is not a valid size: 'lots': write a number of bytes, or a number and a unit like 64KiB or 1.5GiB
                        size: lots
                              ^
                m.yaml:13:25: error: slice path contains U+202D LEFT-TO-RIGHT OVERRIDE, a bidirectional control that can make a name display differently from what it is
                      - path: back\\slash\u{FFFD}.ts
                                        ^
                m.yaml:14:20: error: slice path contains U+202A LEFT-TO-RIGHT EMBEDDING, a bidirectional control that can make a name display differently from what it is
                      - path: ~home\u{FFFD}.ts
                                   ^
                m.yaml:15:20: error: slice path contains U+FEFF ZERO WIDTH NO-BREAK SPACE, an invisible format character that can make different names look the same
                      - path: ../up\u{FFFD}.ts
                                   ^

                """)
    }

    /// A password in a URL is found, and redacted in the quoted line, before any deceptive character.
    @Test func userInformationInAURLIsRedactedFirst() throws {
        #expect(
            try diagnose(Self.manifest(slicePaths: "a.ts\n        url: https://me:hunter22@cdn.example.com/\u{202E}x.ts")) == """
                m.yaml:7:14: error: 'url' contains user information ('user@' or 'user:password@'); put credentials in a header with ${VAR}
                        url: https://<redacted>@cdn.example.com/\u{FFFD}x.ts
                             ^

                """)
    }

    @Test func ordinaryNonASCIINamesAreAccepted() throws {
        let names = [
            "caf\u{E9}", "\u{65E5}\u{672C}\u{8A9E}", "\u{1F389}", "\u{2764}\u{FE0F}", "\u{41F}\u{440}\u{438}\u{432}\u{435}\u{442}", "e\u{301}",
            "\u{5E9}\u{5DC}\u{5D5}\u{5DD}", "\u{A0}nbsp", "\u{FFFD}",
        ]
        var files = Self.valid
        var yaml = try #require(files["m.yaml"])
        yaml = yaml.replacingOccurrences(of: "output: mirror", with: "output: \(names[0])/\(names[1])")
        yaml = yaml.replacingOccurrences(of: "dest: lessons", with: "dest: \(names[2])")
        yaml = yaml.replacingOccurrences(of: "path: cover.png", with: "path: \(names[3])/\(names[4]).png")
        yaml = yaml.replacingOccurrences(of: "path: index.json", with: "path: \"\(names[5...].joined(separator: "/"))\"")
        files["m.yaml"] = yaml
        files["sums.txt"] = "\(Self.digest)  \(names[1])/\(names[2]).ts\n"
        let loaded = try loadManifests(files, load: ["m.yaml"])
        #expect(loaded.rendered == "")
        let manifest = try #require(loaded.manifest)
        #expect(manifest.resources[0].slices.map(\.path) == [names[5...].joined(separator: "/")])
        #expect(manifest.resources[1].outputRoot == "\(names[0])/\(names[1])")
        #expect(manifest.resources[1].dest == names[2])
        #expect(manifest.resources[1].slices.map(\.path) == ["\(names[3])/\(names[4]).png", "\(names[1])/\(names[2]).ts"])
    }
}

@Suite struct DeceptivePathRulesTests {
    func normalize(_ path: String) -> Result<String, PathRules.Problem> {
        PathRules.normalize(path, allowEmpty: false, allowTrailingSlash: false)
    }

    func refusal(_ scalar: Unicode.Scalar, at offset: Int) throws -> Result<String, PathRules.Problem> {
        .failure(.character(try #require(DeceptiveCharacter(scalar)), offset: offset))
    }

    @Test func offsetsAreUTF8BytesOfTheNameAsGiven() throws {
        #expect(normalize("\u{202E}") == (try refusal("\u{202E}", at: 0)))
        #expect(normalize("caf\u{E9}/\u{65E5}\u{200B}") == (try refusal("\u{200B}", at: 9)))
        #expect(normalize("./a//b\u{7}") == (try refusal("\u{7}", at: 6)))
        #expect(normalize("caf\u{E9}/\u{1F389}.ts") == .success("caf\u{E9}/\u{1F389}.ts"))
        #expect(normalize("\u{E9}/../\u{E8}") == .success("\u{E8}"))
    }

    /// Messages about a backslash, a `~` or an absolute path quote the path: a deceptive character
    /// anywhere in it is reported instead, whichever comes first.
    @Test func aDeceptiveCharacterOutranksProblemsThatQuoteThePath() throws {
        #expect(normalize("a\\b\u{202E}") == (try refusal("\u{202E}", at: 3)))
        #expect(normalize("~a\u{2066}") == (try refusal("\u{2066}", at: 2)))
        #expect(normalize("/a\u{200B}") == (try refusal("\u{200B}", at: 2)))
        #expect(normalize("../a\u{FEFF}") == (try refusal("\u{FEFF}", at: 4)))
        #expect(normalize("a/\u{E9}\\b") == .failure(.backslash))
        #expect(normalize("\u{E9}\u{7}\u{202E}") == (try refusal("\u{7}", at: 2)))
    }
}
