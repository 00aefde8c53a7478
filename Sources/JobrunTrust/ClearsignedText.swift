/// The shape of an OpenPGP cleartext-signed file (RFC 4880 §7), as apt requires it before
/// handing a file to gpgv: it starts with the signed-message header, holds one signed message
/// and one signature block, and nothing follows the signature. A file of another shape (a binary
/// or compressed OpenPGP message, two messages one after the other, text outside the signed part)
/// is refused unread.
public enum ClearsignedText {
    static let begin = "-----BEGIN PGP SIGNED MESSAGE-----"
    static let signature = "-----BEGIN PGP SIGNATURE-----"
    static let end = "-----END PGP SIGNATURE-----"

    /// Why `bytes` is not a cleartext-signed file of that shape; `nil` when it is.
    public static func problem(_ bytes: [UInt8]) -> String? {
        // By bytes: a String would take "\r\n" for one character.
        var lines: [ArraySlice<UInt8>] = []
        for line in bytes.split(separator: 0x0A, omittingEmptySubsequences: false) {
            var l = line
            while let last = l.last, last == 0x0D || last == 0x20 || last == 0x09 { l = l.dropLast() }
            lines.append(l)
        }
        func count(_ marker: String) -> Int { lines.count { $0.elementsEqual(marker.utf8) } }
        guard let first = lines.first, first.elementsEqual(begin.utf8) else { return "it does not start with '\(begin)': it is not a clearsigned file" }
        guard count(begin) == 1, count(signature) == 1 else { return "it holds more than one signed message" }
        guard count(end) == 1, let endAt = lines.lastIndex(where: { $0.elementsEqual(end.utf8) }) else {
            return "its signature block is not closed with '\(end)'"
        }
        guard lines[(endAt + 1)...].allSatisfy(\.isEmpty) else { return "text follows its signature" }
        return nil
    }
}
