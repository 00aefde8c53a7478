import FuzzSupport
@testable import JobrunTrust

// The input's first byte picks the scheme (even: minisign, odd: signify); the rest is read both
// as a public key file and as a detached signature of the fixed message below, checked with a
// fixed key. Nothing may crash, and nothing forged may pass: only the fixed message with a
// signature from the fixed key's owner could, and the fuzzer holds no secret key.
let fixedKey = "untrusted comment: minisign public key 2DFE2E18474440A4\nRWSkQERHGC7+LQYLrtvvz1qqd0R42MSwtWTqZPearx1E0A/+uRPlh6EI\n"
let message = Array("fuzzed\n".utf8)

fuzzerMain { data, size in
    let input = fuzzInput(data, size)
    let scheme: SignatureKey.Scheme = (input.first ?? 0) % 2 == 0 ? .minisign : .signify
    let rest = Array(input.dropFirst(input.isEmpty ? 0 : 1))
    if let text = String(validating: rest, as: UTF8.self) {
        _ = try? SignatureKey(parsing: text, scheme: scheme)
        _ = SignatureKey.isInline(text)
    }
    if let key = try? SignatureKey(parsing: fixedKey, scheme: scheme) {
        let result = DetachedSignature.verify(message, signature: rest, key: key)
        require((try? result.get()) == nil, "a fuzzed signature verified")
    }
    return 0
}
