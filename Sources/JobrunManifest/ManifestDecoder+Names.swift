import JobrunCore

/// Names a manifest gives (paths, destinations, ids, the output root, files it reads, URLs) are
/// refused when they hold a character that makes them display differently from what they are.
extension ManifestDecoder {
    /// Reports the first ``DeceptiveCharacter`` of `text`, the value of `node`, at its column;
    /// `true` when there is none.
    mutating func isFreeOfDeceptiveCharacters(_ text: String, node: YAMLNode, field: String) -> Bool {
        guard let found = DeceptiveCharacter.first(in: text) else { return true }
        diagnostics.error("\(field) contains \(found.character)", at: location(node, offsetInScalar: found.offset))
        return false
    }

    /// Reports why the path `value` of `node` is refused, at the offending character when there is one.
    mutating func reportPathProblem(_ problem: PathRules.Problem, field: String, value: String, node: YAMLNode) {
        let at: SourceLocation
        if case .character(_, let offset) = problem {
            at = location(node, offsetInScalar: offset)
        } else {
            at = location(node)
        }
        diagnostics.error(PathRules.message(for: problem, field: field, value: value), at: at)
    }
}
