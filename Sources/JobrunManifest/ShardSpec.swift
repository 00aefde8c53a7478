/// Which shard of how many a run is (`--shard K/N`, 0-based), as given or as the scheduler that
/// started it says (`--shard auto`).
public struct ShardSpec: Sendable, Hashable, CustomStringConvertible {
    public var index: Int
    public var count: Int

    /// The most shards a run may be one of.
    public static let maxCount = 100_000

    public init(index: Int, count: Int) {
        self.index = index
        self.count = count
    }

    /// `K/N`, as `--shard` takes it.
    public var description: String { "\(index)/\(count)" }

    /// Why a `--shard` value cannot be used.
    public struct Problem: Error, Sendable, Hashable, CustomStringConvertible {
        public var description: String
    }

    /// `text` as a shard: `K/N` (0 ≤ K < N ≤ ``maxCount``), or `auto`, read from the environment:
    ///
    /// | variables | shard |
    /// |---|---|
    /// | `JOB_COMPLETION_INDEX` (a Kubernetes Indexed Job) | that index, of `count` (`--shard-count`, the Job's `completions`), which is required |
    /// | `CI_NODE_INDEX` and `CI_NODE_TOTAL` (GitLab's `parallel:`, 1-based) | index − 1 of total (`count`, if given, must agree) |
    ///
    /// `count` beside `K/N` must agree with `N`.
    public static func resolve(_ text: String, count: Int?, environment: [String: String]) -> Result<ShardSpec, Problem> {
        func problem(_ message: String) -> Result<ShardSpec, Problem> { .failure(Problem(description: message)) }
        if let count, !(1...maxCount).contains(count) { return problem("--shard-count must be from 1 to \(maxCount), not \(count)") }
        func checked(_ index: Int, _ total: Int, _ source: String) -> Result<ShardSpec, Problem> {
            guard (1...maxCount).contains(total) else { return problem("\(source): the shard count must be from 1 to \(maxCount), not \(total)") }
            guard (0..<total).contains(index) else { return problem("\(source): shard \(index) is not one of 0 to \(total - 1)") }
            if let count, count != total { return problem("\(source) says \(total) shards, --shard-count \(count)") }
            return .success(ShardSpec(index: index, count: total))
        }
        guard text == "auto" else {
            let parts = text.split(separator: "/", omittingEmptySubsequences: false)
            guard parts.count == 2, let k = Int(parts[0]), let n = Int(parts[1]), parts.allSatisfy({ $0.allSatisfy(\.isASCIIDigit) }) else {
                return problem("'\(text)' is not K/N (shard K, 0-based, of N; for example 0/4) or auto")
            }
            return checked(k, n, "--shard \(text)")
        }
        if let raw = environment["JOB_COMPLETION_INDEX"], !raw.isEmpty {
            guard let k = Int(raw), raw.allSatisfy(\.isASCIIDigit) else { return problem("--shard auto: JOB_COMPLETION_INDEX '\(raw)' is not a whole number") }
            guard let count else {
                return problem("--shard auto: JOB_COMPLETION_INDEX (Kubernetes) gives the index only: add --shard-count N, the Job's completions")
            }
            return checked(k, count, "--shard auto (JOB_COMPLETION_INDEX \(raw))")
        }
        if let rawIndex = environment["CI_NODE_INDEX"], let rawTotal = environment["CI_NODE_TOTAL"], !rawIndex.isEmpty, !rawTotal.isEmpty {
            guard let k = Int(rawIndex), let n = Int(rawTotal), rawIndex.allSatisfy(\.isASCIIDigit), rawTotal.allSatisfy(\.isASCIIDigit) else {
                return problem("--shard auto: CI_NODE_INDEX '\(rawIndex)' and CI_NODE_TOTAL '\(rawTotal)' are not whole numbers")
            }
            return checked(k - 1, n, "--shard auto (GitLab CI_NODE_INDEX \(rawIndex), CI_NODE_TOTAL \(rawTotal))")
        }
        return problem(
            "--shard auto: neither JOB_COMPLETION_INDEX (a Kubernetes Indexed Job) nor CI_NODE_INDEX and CI_NODE_TOTAL (GitLab's parallel:) is set; give --shard K/N"
        )
    }
}

private extension Character {
    var isASCIIDigit: Bool { isASCII && isNumber }
}
