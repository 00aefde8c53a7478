/// The text of the files diagnostics point into, kept so messages can quote the offending line.
public struct SourceFiles: Sendable {
    private var contents: [String: [UInt8]] = [:]

    public init() {}

    public mutating func add(_ file: String, bytes: [UInt8]) { contents[file] = bytes }

    /// The given 1-based line of `file`, without its line terminator, decoded leniently.
    public func line(_ number: Int, of file: String) -> String? {
        guard let bytes = contents[file], number >= 1 else { return nil }
        var current = 1
        var start = 0
        var index = 0
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
            out += "\(location): \(d.severity.rawValue): \(d.message)\n"
            if let text = sources.line(location.line, of: location.file) {
                let shown = Self.printable(text)
                out += shown + "\n"
                out += Self.caretLine(for: shown, column: location.column) + "\n"
            }
        } else {
            out += "jobrun: \(d.severity.rawValue): \(d.message)\n"
        }
    }

    /// Control characters are shown as U+FFFD so the caret stays aligned and the terminal stays sane.
    static func printable(_ line: String) -> String {
        String(String.UnicodeScalarView(line.unicodeScalars.map { scalar in
            if scalar == "\t" { return scalar }
            if scalar.value < 0x20 || scalar.value == 0x7F { return "\u{FFFD}" }
            return scalar
        }))
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
