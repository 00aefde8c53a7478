import JobrunSystem
/// The text of the files diagnostics point into, kept so messages can quote the offending line.
public struct SourceFiles: Sendable {
    private var contents: [String: [UInt8]] = [:]
    /// Texts never shown in a quoted line (literal credentials); each prints as `<redacted>`.
    public private(set) var redactions: Set<String> = []

    public init() {}

    public mutating func add(_ file: String, bytes: [UInt8]) { contents[file] = bytes }

    public mutating func redact(_ secrets: some Sequence<String>) {
        // Very short values would blank out unrelated text and cannot be real credentials.
        for s in secrets where s.unicodeScalars.count >= 4 { redactions.insert(s) }
    }

    /// The given 1-based line of `file`, without its line terminator, decoded leniently. A UTF-8
    /// byte order mark is left out: columns do not count it.
    public func line(_ number: Int, of file: String) -> String? {
        guard let bytes = contents[file], number >= 1 else { return nil }
        let byteOrderMarkLength = FileReader.byteOrderMarkLength(bytes)
        var current = 1
        var start = byteOrderMarkLength
        var index = byteOrderMarkLength
        let count = bytes.count
        while current < number {
            guard let newline = bytes[index...].firstIndex(of: 0x0A) else { return nil }
            index = newline + 1
            current += 1
            start = index
        }
        if start > count { return nil }
        var end = bytes[start...].firstIndex(of: 0x0A) ?? count
        if end > start, bytes[end - 1] == 0x0D { end -= 1 }
        return String(decoding: bytes[start..<end], as: UTF8.self)
    }
}

/// Renders diagnostics the way compilers do:
///
///     manifests/site.yaml:12:9: error: unknown key 'checksumm' (did you mean 'checksum'?)
///         checksumm: sha256
///         ^
public struct DiagnosticRenderer: Sendable {
    public var sources: SourceFiles

    public init(sources: SourceFiles) { self.sources = sources }

    public func render(_ diagnostic: Diagnostic) -> String {
        var out = ""
        renderOne(diagnostic, into: &out)
        for note in diagnostic.notes { renderOne(note, into: &out) }
        return out
    }

    public func render(_ diagnostics: [Diagnostic]) -> String {
        diagnostics.map(render).joined()
    }

    private func renderOne(_ d: Diagnostic, into out: inout String) {
        if let location = d.location {
            out += "\(location): \(d.severity.rawValue): \(Self.visible(d.message))\n"
            if let text = sources.line(location.line, of: location.file) {
                let (redacted, column) = Self.redact(text, column: location.column, secrets: sources.redactions)
                let shown = Self.printable(redacted)
                out += shown + "\n"
                out += Self.caretLine(for: shown, column: column) + "\n"
            }
        } else {
            out += "jobrun: \(d.severity.rawValue): \(Self.visible(d.message))\n"
        }
    }

    /// Replaces every secret in `line` with `<redacted>` and moves the caret column to match;
    /// a caret inside a secret points at the start of its replacement.
    static func redact(_ line: String, column: Int, secrets: Set<String>) -> (String, Int) {
        guard !secrets.isEmpty else { return (line, column) }
        var scalars = Array(line.unicodeScalars)
        var column = column
        // Longest first, so a secret containing another is replaced whole.
        for secret in secrets.sorted(by: { $0.unicodeScalars.count > $1.unicodeScalars.count }) {
            let needle = Array(secret.unicodeScalars)
            let replacement = Array(HeaderField.redacted.unicodeScalars)
            var i = 0
            while i + needle.count <= scalars.count {
                if Array(scalars[i..<(i + needle.count)]) == needle {
                    scalars.replaceSubrange(i..<(i + needle.count), with: replacement)
                    let start = i + 1  // 1-based column of the secret
                    if column >= start + needle.count {
                        column += replacement.count - needle.count
                    } else if column > start {
                        column = start
                    }
                    i += replacement.count
                } else {
                    i += 1
                }
            }
        }
        return (String(String.UnicodeScalarView(scalars)), column)
    }

    /// Control, bidirectional, invisible format and noncharacters are shown as U+FFFD so the caret
    /// stays aligned, the line reads in the order it is stored and the terminal stays sane.
    static func printable(_ line: String) -> String {
        String(
            String.UnicodeScalarView(
                line.unicodeScalars.map { scalar in
                    scalar != "\t" && DeceptiveCharacter(scalar) != nil ? "\u{FFFD}" : scalar
                }))
    }

    /// A message quoting a value that holds a bidirectional, invisible format, C1 control or
    /// noncharacter shows it as `<U+202E>`, so the message reads as it is stored.
    static func visible(_ message: String) -> String {
        guard message.utf8.contains(where: { $0 >= 0x80 }) else { return message }
        var out = ""
        for scalar in message.unicodeScalars {
            if scalar.value >= 0x80, let found = DeceptiveCharacter(scalar) {
                out += "<" + found.notation + ">"
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// Spaces up to the column (tabs kept, so the caret lines up under tab-indented text), then `^`.
    static func caretLine(for line: String, column: Int) -> String {
        var prefix = ""
        var col = 1
        for scalar in line.unicodeScalars where col < column {
            prefix.unicodeScalars.append(scalar == "\t" ? "\t" : " ")
            col += 1
        }
        while col < column {
            prefix += " "
            col += 1
        }
        return prefix + "^"
    }
}
