/// OpenPGP ASCII armor (RFC 4880 §6.2) around a public key block, as `gpg --armor --export`
/// writes it and as repositories publish their keys (`.asc`): gpgv reads only the binary form.
public enum ArmoredKey {
    /// Whether `text` holds an armored public key block (to dearmor, or to refuse as malformed).
    public static func isArmored(_ text: [UInt8]) -> Bool {
        text.firstRange(of: Array("-----BEGIN PGP PUBLIC KEY BLOCK-----".utf8)) != nil
    }

    /// The binary key block of an armored `text`; `nil` when it is not armored (it may be binary
    /// already) or its body is not base64.
    public static func dearmor(_ text: [UInt8]) -> [UInt8]? {
        let begin = Array("-----BEGIN PGP PUBLIC KEY BLOCK-----".utf8)
        guard let start = text.firstRange(of: begin) else { return nil }
        var lines: [ArraySlice<UInt8>] = []
        var line: [UInt8] = []
        for byte in text[start.upperBound...] {
            if byte == 0x0A {
                lines.append(line[...])
                line = []
            } else if byte != 0x0D {
                line.append(byte)
            }
        }
        lines.append(line[...])
        var body: [UInt8] = []
        // Armor headers (`Comment: …`) end at the first blank line; the body then runs to the
        // checksum line (`=XXXX`) or the end line.
        var inBody = false
        for raw in lines.dropFirst() {
            var l = raw
            while let last = l.last, last == 0x20 || last == 0x09 { l = l.dropLast() }
            if l.starts(with: "-----END".utf8) { break }
            if !inBody {
                if l.isEmpty {
                    inBody = true
                } else if !l.contains(UInt8(ascii: ":")) {
                    // No headers at all: this line is already the body.
                    inBody = true
                    body.append(contentsOf: l)
                }
                continue
            }
            if l.first == UInt8(ascii: "=") { break }
            body.append(contentsOf: l)
        }
        guard !body.isEmpty else { return nil }
        return Base64.decode(String(decoding: body, as: UTF8.self))
    }
}
