/// A glob on slash-separated paths, as `include:` and `exclude:` take them: `*` matches any run of
/// characters but `/`, `?` one character but `/`, `[abc]`, `[a-z]` and `[!abc]` one of a set, `\x`
/// the character `x`, and a whole `**` segment any number of folders (none included; at the end,
/// at least one name: `docs/**` is what is below `docs`, not `docs` itself). A pattern
/// without a `/` matches a file's name in any folder (`*.deb`); one with a `/` matches the whole
/// path (`pool/main/**/*.deb`). Characters are compared as Unicode scalars, exactly.
public struct PathGlob: Sendable, Hashable, CustomStringConvertible {
    public let pattern: String
    private let segments: [Segment]
    private let matchesNameOnly: Bool

    private enum Segment: Sendable, Hashable {
        case anyFolders
        case parts([Part])
    }

    private enum Part: Sendable, Hashable {
        case scalar(Unicode.Scalar)
        case anyOne
        case anyRun
        case set([ClosedRange<Unicode.Scalar>], negated: Bool)
    }

    /// Why a pattern cannot be read, and at which scalar offset of it.
    public struct Problem: Error, Sendable, Hashable {
        public var message: String
        public var offset: Int
    }

    public init(_ pattern: String) throws(Problem) {
        self.pattern = pattern
        guard !pattern.isEmpty else { throw Problem(message: "an empty pattern matches nothing", offset: 0) }
        var segments: [Segment] = []
        var offset = 0
        for text in pattern.unicodeScalars.split(separator: "/", omittingEmptySubsequences: false) {
            defer { offset += text.count + 1 }
            if text.elementsEqual("**".unicodeScalars) {
                if segments.last != .anyFolders { segments.append(.anyFolders) }
                continue
            }
            guard !text.isEmpty else { throw Problem(message: "an empty folder name ('//', or a '/' at an end) matches nothing", offset: offset) }
            segments.append(.parts(try Self.parts(Array(text), at: offset)))
        }
        // `**` alone is every path, not a name.
        matchesNameOnly = !pattern.unicodeScalars.contains("/") && segments != [.anyFolders]
        // Each `**` multiplies the ways a path can be split: a few are all a pattern needs.
        guard segments.count(where: { $0 == .anyFolders }) <= Self.mostAnyFolders else {
            throw Problem(message: "more than \(Self.mostAnyFolders) '**' in one pattern", offset: 0)
        }
        self.segments = segments
    }

    static let mostAnyFolders = 4

    private static func parts(_ scalars: [Unicode.Scalar], at base: Int) throws(Problem) -> [Part] {
        var parts: [Part] = []
        var i = 0
        while i < scalars.count {
            let c = scalars[i]
            switch c {
            case "*":
                if parts.last != .anyRun { parts.append(.anyRun) }
            case "?":
                parts.append(.anyOne)
            case "\\":
                guard i + 1 < scalars.count else { throw Problem(message: "a '\\' at the end escapes nothing", offset: base + i) }
                i += 1
                parts.append(.scalar(scalars[i]))
            case "[":
                let start = i
                i += 1
                let negated = i < scalars.count && (scalars[i] == "!" || scalars[i] == "^")
                if negated { i += 1 }
                var ranges: [ClosedRange<Unicode.Scalar>] = []
                var first = true
                while i < scalars.count, scalars[i] != "]" || first {
                    first = false
                    let low = scalars[i]
                    if i + 2 < scalars.count, scalars[i + 1] == "-", scalars[i + 2] != "]" {
                        let high = scalars[i + 2]
                        guard low <= high else { throw Problem(message: "the range '\(low)-\(high)' is backwards", offset: base + i) }
                        ranges.append(low...high)
                        i += 3
                    } else {
                        ranges.append(low...low)
                        i += 1
                    }
                }
                guard i < scalars.count else { throw Problem(message: "a '[' without its ']'", offset: base + start) }
                parts.append(.set(ranges, negated: negated))
            default:
                parts.append(.scalar(c))
            }
            i += 1
        }
        return parts
    }

    /// Whether `path` (slash-separated, relative, normalised) matches.
    public func matches(_ path: String) -> Bool {
        let names = path.unicodeScalars.split(separator: "/").map(Array.init)
        if matchesNameOnly {
            guard let name = names.last, case .parts(let parts)? = segments.first else { return false }
            return Self.match(parts[...], name[...])
        }
        return Self.match(segments[...], names[...])
    }

    private static func match(_ segments: ArraySlice<Segment>, _ names: ArraySlice<[Unicode.Scalar]>) -> Bool {
        guard let first = segments.first else { return names.isEmpty }
        switch first {
        case .anyFolders:
            var rest = names
            // At the end, `**` stands for at least one name.
            if segments.count == 1 { return !names.isEmpty }
            while true {
                if match(segments.dropFirst(), rest) { return true }
                guard !rest.isEmpty else { return false }
                rest = rest.dropFirst()
            }
        case .parts(let parts):
            guard let name = names.first, match(parts[...], name[...]) else { return false }
            return match(segments.dropFirst(), names.dropFirst())
        }
    }

    /// One name against one segment's parts; `*` backtracks to the last star only (linear enough
    /// for a name: the classic wildcard walk).
    private static func match(_ parts: ArraySlice<Part>, _ name: ArraySlice<Unicode.Scalar>) -> Bool {
        var p = parts.startIndex
        var n = name.startIndex
        var star: (part: Int, name: Int)?
        while n < name.endIndex {
            if p < parts.endIndex {
                switch parts[p] {
                case .anyRun:
                    star = (p, n)
                    p += 1
                    continue
                case .anyOne:
                    p += 1
                    n += 1
                    continue
                case .scalar(let c) where c == name[n]:
                    p += 1
                    n += 1
                    continue
                case .set(let ranges, let negated) where ranges.contains(where: { $0.contains(name[n]) }) != negated:
                    p += 1
                    n += 1
                    continue
                default:
                    break
                }
            }
            guard let last = star else { return false }
            p = last.part + 1
            n = last.name + 1
            star = (last.part, last.name + 1)
        }
        while p < parts.endIndex, parts[p] == .anyRun { p += 1 }
        return p == parts.endIndex
    }

    public var description: String { pattern }
}
