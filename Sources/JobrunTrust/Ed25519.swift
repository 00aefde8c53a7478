internal import COpenSSL

/// Ed25519 and BLAKE2b-512 from OpenSSL's EVP interface (no library of their own).
enum Ed25519 {
    /// Whether `signature` (64 bytes) is `publicKey`'s (32 bytes) over `message`.
    static func verify(signature: [UInt8], of message: [UInt8], publicKey: [UInt8]) -> Bool {
        guard signature.count == 64, publicKey.count == 32,
            let key = publicKey.withUnsafeBufferPointer({ EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, nil, $0.baseAddress, 32) })
        else { return false }
        defer { EVP_PKEY_free(key) }
        guard let context = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestVerifyInit(context, nil, nil, nil, key) == 1 else { return false }
        return signature.withUnsafeBufferPointer { s in
            message.withUnsafeBufferPointer { m in EVP_DigestVerify(context, s.baseAddress, 64, m.baseAddress, m.count) == 1 }
        }
    }

    /// BLAKE2b-512 of `bytes` (minisign's prehashed signatures sign this); `nil` when OpenSSL has
    /// no BLAKE2b.
    static func blake2b512(_ bytes: [UInt8]) -> [UInt8]? {
        guard let md = EVP_MD_fetch(nil, "BLAKE2B-512", nil) else { return nil }
        defer { EVP_MD_free(md) }
        var out = [UInt8](repeating: 0, count: 64)
        var length: UInt32 = 0
        let ok = bytes.withUnsafeBufferPointer { b in
            out.withUnsafeMutableBufferPointer { o in EVP_Digest(b.baseAddress, b.count, o.baseAddress, &length, md, nil) }
        }
        return ok == 1 && length == 64 ? out : nil
    }
}
