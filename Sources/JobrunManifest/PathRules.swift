import JobrunCore

/// Lexical rules for destination paths: what a manifest may name below the output root.
public enum PathRules {
    static let maximumComponentBytes = 255
    static let maximumPathBytes = 4096

    enum Problem: Error, Equatable {
        case empty
        case absolute
        case escapesRoot
        case tilde
        case backslash
        /// A control, bidirectional, invisible format or noncharacter at a UTF-8 offset of the path.
        case character(DeceptiveCharacter, offset: Int)
        case componentTooLong
        case pathTooLong
        case trailingSlash
        /// A name of the form of jobrun's working files (``WorkingFileName``).
        case workingFileName(String)
    }

    /// The normalised form of `path` (no `.`, no empty components, `..` resolved), or why it is refused.
    /// `allowEmpty` admits `""` and `.` (a resource's `dest` may be the output root itself).
    static func normalize(_ path: String, allowEmpty: Bool, allowTrailingSlash: Bool) -> Result<String, Problem> {
        let bytes = path.utf8
        if bytes.isEmpty { return allowEmpty ? .success("") : .failure(.empty) }
        if bytes.count > maximumPathBytes { return .failure(.pathTooLong) }
        // One pass: refuse bad bytes and names starting with `~`, and notice whether any component
        // is empty, `.` or `..` (only then is the slower normalisation needed).
        var needsNormalizing = false
        var componentLength = 0
        var dots = 0
        var highBits: UInt8 = 0
        // Only a path with a name starting with `.` can hold a working file's name.
        var hasDotName = false
        for c in bytes {
            highBits |= c
            if c < 0x20 || c == 0x7F || c == UInt8(ascii: "\\") {
                // A control character is found by the refusal's own scan; otherwise it is the backslash.
                return .failure(refusal(of: path, otherwise: .backslash))
            }
            if c == UInt8(ascii: "/") {
                if componentLength == 0 || dots == componentLength && dots <= 2 { needsNormalizing = true }
                componentLength = 0
                dots = 0
                continue
            }
            // A name starting with `~` is refused anywhere: shells and tools expand it.
            if componentLength == 0 && c == UInt8(ascii: "~") { return .failure(refusal(of: path, otherwise: .tilde)) }
            if componentLength == 0 && c == UInt8(ascii: ".") { hasDotName = true }
            componentLength += 1
            if c == UInt8(ascii: ".") { dots += 1 }
        }
        if componentLength > 0 && dots == componentLength && dots <= 2 { needsNormalizing = true }
        // Only a name with non-ASCII text has its scalars looked at, before any problem that quotes it.
        if highBits >= 0x80, let found = DeceptiveCharacter.first(in: path) {
            return .failure(.character(found.character, offset: found.offset))
        }
        if bytes.first == UInt8(ascii: "/") { return .failure(.absolute) }
        if bytes.last == UInt8(ascii: "/") && !allowTrailingSlash { return .failure(.trailingSlash) }
        if hasDotName, let reserved = path.split(separator: "/").first(where: { WorkingFileName.isReserved($0) }) {
            return .failure(.workingFileName(String(reserved)))
        }
        // Fast path: nothing to normalise.
        if !needsNormalizing && bytes.last != UInt8(ascii: "/") {
            var length = 0
            for c in bytes {
                if c == UInt8(ascii: "/") {
                    length = 0
                } else {
                    length += 1
                    if length > maximumComponentBytes { return .failure(.componentTooLong) }
                }
            }
            return .success(path)
        }
        var parts: [Substring] = []
        for component in path.split(separator: "/", omittingEmptySubsequences: true) {
            if component.utf8.count > maximumComponentBytes { return .failure(.componentTooLong) }
            if component == "." { continue }
            if component == ".." {
                if parts.isEmpty { return .failure(.escapesRoot) }
                parts.removeLast()
                continue
            }
            parts.append(component)
        }
        if parts.isEmpty { return allowEmpty ? .success("") : .failure(.empty) }
        return .success(parts.joined(separator: "/"))
    }

    /// A deceptive character anywhere in `path` outranks `problem`, whose message would quote the
    /// path as it displays rather than as it is.
    private static func refusal(of path: String, otherwise problem: Problem) -> Problem {
        guard let found = DeceptiveCharacter.first(in: path) else { return problem }
        return .character(found.character, offset: found.offset)
    }

    static func message(for problem: Problem, field: String, value: String) -> String {
        switch problem {
        case .empty: "\(field) is empty"
        case .absolute: "\(field) '\(value)' is absolute; destinations are relative to the output root"
        case .escapesRoot: "\(field) '\(value)' escapes the output root through '..'"
        case .tilde:
            value.hasPrefix("~")
                ? "\(field) '\(value)' starts with '~'; jobrun does not expand home directories"
                : "\(field) '\(value)' has a name starting with '~'; jobrun does not expand home directories"
        case .backslash: "\(field) '\(value)' contains a backslash; use '/' to separate folders"
        case .character(let character, _): "\(field) contains \(character)"
        case .componentTooLong: "\(field) has a path component longer than \(maximumComponentBytes) bytes"
        case .pathTooLong: "\(field) is longer than \(maximumPathBytes) bytes"
        case .trailingSlash: "\(field) '\(value)' ends with '/'; a slice is a file"
        case .workingFileName(let name):
            "\(field) '\(value)' has the name '\(name)', of the form jobrun keeps for its partial downloads ('.NAME.jobrun-part') and their metadata ('.NAME.jobrun-meta')"
        }
    }

    /// `path` made absolute from `currentDirectory` and normalised lexically: output roots compared
    /// whatever way the manifests name them.
    public static func absolute(_ path: String, from currentDirectory: String) -> String {
        join(currentDirectory, path)
    }

    /// Joins and normalises filesystem paths lexically (`a/./b/../c` → `a/c`), keeping a leading `/`.
    static func join(_ base: String, _ rest: String) -> String {
        if rest.hasPrefix("/") { return lexicallyNormalized(rest) }
        if base.isEmpty || base == "." { return lexicallyNormalized(rest) }
        return lexicallyNormalized(base + "/" + rest)
    }

    static func lexicallyNormalized(_ path: String) -> String {
        let isAbsolute = path.hasPrefix("/")
        var parts: [Substring] = []
        for component in path.split(separator: "/", omittingEmptySubsequences: true) {
            if component == "." { continue }
            if component == "..", let last = parts.last, last != ".." {
                parts.removeLast()
                continue
            }
            if component == "..", isAbsolute { continue }
            parts.append(component)
        }
        let joined = parts.joined(separator: "/")
        if isAbsolute { return "/" + joined }
        return joined.isEmpty ? "." : joined
    }
}
