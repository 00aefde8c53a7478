/// A public key of minisign or signify: both write `Ed` (Ed25519), an 8-byte key id and the
/// 32-byte key, in base64, after an `untrusted comment:` line.
public struct SignatureKey: Sendable, Hashable {
    public enum Scheme: String, Sendable, Hashable, CaseIterable {
        case minisign, signify
    }

    public var scheme: Scheme
    /// The key id as the file holds it.
    let keyID: [UInt8]
    let publicKey: [UInt8]

    /// The key id as minisign prints it (`2DFE2E18474440A4`: its bytes in reverse, in hex).
    public var keyIDText: String { Self.idText(keyID) }
    /// The key itself, in hex: two keys with one id (made so on purpose) differ here.
    public var publicKeyHex: String { publicKey.map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined() }

    static func idText(_ id: [UInt8]) -> String {
        id.reversed().map { byte in
            let digits = Array("0123456789ABCDEF".utf8)
            return String(decoding: [digits[Int(byte >> 4)], digits[Int(byte & 15)]], as: UTF8.self)
        }.joined()
    }

    /// The key a `.pub` file's text holds, or the key itself (its base64 line, as minisign's `-P`
    /// takes it).
    public init(parsing text: String, scheme: Scheme) throws(TrustProblem) {
        self.scheme = scheme
        let lines = TextLines.split(text)
        guard let index = lines.firstIndex(where: { !$0.isEmpty && !$0.hasPrefix("untrusted comment:") }) else {
            throw TrustProblem("no key in it (a \(scheme.rawValue) public key is an 'untrusted comment:' line, then one line of base64)")
        }
        guard let bytes = Base64.decode(lines[index]), bytes.count == 42 else {
            throw TrustProblem("line \(index + 1) is not a \(scheme.rawValue) public key (42 bytes in base64)", line: index + 1)
        }
        guard bytes[0] == UInt8(ascii: "E"), bytes[1] == UInt8(ascii: "d") else {
            throw TrustProblem("the key is not an Ed25519 key ('Ed'), the only kind \(scheme.rawValue) makes", line: index + 1)
        }
        keyID = Array(bytes[2..<10])
        publicKey = Array(bytes[10..<42])
    }

    /// Whether `text` is a key itself rather than a file's name.
    public static func isInline(_ text: String) -> Bool {
        guard let bytes = Base64.decode(text) else { return false }
        return bytes.count == 42 && bytes[0] == UInt8(ascii: "E") && bytes[1] == UInt8(ascii: "d")
    }
}
