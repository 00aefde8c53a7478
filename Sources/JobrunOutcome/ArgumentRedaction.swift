/// The command line as the event stream shows it (``RunStart/arguments``): no jobrun option takes
/// a secret, but an argument can be a URL, and a URL carries credentials in its userinfo and
/// signatures in its query. Every `scheme://` in an argument (`--opt=URL` included) keeps its
/// scheme, host and path; its userinfo becomes `<redacted>@` and everything from its `?` or `#`
/// on becomes `?<redacted>` (or `#<redacted>`).
///
/// | argument                                 | shown as                               |
/// |------------------------------------------|----------------------------------------|
/// | `site.yaml`                              | `site.yaml`                            |
/// | `https://u:pw@cdn.example.com/a?sig=x`   | `https://<redacted>@cdn.example.com/a?<redacted>` |
/// | `--cacert=https://h/ca.pem#t`            | `--cacert=https://h/ca.pem#<redacted>` |
public enum ArgumentRedaction {
    public static let marker = "<redacted>"

    public static func redact(_ arguments: [String]) -> [String] {
        arguments.map(redact(argument:))
    }

    public static func redact(argument: String) -> String {
        var out = ""
        var rest = Substring(argument)
        while let separator = rest.firstRange(of: "://") {
            out += rest[..<separator.upperBound]
            rest = rest[separator.upperBound...]
            // The authority ends at the path, the query or the fragment.
            let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
            let authority = rest[..<authorityEnd]
            if let at = authority.lastIndex(of: "@") {
                out += marker + "@" + authority[authority.index(after: at)...]
            } else {
                out += authority
            }
            rest = rest[authorityEnd...]
            // A query (or fragment) before any further URL runs to the end of the argument:
            // nothing after it is shown. A path is copied by the next turn, or at the end.
            if let query = rest.firstIndex(where: { $0 == "?" || $0 == "#" }),
                rest.firstRange(of: "://").map({ query < $0.lowerBound }) ?? true
            {
                return out + rest[..<query] + String(rest[query]) + marker
            }
        }
        return out + rest
    }
}
