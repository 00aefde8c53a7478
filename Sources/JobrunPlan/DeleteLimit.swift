/// How many files a prune may remove (`--max-delete`): a count, or a percentage of the files of
/// the resources it prunes (those their slices name and those to remove). Over it, a prune removes
/// nothing at all: a tree pruned part way is worse than one not pruned.
public enum DeleteLimit: Hashable, Sendable, CustomStringConvertible {
    case count(Int)
    case percent(Double)

    /// Half: a manifest or catalog that lost most of its slices (an empty list, a wrong filter)
    /// does not empty the mirror.
    public static let standard = DeleteLimit.percent(50)

    /// `100`, `25%` or `12.5%` (0…100); `nil` for anything else.
    public init?(parsing text: String) {
        if text.hasSuffix("%") {
            guard let value = Double(text.dropLast()), value.isFinite, (0...100).contains(value), !text.hasPrefix("+") else { return nil }
            self = .percent(value)
        } else {
            guard let value = Int(text), value >= 0, !text.hasPrefix("+") else { return nil }
            self = .count(value)
        }
    }

    /// The most files it allows removing of `total`.
    public func allowance(of total: Int) -> Int {
        switch self {
        case .count(let n): n
        case .percent(let p): Int((Double(total) * p / 100).rounded(.down))
        }
    }

    public var description: String {
        switch self {
        case .count(let n): "\(n)"
        case .percent(let p): p == p.rounded() ? "\(Int(p))%" : "\(p)%"
        }
    }
}
