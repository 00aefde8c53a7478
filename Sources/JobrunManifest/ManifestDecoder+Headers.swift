import JobrunCore

extension ManifestDecoder {
    /// A `headers` mapping: names are tokens, unique case-insensitively, not owned by jobrun; values
    /// have no CR, LF, NUL or other control characters and may use `${VAR}` (which marks them secret).
    mutating func headers(_ node: YAMLNode) -> [HeaderField]? {
        guard requireMapping(node, "'headers'") else { return nil }
        var fields: [HeaderField] = []
        var seen: [String: YAMLNode] = [:]
        var ok = true
        for pair in doc.pairs(node) {
            let name = doc.scalar(pair.key)
            let lower = name.lowercased()
            // Whatever else is wrong with it, a credential's literal value never reaches stderr.
            if HeaderField.isSecretName(name), doc.kind(pair.value) == .scalar, !doc.isNull(pair.value) {
                secretLiterals.formUnion(Self.literalSecretParts(of: doc.scalar(pair.value)))
            }
            if !HeaderField.isToken(name) {
                diagnostics.error("header name '\(name)' is not a valid HTTP token", at: location(pair.key))
                ok = false
                continue
            }
            if HeaderField.reservedNames.contains(lower) {
                diagnostics.error("header '\(name)' is set by jobrun itself and cannot be given in a manifest", at: location(pair.key))
                ok = false
                continue
            }
            if let first = seen[lower] {
                diagnostics.error(
                    "header '\(name)' is given twice (header names are case-insensitive)", at: location(pair.key),
                    notes: [.note("first given here", at: location(first))])
                ok = false
                continue
            }
            seen[lower] = pair.key
            guard doc.kind(pair.value) == .scalar else {
                diagnostics.error("the value of header '\(name)' must be a string, found \(doc.kindDescription(pair.value))", at: location(pair.value))
                ok = false
                continue
            }
            let raw = doc.isNull(pair.value) ? "" : doc.scalar(pair.value)
            guard let (value, fromEnvironment) = expand(raw, node: pair.value, header: name) else {
                ok = false
                continue
            }
            if let bad = value.utf8.firstIndex(where: { ($0 < 0x20 && $0 != 0x09) || $0 == 0x7F }) {
                let byte = value.utf8[bad]
                let what = byte == 0x0D ? "a carriage return (CR)" : byte == 0x0A ? "a line feed (LF)" : byte == 0 ? "a NUL character" : "a control character"
                // Never echo the value: it may hold a secret.
                diagnostics.error("the value of header '\(name)' contains \(what); that would inject extra headers", at: location(pair.value))
                ok = false
                continue
            }
            fields.append(HeaderField(name: name, value: value, isSecret: fromEnvironment))
        }
        return ok ? fields : nil
    }

    /// Expands `${VAR}` from the environment (`$$` is a literal `$`). An unset variable is an error.
    mutating func expand(_ text: String, node: YAMLNode, header: String) -> (String, Bool)? {
        guard text.utf8.contains(UInt8(ascii: "$")) else { return (text, false) }
        let b = Array(text.utf8)
        var out: [UInt8] = []
        var usedEnvironment = false
        var ok = true
        var i = 0
        while i < b.count {
            if b[i] == UInt8(ascii: "$"), i + 1 < b.count, b[i + 1] == UInt8(ascii: "$") {
                out.append(UInt8(ascii: "$"))
                i += 2
                continue
            }
            if b[i] == UInt8(ascii: "$"), i + 1 < b.count, b[i + 1] == UInt8(ascii: "{") {
                guard let close = b[(i + 2)...].firstIndex(of: UInt8(ascii: "}")) else {
                    diagnostics.error("unterminated '${' in the value of header '\(header)'", at: location(node, offsetInScalar: i))
                    return nil
                }
                let name = String(decoding: b[(i + 2)..<close], as: UTF8.self)
                let isName =
                    !name.isEmpty
                    && name.utf8.allSatisfy { c in
                        c == UInt8(ascii: "_") || (c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9"))
                            || (c | 0x20 >= UInt8(ascii: "a") && c | 0x20 <= UInt8(ascii: "z"))
                    } && !(name.utf8.first.map { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") } ?? false)
                if !isName {
                    diagnostics.error(
                        "'${\(name)}' in the value of header '\(header)' is not a valid environment variable name", at: location(node, offsetInScalar: i))
                    ok = false
                } else if let value = options.environment[name] {
                    out.append(contentsOf: value.utf8)
                    usedEnvironment = true
                } else {
                    diagnostics.error("environment variable '\(name)' is not set (used in header '\(header)')", at: location(node, offsetInScalar: i))
                    ok = false
                }
                i = close + 1
                continue
            }
            out.append(b[i])
            i += 1
        }
        return ok ? (String(decoding: out, as: UTF8.self), usedEnvironment) : nil
    }

    /// The parts of a credential's value written literally in the manifest. `${VAR}` references are
    /// not secret (the value lives in the environment), nor is a short scheme word like `Bearer `.
    static func literalSecretParts(of value: String) -> [String] {
        guard value.contains("${") else { return value.utf8.count >= 4 ? [value] : [] }
        var parts: [String] = []
        var rest = Substring(value)
        while let open = rest.firstRange(of: "${") {
            parts.append(String(rest[..<open.lowerBound]))
            guard let close = rest[open.upperBound...].firstIndex(of: "}") else {
                rest = ""
                break
            }
            rest = rest[rest.index(after: close)...]
        }
        parts.append(String(rest))
        return parts.filter { $0.trimmingASCII().utf8.count >= 8 }
    }
}
