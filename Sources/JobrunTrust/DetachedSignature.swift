/// A detached signature of a file, as `minisign -S` (`FILE.minisig`) or `signify -S`
/// (`FILE.sig`) writes it, checked against a ``SignatureKey``.
///
/// | scheme   | line 2 (base64)                     | signs                                          | then |
/// |----------|-------------------------------------|------------------------------------------------|------|
/// | signify  | `Ed`, key id, signature             | the file                                       | — |
/// | minisign | `Ed`, key id, signature             | the file (legacy)                              | `trusted comment:` and a global signature over the signature and the comment |
/// | minisign | `ED`, key id, signature             | the file's BLAKE2b-512 (the default since 0.10) | the same |
public enum DetachedSignature {
    /// What a good signature says beside the file.
    public struct Verified: Sendable, Hashable {
        /// minisign's trusted comment (signed too), if any.
        public var trustedComment: String?
    }

    /// Checks `signature` (the signature file's bytes) over `message` with `key`.
    public static func verify(_ message: [UInt8], signature: [UInt8], key: SignatureKey) -> Result<Verified, TrustProblem> {
        guard let text = String(validating: signature, as: UTF8.self) else { return .failure(TrustProblem("the signature file is not UTF-8 text")) }
        let lines = TextLines.split(text)
        guard lines.count >= 2, lines[0].hasPrefix("untrusted comment:") else {
            return .failure(TrustProblem("not a \(key.scheme.rawValue) signature, which starts with an 'untrusted comment:' line", line: 1))
        }
        guard let bytes = Base64.decode(lines[1]), bytes.count == 74 else {
            return .failure(TrustProblem("line 2 is not a \(key.scheme.rawValue) signature (74 bytes in base64)", line: 2))
        }
        let algorithm = String(decoding: bytes[0..<2], as: UTF8.self)
        let keyID = Array(bytes[2..<10])
        let signed = Array(bytes[10..<74])
        guard keyID == key.keyID else {
            return .failure(TrustProblem("it was made with key \(SignatureKey.idText(keyID)), not with the key given (\(key.keyIDText))", line: 2))
        }
        switch (key.scheme, algorithm) {
        case (.signify, "Ed"):
            guard Ed25519.verify(signature: signed, of: message, publicKey: key.publicKey) else { return .failure(mismatch(key)) }
            return .success(Verified(trustedComment: nil))
        case (.minisign, "Ed"), (.minisign, "ED"):
            let signedMessage: [UInt8]
            if algorithm == "ED" {
                guard let digest = Ed25519.blake2b512(message) else {
                    return .failure(TrustProblem("OpenSSL has no BLAKE2b-512, which minisign's signature needs"))
                }
                signedMessage = digest
            } else {
                signedMessage = message
            }
            guard Ed25519.verify(signature: signed, of: signedMessage, publicKey: key.publicKey) else { return .failure(mismatch(key)) }
            let prefix = "trusted comment: "
            guard lines.count >= 4, lines[2].hasPrefix(prefix) else {
                return .failure(TrustProblem("line 3 is not minisign's 'trusted comment:' line", line: 3))
            }
            let comment = lines[2].dropFirst(prefix.count)
            guard let global = Base64.decode(lines[3]), global.count == 64 else {
                return .failure(TrustProblem("line 4 is not minisign's global signature (64 bytes in base64)", line: 4))
            }
            guard Ed25519.verify(signature: global, of: signed + Array(comment.utf8), publicKey: key.publicKey) else {
                return .failure(TrustProblem("the trusted comment was changed after it was signed", line: 3))
            }
            return .success(Verified(trustedComment: String(comment)))
        default:
            return .failure(TrustProblem("the signature's algorithm '\(algorithm)' is not \(key.scheme.rawValue)'s", line: 2))
        }
    }

    private static func mismatch(_ key: SignatureKey) -> TrustProblem {
        TrustProblem(
            "the \(key.scheme.rawValue) signature does not match the file: it was changed after it was signed, or signed by another key with the same id")
    }
}
