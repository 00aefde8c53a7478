public import JobrunCore

/// The pool files a Debian `Packages` index lists: one slice per `Filename`, with its `Size` and
/// `SHA256`. Pure: bytes in (already checked against the Release and decompressed), slices and
/// located diagnostics out.
public enum DebianPackages {
    /// Packages an index may list at most (Debian's largest has under 100,000).
    public static let maximumPackages = 2_000_000

    /// The slices of the index in `bytes` (named `file` in diagnostics) whose package name and
    /// path `keeps` admits, each file once.
    public static func slices(
        in bytes: [UInt8], file: String, keeps: (_ package: String, _ path: String) -> Bool, diagnostics: inout DiagnosticCollector
    ) -> [Slice] {
        var slices: [Slice] = []
        var seen: [String: Int] = [:]
        read(bytes, file: file, keeps: keeps, into: &slices, seen: &seen, diagnostics: &diagnostics)
        return slices
    }

    /// Adds the index's slices to `slices` (several indexes of one repository go into one list):
    /// a file another index already listed (an `all` package in each architecture's) is the same
    /// file, or an error. `seen` is where each path is in `slices`.
    public static func read(
        _ bytes: [UInt8], file: String, keeps: (_ package: String, _ path: String) -> Bool, into slices: inout [Slice], seen: inout [String: Int],
        diagnostics: inout DiagnosticCollector
    ) {
        var count = 0
        var syntax = DiagnosticCollector(limit: CatalogRefusal.reportedProblems)
        defer { diagnostics.append(contentsOf: syntax.diagnostics) }
        ControlStanzas.forEach(in: bytes, file: file, diagnostics: &syntax) { fields, line in
            count += 1
            guard count <= maximumPackages else {
                diagnostics.error("the index lists more than \(maximumPackages) packages", at: SourceLocation(file: file, line: line, column: 1))
                return false
            }
            var package: ArraySlice<UInt8>?
            var filename: Field?
            var size: ArraySlice<UInt8>?
            var sha256: ArraySlice<UInt8>?
            for field in fields {
                if ControlStanzas.isNamed(field, "Package") {
                    package = ControlStanzas.trimmed(field.value)
                } else if ControlStanzas.isNamed(field, "Filename") {
                    filename = Field(value: ControlStanzas.trimmed(field.value), line: field.line)
                } else if ControlStanzas.isNamed(field, "Size") {
                    size = ControlStanzas.trimmed(field.value)
                } else if ControlStanzas.isNamed(field, "SHA256") {
                    sha256 = ControlStanzas.trimmed(field.value)
                }
            }
            let at = SourceLocation(file: file, line: line, column: 1)
            guard let package, let filename, let size, let sha256 else {
                let missing = [("Package", package == nil), ("Filename", filename == nil), ("Size", size == nil), ("SHA256", sha256 == nil)]
                    .filter(\.1).map { "'\($0.0)'" }
                diagnostics.error("a package without \(missing.joined(separator: ", "))", at: at)
                return true
            }
            let name = String(decoding: package, as: UTF8.self)
            let written = String(decoding: filename.value, as: UTF8.self)
            let fileAt = SourceLocation(file: file, line: filename.line, column: 1)
            guard let bytes = Int64(String(decoding: size, as: UTF8.self)), bytes >= 0 else {
                diagnostics.error("package '\(name)': 'Size' is not a size", at: at)
                return true
            }
            guard let digest = Digest(algorithm: .sha256, hex: String(decoding: sha256, as: UTF8.self)) else {
                diagnostics.error("package '\(name)': 'SHA256' is not a SHA-256 digest", at: at)
                return true
            }
            let path: String
            switch PathRules.normalize(written, allowEmpty: false, allowTrailingSlash: false) {
            case .success(let p): path = p
            case .failure(let problem):
                diagnostics.error("package '\(name)': " + PathRules.message(for: problem, field: "'Filename'", value: written), at: fileAt)
                return true
            }
            guard keeps(name, path) else { return true }
            if let earlier = seen[path] {
                if slices[earlier].size != bytes || slices[earlier].digests != [digest] {
                    diagnostics.error("package '\(name)': '\(path)' is listed twice with another size or SHA256", at: fileAt)
                }
                return true
            }
            seen[path] = slices.count
            slices.append(Slice(path: path, size: bytes, digests: [digest], location: fileAt))
            return true
        }
    }

    private struct Field {
        var value: ArraySlice<UInt8>
        var line: Int
    }
}
