/// A character a name must not contain because it makes the name display differently from what
/// it is, or not at all: two paths that look the same on screen must be the same path.
public struct DeceptiveCharacter: Hashable, Sendable, CustomStringConvertible {
    public enum Kind: Hashable, Sendable {
        /// C0 controls, DEL and the C1 controls U+0080–U+009F (general category Cc).
        case control
        /// The Bidi_Control characters (U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069):
        /// they reorder the text around them, so a name can read backwards.
        case bidiControl
        /// Every other character of general category Cf: zero-width spaces and joiners, U+2060
        /// WORD JOINER, U+FEFF, the soft hyphen, tag characters.
        case invisibleFormat
        /// U+FDD0–U+FDEF and the last two code points of every plane, which Unicode reserves for
        /// a program's internal use.
        case noncharacter
    }

    public let scalar: Unicode.Scalar
    public let kind: Kind

    /// The scalar's kind, or `nil` for a character a name may contain (printable ASCII costs two comparisons).
    public init?(_ scalar: Unicode.Scalar) {
        let value = scalar.value
        if value >= 0x20 && value < 0x7F { return nil }
        if value < 0xA0 {
            kind = .control
        } else if value & 0xFFFE == 0xFFFE || (0xFDD0...0xFDEF).contains(value) {
            // The set is closed by Unicode's stability policy, so arithmetic is exact.
            kind = .noncharacter
        } else if scalar.properties.generalCategory == .format {
            kind = scalar.properties.isBidiControl ? .bidiControl : .invisibleFormat
        } else {
            return nil
        }
        self.scalar = scalar
    }

    /// `U+202E`: the code point in Unicode's notation.
    public var notation: String {
        var hex = String(scalar.value, radix: 16, uppercase: true)
        while hex.utf8.count < 4 { hex = "0" + hex }
        return "U+" + hex
    }

    /// `U+202E RIGHT-TO-LEFT OVERRIDE`: the code point, and the character's name when it has one.
    public var label: String {
        guard let name = scalar.properties.name else { return notation }
        return notation + " " + name
    }

    /// The code point and why it is refused, for a message such as "slice path contains …".
    public var description: String {
        switch kind {
        case .control: "\(label), a control character"
        case .bidiControl: "\(label), a bidirectional control that can make a name display differently from what it is"
        case .invisibleFormat: "\(label), an invisible format character that can make different names look the same"
        case .noncharacter: "\(label), a noncharacter, which Unicode reserves for internal use"
        }
    }

    /// The first deceptive character of `text` and its UTF-8 offset. Printable ASCII is skipped
    /// eight bytes at a time; scalars are decoded only from the first other byte on.
    public static func first(in text: String) -> (character: DeceptiveCharacter, offset: Int)? {
        let utf8 = text.utf8
        let skipped =
            utf8.withContiguousStorageIfAvailable(printableASCIIPrefix)
            ?? utf8.prefix { $0 >= 0x20 && $0 < 0x7F }.count
        guard skipped < utf8.count else { return nil }
        var offset = skipped
        for scalar in text.unicodeScalars[utf8.index(utf8.startIndex, offsetBy: skipped)...] {
            if let found = DeceptiveCharacter(scalar) { return (found, offset) }
            offset += UTF8.width(scalar)
        }
        return nil
    }

    /// The length of the printable ASCII run `bytes` starts with, eight bytes at a time while they
    /// last: none with the high bit set, none below 0x20 (the subtraction borrows), no 0x7F (the
    /// addition reaches 0x80).
    private static func printableASCIIPrefix(_ bytes: UnsafeBufferPointer<UInt8>) -> Int {
        guard let base = bytes.baseAddress else { return 0 }
        var i = 0
        while i + 8 <= bytes.count {
            let w = UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self)
            let suspicious = w | (w &+ 0x0101_0101_0101_0101) | ((w &- 0x2020_2020_2020_2020) & ~w)
            if suspicious & 0x8080_8080_8080_8080 != 0 { break }
            i += 8
        }
        while i < bytes.count, bytes[i] >= 0x20, bytes[i] < 0x7F { i += 1 }
        return i
    }
}
