import JobrunCore
import JobrunSystem
import JobrunTrust

/// `slices_from:` as a file name, or as a mapping `{path, format, include, exclude}` that keeps
/// only the listed paths the patterns select.
extension ManifestDecoder {
    static let sliceSourceKeys = ["path", "format", "include", "exclude", "signature", "minisign_key", "signify_key"]
    /// The list formats `format:` takes.
    enum ListFormat: String, CaseIterable {
        /// GNU lines and BSD tags of the six digests.
        case sha256sum
        /// An HLS playlist: the files its URIs name.
        case hls
    }

    /// Where a resource's listed slices come from, and which of them it keeps.
    struct SliceSource {
        var path: String
        var pathNode: YAMLNode
        var format = ListFormat.sha256sum
        var include: [PathGlob] = []
        var exclude: [PathGlob] = []
        /// The key the list must be signed with, when it must be.
        var trust: ListTrust?

        /// Kept: selected by an `include` pattern (any, when there is none) and by no `exclude` one.
        func keeps(_ path: String) -> Bool {
            (include.isEmpty || include.contains { $0.matches(path) }) && !exclude.contains { $0.matches(path) }
        }
    }

    /// A list's signature: the key it must verify with, and the detached signature's file.
    struct ListTrust {
        var key: SignatureKey
        var keyNode: YAMLNode
        /// Relative to the manifest's folder: `signature:`, or the list's name with `.minisig`
        /// (minisign) or `.sig` (signify), as the tools name it.
        var signature: String
        var signatureNode: YAMLNode?
    }

    /// The source `node` gives; `nil` (with diagnostics) when it gives none.
    mutating func sliceSource(_ node: YAMLNode) -> SliceSource? {
        if doc.kind(node) == .mapping {
            checkKeys(node, allowed: Self.sliceSourceKeys, in: "'slices_from'")
            var ok = true
            var format = ListFormat.sha256sum
            if let n = doc.value(forKey: "format", in: node), let text = string(n, "format") {
                if let known = ListFormat(rawValue: text) {
                    format = known
                } else {
                    let names = ListFormat.allCases.map(\.rawValue)
                    diagnostics.error(
                        "'format' must be \(names.joined(separator: " or ")), found '\(text)'\(Suggestions.didYouMean(text, in: names))", at: location(n))
                    ok = false
                }
            }
            let include = doc.value(forKey: "include", in: node).map { patterns($0, "include") }
            let exclude = doc.value(forKey: "exclude", in: node).map { patterns($0, "exclude") }
            guard let n = doc.value(forKey: "path", in: node) else {
                diagnostics.error("missing required key 'path' in 'slices_from' (the checksum list, relative to the manifest)", at: location(node))
                return nil
            }
            guard let path = string(n, "path"), isFreeOfDeceptiveCharacters(path, node: n, field: "'slices_from' path") else { return nil }
            let trust = listTrust(node, listPath: path)
            guard ok, let include = include ?? [], let exclude = exclude ?? [] else { return nil }
            var source = SliceSource(path: path, pathNode: n, format: format, include: include, exclude: exclude)
            switch trust {
            case .unsigned: break
            case .signed(let trust): source.trust = trust
            case .invalid: return nil
            }
            return source
        }
        guard let path = string(node, "slices_from", expected: "a file name, or a mapping with 'path'"),
            isFreeOfDeceptiveCharacters(path, node: node, field: "'slices_from'")
        else { return nil }
        return SliceSource(path: path, pathNode: node)
    }

    /// What `slices_from`'s mapping asks of its list's signature.
    private enum TrustRequest {
        case unsigned
        case signed(ListTrust)
        /// Given wrong (reported).
        case invalid
    }

    /// The trust `slices_from`'s mapping asks for, its mistakes reported.
    private mutating func listTrust(_ node: YAMLNode, listPath: String) -> TrustRequest {
        let minisign = doc.value(forKey: "minisign_key", in: node)
        let signify = doc.value(forKey: "signify_key", in: node)
        let signatureNode = doc.value(forKey: "signature", in: node)
        if let signify, minisign != nil {
            diagnostics.error("'minisign_key' and 'signify_key' both given; a list is signed with one key", at: location(signify))
            return .invalid
        }
        guard let keyNode = minisign ?? signify else {
            if let signatureNode {
                diagnostics.error("'signature' needs the key it is checked with: 'minisign_key' or 'signify_key'", at: location(signatureNode))
                return .invalid
            }
            return .unsigned
        }
        let scheme: SignatureKey.Scheme = minisign != nil ? .minisign : .signify
        let field = "\(scheme.rawValue)_key"
        guard let keyText = string(keyNode, field, expected: "a public key, or the name of its file") else { return .invalid }
        var signature = listPath + (scheme == .minisign ? ".minisig" : ".sig")
        if let signatureNode {
            guard let text = string(signatureNode, "signature", expected: "the signature file's name"),
                isFreeOfDeceptiveCharacters(text, node: signatureNode, field: "'signature'")
            else { return .invalid }
            signature = text
        }
        let keyFileText: String
        if SignatureKey.isInline(keyText) {
            keyFileText = keyText
        } else {
            let keyPath = PathRules.join(manifestDirectory, keyText)
            switch options.files.read(keyPath) {
            case .success(let bytes):
                auxiliaryFiles.append((keyPath, bytes))
                keyFileText = String(decoding: bytes, as: UTF8.self)
            case .failure(let f):
                diagnostics.error("cannot read '\(field)' file '\(keyPath)': \(FileReader.describe(f))", at: location(keyNode))
                return .invalid
            }
        }
        do {
            let key = try SignatureKey(parsing: keyFileText, scheme: scheme)
            return .signed(ListTrust(key: key, keyNode: keyNode, signature: signature, signatureNode: signatureNode))
        } catch {
            diagnostics.error("'\(field)' '\(keyText)': \(error.message)", at: location(keyNode))
            return .invalid
        }
    }

    /// One pattern or a list of them; `nil` (with a diagnostic for each bad one) when any is bad.
    private mutating func patterns(_ node: YAMLNode, _ field: String) -> [PathGlob]? {
        let nodes: [YAMLNode]
        switch doc.kind(node) {
        case .scalar: nodes = [node]
        case .sequence: nodes = Array(doc.items(node))
        default:
            diagnostics.error("'\(field)' must be a pattern or a list of patterns; found \(doc.kindDescription(node))", at: location(node))
            return nil
        }
        var globs: [PathGlob] = []
        var ok = true
        for n in nodes {
            guard let text = string(n, field, expected: "a pattern") else {
                ok = false
                continue
            }
            do {
                globs.append(try PathGlob(text))
            } catch {
                var at = location(n)
                // A plain pattern is written as it reads; a quoted one may hold escapes: its start then.
                if doc.style(n) == .plain { at.column += error.offset }
                diagnostics.error("'\(field)' pattern '\(text)': \(error.message)", at: at)
                ok = false
            }
        }
        return ok ? globs : nil
    }
}
