import JobrunCore

extension ManifestDecoder {
    static let hookKeys = HookTrigger.allCases.map(\.rawValue) + ["on_hook_failure", "timeout"]

    /// `hooks:`: a command per trigger (`null` removes one the defaults gave), `on_hook_failure`
    /// and `timeout`; each key given overrides the defaults' one.
    mutating func readHooks(_ node: YAMLNode, into hooks: inout HookSettings) {
        guard requireMapping(node, "'hooks'") else { return }
        checkKeys(node, allowed: Self.hookKeys, in: "'hooks'")
        for pair in doc.pairs(node) {
            guard let trigger = HookTrigger(rawValue: doc.scalar(pair.key)) else { continue }
            if doc.isNull(pair.value) {
                hooks.commands[trigger] = nil
            } else if let argv = hookCommand(pair.value, field: trigger.rawValue) {
                hooks.commands[trigger] = argv
            }
        }
        if let n = doc.value(forKey: "on_hook_failure", in: node), let text = string(n, "on_hook_failure") {
            if let policy = HookFailurePolicy(rawValue: text) {
                hooks.failurePolicy = policy
            } else {
                let names = HookFailurePolicy.allCases.map(\.rawValue)
                diagnostics.error("'on_hook_failure' must be warn or fail, found '\(text)'\(Suggestions.didYouMean(text, in: names))", at: location(n))
            }
        }
        if let n = doc.value(forKey: "timeout", in: node), let d = duration(n, "timeout", in: 1...86_400_000) { hooks.timeout = d }
    }

    /// A hook's argument vector: a non-empty list of strings, the first naming the program. No
    /// shell and no `${VAR}`: every item reaches the program as it is written. A program path
    /// with a slash is relative to the manifest's folder; a bare name is looked up on `PATH`
    /// when the hook runs, as a shell would.
    mutating func hookCommand(_ node: YAMLNode, field: String) -> [String]? {
        if doc.kind(node) == .scalar {
            diagnostics.error(
                "'\(field)' must be a list: the program and its arguments, like [\"notify-send\", \"mirror updated\"] (no shell runs it; write [\"sh\", \"-c\", \"…\"] for one)",
                at: location(node))
            return nil
        }
        guard requireSequence(node, "'\(field)'") else { return nil }
        guard doc.count(node) > 0 else {
            diagnostics.error("'\(field)' is empty: give the program and its arguments, or null for no hook", at: location(node))
            return nil
        }
        var argv: [String] = []
        var ok = true
        for (k, item) in doc.items(node).enumerated() {
            let what = k == 0 ? "the program of '\(field)'" : "argument \(k) of '\(field)'"
            guard doc.kind(item) == .scalar, !doc.isNull(item) else {
                let found = doc.isNull(item) ? "nothing (null)" : doc.kindDescription(item)
                diagnostics.error("\(what) must be a string, found \(found)", at: location(item))
                ok = false
                continue
            }
            let text = doc.scalar(item)
            // A C string ends at its first NUL: the program would get another argument.
            if text.utf8.contains(0) {
                diagnostics.error("\(what) contains a NUL character", at: location(item))
                ok = false
            } else if k == 0 {
                if text.isEmpty {
                    diagnostics.error("the program of '\(field)' is empty", at: location(item))
                    ok = false
                } else if isFreeOfDeceptiveCharacters(text, node: item, field: what) {
                    argv.append(text.contains("/") ? Self.programPath(text, in: manifestDirectory) : text)
                } else {
                    ok = false
                }
            } else {
                argv.append(text)
            }
        }
        return ok ? argv : nil
    }

    /// A program path with a slash, against the manifest's folder; it keeps a slash (`./x`), so
    /// that it is never looked up on `PATH`.
    static func programPath(_ text: String, in folder: String) -> String {
        let joined = PathRules.join(folder, text)
        return joined.contains("/") ? joined : "./" + joined
    }
}
