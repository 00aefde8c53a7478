import JobrunCore
import JobrunSystem

/// `slices_from: {format: debian, suite, components, architectures, keyring}`: a Debian
/// repository at the resource's `base_url`, its `InRelease` verified with the keyring.
extension ManifestDecoder {
    /// The source of a Debian repository; `nil` (with diagnostics) when it is given wrong.
    mutating func debianSource(_ node: YAMLNode, origins: [ResourceOrigin]) -> SliceSource? {
        var ok = true
        for key: StaticString in ["path", "url", "signature", "minisign_key", "signify_key"] {
            guard let n = doc.value(forKey: key, in: node) else { continue }
            diagnostics.error(
                "'\(key)' is not used with 'format: debian': the repository is the resource's 'base_url', and its InRelease is verified with 'keyring'",
                at: location(n))
            ok = false
        }
        if let n = doc.value(forKey: "allow", in: node) {
            diagnostics.error("'allow' is not used with 'format: debian': every file of a repository is at the resource's origins", at: location(n))
            ok = false
        }
        let suite: String?
        if let n = doc.value(forKey: "suite", in: node) {
            suite = string(n, "suite").flatMap { debianPath($0, node: n, field: "suite") }
        } else {
            diagnostics.error("missing required key 'suite' in a Debian 'slices_from' (the suite or codename: bookworm, stable, …)", at: location(node))
            suite = nil
        }
        let components = doc.value(forKey: "components", in: node).map { debianList($0, "components", isArchitecture: false) } ?? ["main"]
        var architectures: [String]?
        if let n = doc.value(forKey: "architectures", in: node) {
            architectures = debianList(n, "architectures", isArchitecture: true)
        } else {
            diagnostics.error("missing required key 'architectures' in a Debian 'slices_from' (amd64, arm64, …)", at: location(node))
        }
        var keyring: String?
        if let n = doc.value(forKey: "keyring", in: node) {
            if let text = string(n, "keyring", expected: "the keyring's file"), isFreeOfDeceptiveCharacters(text, node: n, field: "'keyring'") {
                let path = PathRules.join(manifestDirectory, text)
                switch options.files.read(path) {
                case .success(let bytes):
                    auxiliaryFiles.append((path, bytes))
                    keyring = text
                case .failure(let f):
                    diagnostics.error("cannot read 'keyring' file '\(path)': \(FileReader.describe(f))", at: location(n))
                }
            }
        } else {
            diagnostics.error(
                "missing required key 'keyring' in a Debian 'slices_from': the OpenPGP keyring its InRelease must be signed with (apt's 'Signed-By')",
                at: location(node))
        }
        guard let base = origins.first?.url, base.hasSuffix("/") else {
            diagnostics.error("a Debian repository is the resource's 'base_url', which must end with '/'", at: location(node))
            return nil
        }
        guard ok, let suite, let components, let architectures, let keyring else { return nil }
        var source = SliceSource(place: .url(base + "dists/" + ParsedURL.percentEncodePath(suite) + "/InRelease"), placeNode: node, format: .debian)
        source.debian = DebianSelection(suite: suite, components: components, architectures: architectures)
        source.keyring = keyring
        return source
    }

    /// A suite or component: a clean relative path (`bookworm`, `updates/main`).
    private mutating func debianPath(_ text: String, node: YAMLNode, field: String) -> String? {
        switch PathRules.normalize(text, allowEmpty: false, allowTrailingSlash: false) {
        case .success(let path): return path
        case .failure(let problem):
            diagnostics.error(PathRules.message(for: problem, field: "'\(field)'", value: text), at: location(node))
            return nil
        }
    }

    /// A name or a list of names; architectures are Debian's names (`amd64`, `arm64`, `all`).
    private mutating func debianList(_ node: YAMLNode, _ field: String, isArchitecture: Bool) -> [String]? {
        guard let nodes = oneOrList(node, field, of: "name") else { return nil }
        var names: [String] = []
        for n in nodes {
            guard let text = string(n, field) else { return nil }
            if isArchitecture {
                guard !text.isEmpty, text.utf8.allSatisfy({ ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2D }) else {
                    diagnostics.error("architecture '\(text)' is not a Debian architecture name (lower-case letters, digits and '-')", at: location(n))
                    return nil
                }
                names.append(text)
            } else {
                guard let path = debianPath(text, node: n, field: field) else { return nil }
                names.append(path)
            }
        }
        guard !names.isEmpty else {
            diagnostics.error("'\(field)' is empty", at: location(node))
            return nil
        }
        return names
    }
}
