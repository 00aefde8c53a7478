/// Decides whether a redirect may be followed and which headers go along. Pure.
public enum RedirectPolicy {
    public static let maximumHops = 10

    public enum Decision: Sendable, Hashable {
        /// Follow to `url`, sending `headers`.
        case follow(url: String, headers: [HeaderField])
        /// Refuse, with why.
        case refuse(String)
    }

    /// - Parameters:
    ///   - location: the `Location` header (absolute, or relative to `current`).
    ///   - current: the URL that answered with the redirect.
    ///   - original: the URL the attempt went to (secrets and an origin's own headers stay at its origin).
    ///   - hops: redirects followed so far.
    ///   - headers: the slice's headers.
    ///
    /// | redirect                                  | decision |
    /// |-------------------------------------------|----------|
    /// | more than 10 hops                         | refuse   |
    /// | to a scheme other than http or https      | refuse   |
    /// | from https to http                        | refuse   |
    /// | to another scheme, host or port           | follow without secret headers or those of the origin (`base_urls`) |
    /// | same origin                               | follow with every header |
    public static func decide(location: String, current: String, original: String, hops: Int, headers: [HeaderField]) -> Decision {
        if hops >= maximumHops { return .refuse("more than \(maximumHops) redirects") }
        guard case .success(let from) = ParsedURL.parse(current) else { return .refuse("cannot parse '\(current)'") }
        let target = resolve(location, against: from)
        guard case .success(let to) = ParsedURL.parse(target) else { return .refuse("redirect to an invalid URL") }
        guard to.scheme == "http" || to.scheme == "https" else { return .refuse("redirect to a \(to.scheme): URL refused") }
        if from.scheme == "https" && to.scheme == "http" { return .refuse("redirect from https to http refused") }
        guard case .success(let first) = ParsedURL.parse(original) else { return .refuse("cannot parse '\(original)'") }
        let kept = to.origin == first.origin ? headers : headers.filter(\.crossesOrigins)
        return .follow(url: target, headers: kept)
    }

    /// RFC 3986 reference resolution for the forms servers send: absolute, `//host/…`, `/path`, `rel`.
    public static func resolve(_ location: String, against base: ParsedURL) -> String {
        let trimmed = location.trimmingASCII()
        if let colon = trimmed.firstIndex(of: ":"), !trimmed[..<colon].contains("/"),
            trimmed[..<colon].allSatisfy({ $0.isLetter || $0.isNumber || "+-.".contains($0) })
        {
            return trimmed
        }
        if trimmed.hasPrefix("//") { return base.scheme + ":" + trimmed }
        if trimmed.hasPrefix("/") { return base.origin + removingDotSegments(trimmed) }
        var dir = base.path
        if let slash = dir.lastIndex(of: "/") { dir = String(dir[...slash]) } else { dir = "/" }
        return base.origin + removingDotSegments(dir + trimmed)
    }

    /// RFC 3986 5.2.4 on a rooted reference's path (its query and fragment left as they are):
    /// `/a/b/../c/./d` is `/a/c/d`, and `..` never climbs above the root.
    static func removingDotSegments(_ reference: String) -> String {
        let end = reference.firstIndex { $0 == "?" || $0 == "#" } ?? reference.endIndex
        let segments = reference[..<end].split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        guard segments.contains(where: { $0 == "." || $0 == ".." }) else { return reference }
        var kept: [Substring] = []
        for (i, segment) in segments.enumerated() {
            let isLast = i == segments.count - 1
            switch segment {
            case ".": if isLast { kept.append("") }
            case "..":
                if !kept.isEmpty { kept.removeLast() }
                if isLast { kept.append("") }
            default: kept.append(segment)
            }
        }
        return "/" + kept.joined(separator: "/") + reference[end...]
    }
}
