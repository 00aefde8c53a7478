extension Digest {
    /// Every declared digest against the computed one of its algorithm, differing ones first:
    /// `sha256 differs: expected 5f44…, actual fe85…; md5 matches`. Full hex, so a value can be
    /// compared with `sha256sum` output.
    public static func mismatchDescription(expected: [Digest], actual: [Digest]) -> String {
        var differing: [String] = []
        var matching: [String] = []
        for want in expected {
            guard let got = actual.first(where: { $0.algorithm == want.algorithm }) else { continue }
            if got == want {
                matching.append("\(want.algorithm.rawValue) matches")
            } else {
                differing.append("\(want.algorithm.rawValue) differs: expected \(want.hex), actual \(got.hex)")
            }
        }
        return (differing + matching).joined(separator: "; ")
    }

    /// `expected ALG: HEX` and `actual ALG: HEX` for every declared digest, each line ending in
    /// a newline (JUnit's `system-out`-style text).
    public static func comparisonLines(expected: [Digest], actual: [Digest]) -> String {
        var out = ""
        for want in expected {
            out += "expected \(want.algorithm.rawValue): \(want.hex)\n"
            if let got = actual.first(where: { $0.algorithm == want.algorithm }) { out += "actual \(got.algorithm.rawValue): \(got.hex)\n" }
        }
        return out
    }
}
