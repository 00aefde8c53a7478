/// What gpgv said of a clearsigned file's signatures on its status lines (`--status-fd`, gnupg's
/// doc/DETAILS), judged as apt judges them: the file is trusted when some signature is good
/// (`GOODSIG` with the `VALIDSIG` of the same key) and none is bad (`BADSIG`). A file signed by
/// several keys, some of them not in the keyring or expired (as Debian signs its releases), is
/// trusted by its good signature.
struct GPGStatus: Sendable {
    /// Each status line's keyword and arguments, in order.
    var lines: [(keyword: String, arguments: [String])] = []

    init(_ text: String) {
        for line in text.split(separator: "\n") {
            let words = line.split(separator: " ").map(String.init)
            guard words.count >= 2, words[0] == "[GNUPG:]" else { continue }
            lines.append((words[1], Array(words.dropFirst(2))))
        }
    }

    private func first(_ keyword: String) -> [String]? { lines.first { $0.keyword == keyword }?.arguments }

    /// Hash algorithms apt no longer accepts a signature made with (OpenPGP ids: MD5, SHA-1,
    /// RIPEMD-160), by `VALIDSIG`'s eighth field.
    static let weakHashes: Set<String> = ["1", "2", "3"]

    /// The keys (long key ids) of the good signatures: a `GOODSIG` whose key a `VALIDSIG`'s
    /// fingerprint ends with, the signature made with a strong hash.
    var goodSigners: [String] {
        let fingerprints = lines.filter { $0.keyword == "VALIDSIG" && !Self.weakHashes.contains($0.arguments.count > 7 ? $0.arguments[7] : "") }
            .compactMap { $0.arguments.first?.uppercased() }
        return lines.filter { $0.keyword == "GOODSIG" }.compactMap { $0.arguments.first?.uppercased() }.filter { id in
            fingerprints.contains { $0.hasSuffix(id) }
        }
    }

    /// Whether a failing exit status of gpgv is explained by the other signatures: keys not in
    /// the keyring, expired or revoked (as apt, jobrun then goes by the good signature).
    var explainsFailure: Bool {
        lines.contains { ["NO_PUBKEY", "ERRSIG", "EXPSIG", "EXPKEYSIG", "REVKEYSIG"].contains($0.keyword) }
    }

    /// Why the file is not trusted, naming the key; `nil` when it is.
    func problem(keyring: String) -> String? {
        if let bad = first("BADSIG") { return "the signature by key \(bad.first ?? "unknown") does not match it (it was changed after it was signed)" }
        guard goodSigners.isEmpty else { return nil }
        if let key = first("NO_PUBKEY") { return "it is signed by key \(key.first ?? "unknown"), which is not in the keyring '\(keyring)'" }
        if let key = first("EXPSIG") { return "the signature by key \(key.first ?? "unknown") has expired" }
        if let key = first("EXPKEYSIG") { return "it is signed by key \(key.first ?? "unknown"), which has expired" }
        if let key = first("REVKEYSIG") { return "it is signed by key \(key.first ?? "unknown"), which was revoked" }
        if let args = first("ERRSIG") { return "gpgv could not check the signature by key \(args.first ?? "unknown") (error code \(args.last ?? "?"))" }
        if first("NODATA") != nil { return "it holds no OpenPGP signature" }
        if first("VALIDSIG") != nil { return "its signature is made with a weak hash (MD5, SHA-1 or RIPEMD-160), which apt no longer accepts" }
        return "gpgv found no good signature"
    }
}
