/// "Did you mean …?" for unknown keys and ids.
enum Suggestions {
    /// The candidate closest to `word` by edit distance, if it is close enough to be a likely typo.
    static func closest(to word: String, in candidates: some Sequence<String>) -> String? {
        let w = Array(word.lowercased().unicodeScalars)
        var best: (String, Int)?
        for candidate in candidates {
            let c = Array(candidate.lowercased().unicodeScalars)
            let d = distance(w, c)
            let limit = max(1, min(3, max(w.count, c.count) / 3))
            if d <= limit, d < (best?.1 ?? Int.max) { best = (candidate, d) }
        }
        return best?.0
    }

    /// Levenshtein distance with adjacent transpositions counting as one edit.
    static func distance(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous2 = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                var v = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] { v = min(v, previous2[j - 2] + 1) }
                current[j] = v
            }
            (previous2, previous, current) = (previous, current, previous2)
        }
        return previous[b.count]
    }

    static func didYouMean(_ word: String, in candidates: some Sequence<String>) -> String {
        guard let s = closest(to: word, in: candidates) else { return "" }
        return " (did you mean '\(s)'?)"
    }
}
