import JobrunCore

/// `refresh:` in `defaults`, a resource or a slice: `never`, `conditional` or `always`, or a
/// mapping `{mode: conditional, max_age: 6h}`.
extension ManifestDecoder {
    static let refreshKeys = ["mode", "max_age"]
    /// `max_age`'s range: a second to a year.
    static let refreshMaxAgeRange: ClosedRange<Int64> = 1_000...(365 * 86_400_000)

    /// The policy `node` gives; `nil` (with a diagnostic) when it gives none. A mapping over an
    /// `inherited` policy (a resource's over `defaults`') replaces only the keys it gives; a slice's
    /// (no `inherited`) must give `mode`. The scalar form is `mode` alone, without `max_age`.
    mutating func refreshPolicy(_ node: YAMLNode, over inherited: RefreshPolicy? = nil) -> RefreshPolicy? {
        if doc.kind(node) == .mapping {
            checkKeys(node, allowed: Self.refreshKeys, in: "'refresh'")
            var policy = inherited ?? RefreshPolicy()
            var ok = true
            if let n = doc.value(forKey: "mode", in: node) {
                if let mode = refreshMode(n) { policy.mode = mode } else { ok = false }
            } else if inherited == nil {
                diagnostics.error("missing required key 'mode' in a slice's 'refresh' (never, conditional or always)", at: location(node))
                ok = false
            }
            if let n = doc.value(forKey: "max_age", in: node) {
                if let d = duration(n, "max_age", in: Self.refreshMaxAgeRange) { policy.maxAge = d } else { ok = false }
                if ok, policy.mode == .never {
                    diagnostics.warning("'max_age' has no effect: 'mode' is never, so nothing is asked again", at: location(n))
                }
            }
            return ok ? policy : nil
        }
        guard doc.kind(node) == .scalar else {
            diagnostics.error(
                "'refresh' must be never, conditional or always, or a mapping with 'mode' and 'max_age'; found \(doc.kindDescription(node))", at: location(node)
            )
            return nil
        }
        return refreshMode(node).map { RefreshPolicy(mode: $0) }
    }

    private mutating func refreshMode(_ node: YAMLNode) -> RefreshPolicy.Mode? {
        guard let text = string(node, "refresh", expected: "never, conditional or always") else { return nil }
        if let mode = RefreshPolicy.Mode(rawValue: text) { return mode }
        let names = RefreshPolicy.Mode.allCases.map(\.rawValue)
        diagnostics.error("'refresh' must be never, conditional or always, found '\(text)'\(Suggestions.didYouMean(text, in: names))", at: location(node))
        return nil
    }
}
