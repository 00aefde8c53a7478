import JobrunCore

/// `publish:` in `defaults` or a resource: `in_place` or `atomic`, or a mapping
/// `{mode: atomic, grace: 30m}`.
extension ManifestDecoder {
    static let publishKeys = ["mode", "grace"]
    /// `grace`'s range: none at all to a week.
    static let publishGraceRange: ClosedRange<Int64> = 0...(7 * 86_400_000)

    /// The policy `node` gives over `inherited` (a mapping replaces only the keys it gives);
    /// `nil` (with a diagnostic) when it gives none.
    mutating func publishPolicy(_ node: YAMLNode, over inherited: PublishPolicy) -> PublishPolicy? {
        if doc.kind(node) == .mapping {
            checkKeys(node, allowed: Self.publishKeys, in: "'publish'")
            var policy = inherited
            var ok = true
            if let n = doc.value(forKey: "mode", in: node) {
                if let mode = publishMode(n) { policy.mode = mode } else { ok = false }
            }
            if let n = doc.value(forKey: "grace", in: node) {
                if let d = duration(n, "grace", in: Self.publishGraceRange) { policy.grace = d } else { ok = false }
            }
            return ok ? policy : nil
        }
        guard doc.kind(node) == .scalar else {
            diagnostics.error(
                "'publish' must be in_place or atomic, or a mapping with 'mode' and 'grace'; found \(doc.kindDescription(node))", at: location(node))
            return nil
        }
        return publishMode(node).map { PublishPolicy(mode: $0, grace: inherited.grace) }
    }

    private mutating func publishMode(_ node: YAMLNode) -> PublishPolicy.Mode? {
        guard let text = string(node, "publish", expected: "in_place or atomic") else { return nil }
        if let mode = PublishPolicy.Mode(rawValue: text) { return mode }
        let names = PublishPolicy.Mode.allCases.map(\.rawValue)
        diagnostics.error("'publish' must be in_place or atomic, found '\(text)'\(Suggestions.didYouMean(text, in: names))", at: location(node))
        return nil
    }
}
