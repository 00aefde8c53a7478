import JobrunCore
import JobrunSystem
import JobrunTrust

extension ManifestDecoder {
    /// Reads a `slices_from` list: `<hex>  <path>` or `<hex> *<path>` lines as `sha256sum` and its
    /// siblings write them, and BSD tags (`SHA256 (<path>) = <hex>`, as `sha256sum --tag` and BSD's
    /// `sha256` write them) for any of the six algorithms; `#` comments, blank lines and a leading
    /// byte order mark ignored, GNU's `\`-escaped names understood.
    /// Problems are reported at their line and column in the list file.
    /// With `trust`, the list is read only once its signature verifies with the key: a list that
    /// does not yields no slice, and the error says why.
    mutating func checksumList(
        _ relative: String, node: YAMLNode, algorithm: DigestAlgorithm?, trust: ListTrust? = nil, format: CatalogFormat = .sha256sum,
        origins: [ResourceOrigin] = [], allow: [PathGlob] = []
    ) -> [Slice] {
        let path = PathRules.join(manifestDirectory, relative)
        let bytes: [UInt8]
        switch options.files.read(path) {
        case .success(let b): bytes = b
        case .failure(let f):
            diagnostics.error("cannot read 'slices_from' file '\(path)': \(FileReader.describe(f))", at: location(node))
            return []
        }
        auxiliaryFiles.append((path, bytes))
        if let trust, !isTrusted(bytes, listPath: path, trust: trust, node: node) { return [] }
        switch format {
        case .hls: return Self.playlistSlices(in: bytes, file: path, origins: origins, diagnostics: &diagnostics)
        case .sha256sum: return Self.checksumEntries(in: bytes, file: path, algorithm: algorithm, diagnostics: &diagnostics)
        case .debian: return []  // never a file: a repository is fetched (``debianSource``)
        case .metalink:
            let allowance = CatalogAllowance(origins: CatalogAllowance.origins(of: origins), hosts: allow)
            return MetalinkSlices.slices(in: bytes, file: path, allowance: allowance, diagnostics: &diagnostics)
        }
    }

    /// Whether `list` (read from `listPath`) verifies with `trust`'s key and signature; an error
    /// at the signature (or the list) when it does not.
    private mutating func isTrusted(_ list: [UInt8], listPath: String, trust: ListTrust, node: YAMLNode) -> Bool {
        let signaturePath = PathRules.join(manifestDirectory, trust.signature)
        let at = location(trust.signatureNode ?? node)
        let signature: [UInt8]
        switch options.files.read(signaturePath) {
        case .success(let bytes): signature = bytes
        case .failure(let f):
            diagnostics.error(
                "cannot read the \(trust.key.scheme.rawValue) signature '\(signaturePath)' of '\(listPath)': \(FileReader.describe(f)); none of its slices is used",
                at: at)
            return false
        }
        auxiliaryFiles.append((signaturePath, signature))
        if case .failure(let problem) = DetachedSignature.verify(list, signature: signature, key: trust.key) {
            let line = problem.line.map { " (line \($0) of '\(signaturePath)')" } ?? ""
            diagnostics.error("'\(listPath)' is not trusted: \(problem.message)\(line); none of its slices is used", at: at)
            return false
        }
        return true
    }

    /// The slices a checksum list's `bytes` declare (pure: the list as read from `file`, which
    /// only names the diagnostics' location).
    static func checksumEntries(in bytes: [UInt8], file path: String, algorithm: DigestAlgorithm?, diagnostics: inout DiagnosticCollector) -> [Slice] {
        var slices: [Slice] = []
        // A UTF-8 byte order mark (Windows tools write one) is skipped and not counted in columns, as in manifests.
        FileReader.forEachLine(in: bytes) { number, line in
            if let s = checksumLine(line, file: path, line: number, algorithm: algorithm, diagnostics: &diagnostics) { slices.append(s) }
        }
        return slices
    }

    private static func checksumLine(
        _ line: ArraySlice<UInt8>, file: String, line number: Int, algorithm: DigestAlgorithm?, diagnostics: inout DiagnosticCollector
    ) -> Slice? {
        func at(_ column: Int) -> SourceLocation { SourceLocation(file: file, line: number, column: column) }
        var i = line.startIndex
        while i < line.endIndex, line[i] == 0x20 || line[i] == 0x09 { i += 1 }
        if i == line.endIndex || line[i] == UInt8(ascii: "#") { return nil }
        guard let text = String(validating: line, as: UTF8.self) else {
            diagnostics.error("invalid UTF-8 in a checksum list line", at: at(1))
            return nil
        }
        var escaped = false
        if line[i] == UInt8(ascii: "\\") {
            escaped = true
            i += 1
        }
        if let tag = bsdTag(line[i...]) {
            return bsdLine(line, tagAt: i, tag: tag, escaped: escaped, file: file, line: number, algorithm: algorithm, diagnostics: &diagnostics)
        }
        let hexStart = i
        while i < line.endIndex, line[i] != 0x20, line[i] != 0x09 { i += 1 }
        let hex = String(decoding: line[hexStart..<i], as: UTF8.self)
        let hexColumn = hexStart - line.startIndex + 1
        guard i < line.endIndex else {
            diagnostics.error("expected '<digest>  <path>' in a checksum list line", at: at(hexColumn))
            return nil
        }
        // One separator, then a mode character: ' ' (text) or '*' (binary).
        i += 1
        if i < line.endIndex, line[i] == 0x20 || line[i] == UInt8(ascii: "*") { i += 1 }
        let pathColumn = String(decoding: line[line.startIndex..<i], as: UTF8.self).unicodeScalars.count + 1
        let writtenPath = String(decoding: line[i...], as: UTF8.self)
        _ = text
        return slice(
            hex: hex, hexColumn: hexColumn, writtenPath: writtenPath, pathColumn: pathColumn, escaped: escaped, tag: nil, at: at, algorithm: algorithm,
            diagnostics: &diagnostics)
    }

    /// The algorithm a BSD tag line starts with (`SHA256 (`), if it starts with one.
    static func bsdTag(_ rest: ArraySlice<UInt8>) -> DigestAlgorithm? {
        for algorithm in DigestAlgorithm.allCases {
            let tag = algorithm.rawValue.uppercased() + " ("
            if rest.starts(with: tag.utf8) { return algorithm }
        }
        return nil
    }

    /// A BSD tag line, `ALG (<path>) = <hex>`: the path is what lies between the first `(` and the
    /// last `) = `, so a name may hold parentheses.
    private static func bsdLine(
        _ line: ArraySlice<UInt8>, tagAt start: Int, tag: DigestAlgorithm, escaped: Bool, file: String, line number: Int, algorithm: DigestAlgorithm?,
        diagnostics: inout DiagnosticCollector
    ) -> Slice? {
        func at(_ column: Int) -> SourceLocation { SourceLocation(file: file, line: number, column: column) }
        func column(_ index: Int) -> Int { String(decoding: line[line.startIndex..<index], as: UTF8.self).unicodeScalars.count + 1 }
        let open = start + tag.rawValue.utf8.count + 2
        let separator = Array(") = ".utf8)
        var close: Int?
        var k = line.endIndex - separator.count
        while k >= open {
            if line[k..<(k + separator.count)].elementsEqual(separator) {
                close = k
                break
            }
            k -= 1
        }
        guard let close else {
            diagnostics.error("expected '\(tag.rawValue.uppercased()) (<path>) = <digest>' in a checksum list line", at: at(column(start)))
            return nil
        }
        if let algorithm, algorithm != tag {
            diagnostics.error(
                "the line is tagged \(tag.rawValue.uppercased()), but the resource's 'checksum' is \(algorithm.rawValue)", at: at(column(start)))
            return nil
        }
        let hexStart = close + separator.count
        let hex = String(decoding: line[hexStart...], as: UTF8.self).trimmingASCII()
        return slice(
            hex: hex, hexColumn: column(hexStart), writtenPath: String(decoding: line[open..<close], as: UTF8.self), pathColumn: column(open),
            escaped: escaped, tag: tag, at: at, algorithm: tag, diagnostics: &diagnostics)
    }

    /// The slice of one line's digest and path, both as written (columns for the diagnostics).
    private static func slice(
        hex: String, hexColumn: Int, writtenPath: String, pathColumn: Int, escaped: Bool, tag: DigestAlgorithm?, at: (Int) -> SourceLocation,
        algorithm: DigestAlgorithm?, diagnostics: inout DiagnosticCollector
    ) -> Slice? {
        var pathText = writtenPath
        if escaped {
            guard let unescaped = unescapeChecksumName(pathText) else {
                diagnostics.error("invalid escape in a checksum list file name", at: at(pathColumn))
                return nil
            }
            pathText = unescaped
        }
        let candidates = DigestAlgorithm.candidates(forHexLength: hex.utf8.count)
        let chosen: DigestAlgorithm
        if let algorithm {
            guard hex.utf8.count == algorithm.hexLength else {
                let why = tag == nil ? "the resource's 'checksum' is \(algorithm.rawValue)" : "the line is tagged \(algorithm.rawValue.uppercased())"
                diagnostics.error(
                    "\(algorithm.rawValue) digest has \(hex.utf8.count) hex digits; it needs \(algorithm.hexLength) (\(why))", at: at(hexColumn))
                return nil
            }
            chosen = algorithm
        } else if candidates.count == 1, let only = candidates.first {
            chosen = only
        } else {
            diagnostics.error("cannot tell the algorithm of a \(hex.utf8.count)-digit digest; set 'checksum' on the resource", at: at(hexColumn))
            return nil
        }
        guard let digest = Digest(algorithm: chosen, hex: hex) else {
            let offset = Digest.firstNonHex(in: hex)?.offset ?? 0
            diagnostics.error("\(chosen.rawValue) digest contains a character that is not a hex digit", at: at(hexColumn + offset))
            return nil
        }
        switch PathRules.normalize(pathText, allowEmpty: false, allowTrailingSlash: false) {
        case .success(let p):
            return Slice(path: p, digests: [digest], location: at(pathColumn))
        case .failure(let problem):
            var column = pathColumn
            if case .character(_, let offset) = problem {
                column +=
                    escaped
                    ? writtenScalars(before: offset, inEscaped: writtenPath)
                    : String(decoding: pathText.utf8.prefix(offset), as: UTF8.self).unicodeScalars.count
            }
            diagnostics.error(PathRules.message(for: problem, field: "slice path", value: pathText), at: at(column))
            return nil
        }
    }

    /// How many scalars of an escaped name as written come before the `offset`-th byte of the name
    /// it stands for (each `\x` escape is two scalars written for one byte meant).
    static func writtenScalars(before offset: Int, inEscaped written: String) -> Int {
        var meant = 0
        var count = 0
        var it = written.unicodeScalars.makeIterator()
        while meant < offset, let scalar = it.next() {
            if scalar == "\\", it.next() != nil {
                count += 2
                meant += 1
            } else {
                count += 1
                meant += UTF8.width(scalar)
            }
        }
        return count
    }

    /// GNU coreutils escapes `\` as `\\` and newline as `\n` in names, marking the line with a leading `\`.
    static func unescapeChecksumName(_ s: String) -> String? {
        var out = ""
        var it = s.makeIterator()
        while let c = it.next() {
            if c == "\\" {
                switch it.next() {
                case "\\": out.append("\\")
                case "n": out.append("\n")
                case "r": out.append("\r")
                default: return nil
                }
            } else {
                out.append(c)
            }
        }
        return out
    }
}
