import Testing
@testable import JobrunCore

@Suite struct DeceptiveCharacterTests {
    /// Swift refuses noncharacters in literals.
    static func scalar(_ value: UInt32) -> Unicode.Scalar { Unicode.Scalar(value) ?? "?" }

    static func kind(_ value: UInt32) -> DeceptiveCharacter.Kind? { DeceptiveCharacter(scalar(value))?.kind }

    @Test func controlsAreC0DelAndC1() {
        for value: UInt32 in [0x00, 0x09, 0x0A, 0x1B, 0x1F, 0x7F, 0x80, 0x85, 0x9B, 0x9F] {
            #expect(Self.kind(value) == .control, "U+\(String(value, radix: 16))")
        }
        for value: UInt32 in [0x20, 0x41, 0x7E, 0xA0, 0xE9] {
            #expect(Self.kind(value) == nil, "U+\(String(value, radix: 16))")
        }
    }

    @Test func bidiControlsAreTheBidiControlSet() {
        let bidi: [UInt32] = [0x061C, 0x200E, 0x200F, 0x202A, 0x202B, 0x202C, 0x202D, 0x202E, 0x2066, 0x2067, 0x2068, 0x2069]
        for value in bidi { #expect(Self.kind(value) == .bidiControl, "U+\(String(value, radix: 16))") }
        // Their neighbours are other format characters, not bidi controls.
        for value: UInt32 in [0x200D, 0x2060, 0x206A] { #expect(Self.kind(value) == .invisibleFormat, "U+\(String(value, radix: 16))") }
    }

    /// Every scalar of general category Cf that is not a bidi control, across all planes.
    @Test func everyOtherFormatCharacterIsInvisibleFormat() {
        var count = 0
        for value: UInt32 in 0...0x10FFFF {
            guard let scalar = Unicode.Scalar(value), scalar.properties.generalCategory == .format else { continue }
            let expected: DeceptiveCharacter.Kind = scalar.properties.isBidiControl ? .bidiControl : .invisibleFormat
            #expect(DeceptiveCharacter(scalar)?.kind == expected, "U+\(String(value, radix: 16))")
            count += 1
        }
        #expect(count > 150)
        for value: UInt32 in [0x00AD, 0x200B, 0x200C, 0x2060, 0xFEFF, 0xE0001, 0xE007F] {
            #expect(Self.kind(value) == .invisibleFormat, "U+\(String(value, radix: 16))")
        }
    }

    @Test func noncharactersAreTheSixtySixOfUnicode() {
        var found: [UInt32] = []
        for value: UInt32 in 0...0x10FFFF where Self.kind(value) == .noncharacter { found.append(value) }
        #expect(found.count == 66)
        #expect(found.allSatisfy { Self.scalar($0).properties.isNoncharacterCodePoint })
        for value: UInt32 in [0xFDCF, 0xFDF0, 0xFFFD, 0x1FFFD] { #expect(Self.kind(value) == nil, "U+\(String(value, radix: 16))") }
    }

    @Test func ordinaryTextIsAccepted() {
        let text = "caf\u{E9} e\u{301} \u{65E5}\u{672C}\u{8A9E} \u{1F389} \u{2764}\u{FE0F} \u{5E9}\u{5DC}\u{5D5}\u{5DD} \u{627}\u{644} \u{A0}\u{FFFD}"
        #expect(text.unicodeScalars.allSatisfy { DeceptiveCharacter($0) == nil })
        #expect(DeceptiveCharacter.first(in: text) == nil)
    }

    @Test func theFirstIsFoundWithItsUTF8Offset() {
        #expect(DeceptiveCharacter.first(in: "") == nil)
        #expect(DeceptiveCharacter.first(in: "plain/ascii.ts") == nil)
        #expect(DeceptiveCharacter.first(in: "a\u{7}b")?.offset == 1)
        #expect(DeceptiveCharacter.first(in: "ab\u{202E}c\u{7}")?.character.scalar == "\u{202E}")
        let found = DeceptiveCharacter.first(in: "\u{E9}\u{65E5}x\u{200B}\u{202E}")
        #expect(found?.character.scalar == "\u{200B}")
        #expect(found?.offset == 6)
        #expect(DeceptiveCharacter.first(in: "\u{1F389}\(Self.scalar(0x10FFFF))")?.offset == 4)
    }

    /// ASCII is skipped eight bytes at a time: a character at any position of a long name is found.
    @Test func everyPositionOfALongNameIsChecked() {
        let ascii = "abcdefghijklmnopqrstuvwxyz ~!/0123456789"
        for bad: Unicode.Scalar in ["\u{0}", "\u{1F}", "\u{7F}", "\u{80}", "\u{202E}", "\u{E0041}"] {
            for position in 0...ascii.utf8.count {
                var text = String(ascii.prefix(position))
                text.unicodeScalars.append(bad)
                text += ascii.dropFirst(position)
                let found = DeceptiveCharacter.first(in: text)
                #expect(found?.offset == position && found?.character.scalar == bad, "U+\(String(bad.value, radix: 16)) at \(position)")
            }
        }
        // The printable bytes next to each boundary (0x20 and 0x7E) pass in whole words.
        #expect(DeceptiveCharacter.first(in: String(repeating: " ~", count: 20)) == nil)
    }

    @Test func descriptionsNameTheCharacterAndItsKind() {
        #expect(
            DeceptiveCharacter("\u{202E}")?.description
                == "U+202E RIGHT-TO-LEFT OVERRIDE, a bidirectional control that can make a name display differently from what it is")
        #expect(
            DeceptiveCharacter("\u{200B}")?.description == "U+200B ZERO WIDTH SPACE, an invisible format character that can make different names look the same")
        #expect(DeceptiveCharacter(Self.scalar(0xFDD0))?.description == "U+FDD0, a noncharacter, which Unicode reserves for internal use")
        #expect(DeceptiveCharacter(Self.scalar(0x10FFFE))?.notation == "U+10FFFE")
        #expect(DeceptiveCharacter("\u{85}")?.description == "U+0085, a control character")
        #expect(DeceptiveCharacter("\u{0}")?.label == "U+0000")
    }
}

@Suite struct DiagnosticRendererDeceptiveTests {
    func render(_ line: String, column: Int, message: String = "bad") -> String {
        var sources = SourceFiles()
        sources.add("d.yaml", bytes: Array(line.utf8))
        return DiagnosticRenderer(sources: sources).render(.error(message, at: JobrunCore.SourceLocation(file: "d.yaml", line: 1, column: column)))
    }

    /// The quoted line keeps one column per scalar, so the caret stays under the character.
    @Test func quotedLinesShowDeceptiveCharactersAsReplacementCharacters() {
        #expect(
            render("p: r\u{202E}gpj\u{200B}.\u{85}x\u{E9}\tz\n", column: 5) == "d.yaml:1:5: error: bad\np: r\u{FFFD}gpj\u{FFFD}.\u{FFFD}x\u{E9}\tz\n    ^\n")
    }

    @Test func messagesShowThemByCodePoint() {
        #expect(
            render("k: v\n", column: 1, message: "unknown key 'pa\u{200B}th' caf\u{E9} \u{202E}")
                == "d.yaml:1:1: error: unknown key 'pa<U+200B>th' caf\u{E9} <U+202E>\nk: v\n^\n")
        #expect(DiagnosticRenderer(sources: SourceFiles()).render(.error("x\u{2066}", at: nil)) == "jobrun: error: x<U+2066>\n")
    }

    /// Columns do not count a UTF-8 byte order mark, so the quoted first line leaves it out.
    @Test func aByteOrderMarkIsNotQuoted() {
        #expect(render("\u{FEFF}a: \u{FEFF}b\nc\n", column: 4) == "d.yaml:1:4: error: bad\na: \u{FFFD}b\n   ^\n")
    }
}
