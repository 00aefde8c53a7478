/// What gpgv said of a signature on its status lines (`--status-fd`, gnupg's doc/DETAILS), read
/// as apt reads them: a good signature needs `GOODSIG` and `VALIDSIG`, and any of the others
/// named here refuses it.
struct GPGStatus: Sendable, Hashable {
    /// Keyword → its arguments, for the keywords that decide.
    var found: [String: [String]] = [:]

    init(_ text: String) {
        for line in text.split(separator: "\n") {
            let words = line.split(separator: " ").map(String.init)
            guard words.count >= 2, words[0] == "[GNUPG:]" else { continue }
            if found[words[1]] == nil { found[words[1]] = Array(words.dropFirst(2)) }
        }
    }

    var isGood: Bool { found["GOODSIG"] != nil && found["VALIDSIG"] != nil }

    /// Why the signature is refused, naming the key; `nil` when nothing refuses it.
    func problem(keyring: String) -> String? {
        func key(_ keyword: String) -> String { found[keyword]?.first ?? "unknown" }
        if found["NO_PUBKEY"] != nil { return "it is signed by key \(key("NO_PUBKEY")), which is not in the keyring '\(keyring)'" }
        if found["BADSIG"] != nil { return "the signature by key \(key("BADSIG")) does not match it (it was changed after it was signed)" }
        if found["EXPSIG"] != nil { return "the signature by key \(key("EXPSIG")) has expired" }
        if found["EXPKEYSIG"] != nil { return "it is signed by key \(key("EXPKEYSIG")), which has expired" }
        if found["REVKEYSIG"] != nil { return "it is signed by key \(key("REVKEYSIG")), which was revoked" }
        if let args = found["ERRSIG"] { return "gpgv could not check the signature by key \(args.first ?? "unknown") (error code \(args.last ?? "?"))" }
        if found["NODATA"] != nil { return "it holds no OpenPGP signature" }
        return nil
    }
}
