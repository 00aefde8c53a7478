public import JobrunCore

/// A Debian repository's `Release` (the text `InRelease` signs): which suite it is, until when it
/// may be trusted, and the size and SHA-256 of every index below `dists/SUITE/`. Pure: it is
/// read only once its signature has been verified.
public struct DebianRelease: Sendable {
    public var suite: String?
    public var codename: String?
    public var components: [String] = []
    public var architectures: [String] = []
    /// Seconds since the epoch.
    public var date: Int64?
    public var validUntil: Int64?
    /// `Acquire-By-Hash: yes`: apt asks for indexes by their hash (`…/by-hash/SHA256/HEX`).
    public var acquiresByHash = false
    /// By path below `dists/SUITE/`.
    public var indexes: [String: Index] = [:]

    public init() {}

    public struct Index: Sendable, Hashable {
        public var path: String
        public var size: Int64
        public var sha256: Digest
        /// Where it is listed in the Release.
        public var line: Int
    }

    /// The Release in `bytes` (named `file` in diagnostics); `nil` when it has no `SHA256` list.
    public static func parse(_ bytes: [UInt8], file: String, diagnostics: inout DiagnosticCollector) -> DebianRelease? {
        var release = DebianRelease()
        var sawList = false
        var syntax = DiagnosticCollector(limit: CatalogRefusal.reportedProblems)
        defer { diagnostics.append(contentsOf: syntax.diagnostics) }
        ControlStanzas.forEach(in: bytes, file: file, diagnostics: &syntax) { fields, _ in
            for field in fields {
                let text = { String(decoding: ControlStanzas.trimmed(field.value), as: UTF8.self) }
                if ControlStanzas.isNamed(field, "Suite") {
                    release.suite = text()
                } else if ControlStanzas.isNamed(field, "Codename") {
                    release.codename = text()
                } else if ControlStanzas.isNamed(field, "Components") {
                    release.components = text().split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
                } else if ControlStanzas.isNamed(field, "Architectures") {
                    release.architectures = text().split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
                } else if ControlStanzas.isNamed(field, "Date") {
                    release.date = releaseDate(text())
                    if release.date == nil {
                        diagnostics.error("'Date' is not a date: '\(text())'", at: SourceLocation(file: file, line: field.line, column: 1))
                    }
                } else if ControlStanzas.isNamed(field, "Valid-Until") {
                    release.validUntil = releaseDate(text())
                    if release.validUntil == nil {
                        diagnostics.error("'Valid-Until' is not a date: '\(text())'", at: SourceLocation(file: file, line: field.line, column: 1))
                    }
                } else if ControlStanzas.isNamed(field, "Acquire-By-Hash") {
                    release.acquiresByHash = text().lowercased() == "yes"
                } else if ControlStanzas.isNamed(field, "SHA256") {
                    sawList = true
                    for (line, entry) in ControlStanzas.lines(of: field) {
                        if let index = index(entry, line: line, file: file, diagnostics: &diagnostics) { release.indexes[index.path] = index }
                    }
                }
            }
            // The Release is one stanza; anything after it is not read.
            return false
        }
        guard sawList else {
            diagnostics.error("the Release has no 'SHA256' list of its indexes", at: SourceLocation(file: file, line: 1, column: 1))
            return nil
        }
        return release
    }

    /// ` HEX SIZE PATH`.
    private static func index(_ entry: ArraySlice<UInt8>, line: Int, file: String, diagnostics: inout DiagnosticCollector) -> Index? {
        let parts = entry.split(whereSeparator: { $0 == 0x20 || $0 == 0x09 })
        let at = SourceLocation(file: file, line: line, column: 1)
        guard parts.count == 3 else {
            diagnostics.error("expected '<sha256> <size> <path>' in the Release's SHA256 list", at: at)
            return nil
        }
        guard let digest = Digest(algorithm: .sha256, hex: String(decoding: parts[0], as: UTF8.self)) else {
            diagnostics.error("'\(String(decoding: parts[0], as: UTF8.self))' is not a SHA-256 digest", at: at)
            return nil
        }
        guard let size = Int64(String(decoding: parts[1], as: UTF8.self)), size >= 0 else {
            diagnostics.error("'\(String(decoding: parts[1], as: UTF8.self))' is not a size", at: at)
            return nil
        }
        let written = String(decoding: parts[2], as: UTF8.self)
        switch PathRules.normalize(written, allowEmpty: false, allowTrailingSlash: false) {
        case .success(let path): return Index(path: path, size: size, sha256: digest, line: line)
        case .failure(let problem):
            diagnostics.error(PathRules.message(for: problem, field: "index path", value: written), at: at)
            return nil
        }
    }

    /// A Release's date (`Sat, 11 Jul 2026 10:16:37 UTC`, as `date -R` or in UTC), in seconds.
    static func releaseDate(_ text: String) -> Int64? {
        var parts = text.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        guard parts.count == 6 else { return nil }
        if parts[1].count == 1 { parts[1] = "0" + parts[1] }
        guard ["UTC", "GMT", "Z", "+0000", "-0000"].contains(parts[5]) else { return nil }
        parts[5] = "GMT"
        return HTTPDate.parse(parts.joined(separator: " "))
    }

    /// Whether it names `suite`, by `Suite` or `Codename` (as apt matches a sources entry).
    public func names(_ suite: String) -> Bool { self.suite == suite || codename == suite }
}
