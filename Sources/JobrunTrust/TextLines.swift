/// Lines of a key or signature file: `\n` or `\r\n` ends one (split on bytes: Swift reads
/// `\r\n` as one character, which is not `\n`).
enum TextLines {
    static func split(_ text: String) -> [Substring] {
        text.utf8.split(separator: 0x0A, omittingEmptySubsequences: false).map { line in
            Substring(line.last == 0x0D ? line.dropLast() : line)
        }
    }
}
