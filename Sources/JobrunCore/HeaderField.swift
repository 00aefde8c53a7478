/// An HTTP request header from a manifest. Secret values never leave the process in readable form:
/// every report and message uses ``displayValue``.
public struct HeaderField: Hashable, Sendable {
    public var name: String
    public var value: String
    /// True when the value came from `${VAR}` or the name marks it as a credential.
    public var isSecret: Bool
    /// True for a header given under one origin of `base_urls`: sent there only, never to another
    /// origin or a redirect's target elsewhere, secret or not.
    public var staysAtOrigin: Bool

    public init(name: String, value: String, isSecret: Bool, staysAtOrigin: Bool = false) {
        self.name = name
        self.value = value
        self.isSecret = isSecret || Self.isSecretName(name)
        self.staysAtOrigin = staysAtOrigin
    }

    /// Whether the header may go along to another origin (a redirect's target elsewhere).
    public var crossesOrigins: Bool { !isSecret && !staysAtOrigin }

    public static let redacted = "<redacted>"

    /// What may be printed: the value, or `<redacted>`.
    public var displayValue: String { isSecret ? Self.redacted : value }

    /// Authorization, Proxy-Authorization, Cookie, and any name containing token, secret, key or password.
    public static func isSecretName(_ name: String) -> Bool {
        let lower = name.lowercased()
        if lower == "authorization" || lower == "proxy-authorization" || lower == "cookie" { return true }
        return ["token", "secret", "key", "password"].contains { lower.contains($0) }
    }

    /// Headers jobrun sets itself; a manifest may not.
    public static let reservedNames: Set<String> = [
        "host", "range", "if-range", "content-length", "transfer-encoding", "connection",
    ]

    /// RFC 9110 `token`: `!#$%&'*+-.^_`|~`, digits and letters.
    public static func isToken(_ name: String) -> Bool {
        guard !name.isEmpty else { return false }
        return name.utf8.allSatisfy { c in
            switch c {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"):
                true
            case UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"),
                UInt8(ascii: "'"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."),
                UInt8(ascii: "^"), UInt8(ascii: "_"), UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"):
                true
            default:
                false
            }
        }
    }
}
