/// A URL split into the parts jobrun cares about, parsed strictly (no lenient guessing).
///
/// A slice's **identity** is `scheme://host[:port]/path`: lower-cased scheme and host, the default
/// port dropped, query and fragment dropped, so a refreshed signed URL is the same slice.
public struct ParsedURL: Hashable, Sendable {
    public var scheme: String
    public var host: String
    public var port: Int?
    public var path: String
    public var query: String?
    public var fragment: String?
    /// The URL as written.
    public var text: String

    public enum ParseError: Error, Hashable, Sendable {
        case missingScheme
        case controlCharacter(offset: Int)
        case whitespace(offset: Int)
        case missingAuthority
        case userInfo
        case emptyHost
        case invalidHost(String)
        case invalidPort(String)
    }

    /// Parses `text`; every byte offset in errors is 0-based from the start of `text`.
    public static func parse(_ text: String) -> Result<ParsedURL, ParseError> {
        let b = Array(text.utf8)
        for (i, c) in b.enumerated() {
            if c < 0x20 || c == 0x7F { return .failure(.controlCharacter(offset: i)) }
            if c == 0x20 { return .failure(.whitespace(offset: i)) }
        }
        // scheme
        var i = 0
        guard let first = b.first, isAlpha(first) else { return .failure(.missingScheme) }
        while i < b.count, isAlpha(b[i]) || isDigit(b[i]) || b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-") || b[i] == UInt8(ascii: ".") { i += 1 }
        guard i < b.count, b[i] == UInt8(ascii: ":") else { return .failure(.missingScheme) }
        let scheme = String(decoding: b[0..<i], as: UTF8.self).lowercased()
        i += 1
        guard i + 1 < b.count || (i + 1 == b.count && false) || b[i...].starts(with: [0x2F, 0x2F]) else { return .failure(.missingAuthority) }
        guard b[i...].starts(with: [0x2F, 0x2F]) else { return .failure(.missingAuthority) }
        i += 2
        let authorityStart = i
        while i < b.count, b[i] != UInt8(ascii: "/"), b[i] != UInt8(ascii: "?"), b[i] != UInt8(ascii: "#") { i += 1 }
        let authority = b[authorityStart..<i]
        if authority.contains(UInt8(ascii: "@")) { return .failure(.userInfo) }
        var host: String
        var port: Int?
        if authority.first == UInt8(ascii: "[") {
            guard let close = authority.firstIndex(of: UInt8(ascii: "]")) else {
                return .failure(.invalidHost(String(decoding: authority, as: UTF8.self)))
            }
            host = String(decoding: authority[authority.startIndex...close], as: UTF8.self).lowercased()
            let rest = authority[(close + 1)...]
            if !rest.isEmpty {
                guard rest.first == UInt8(ascii: ":") else { return .failure(.invalidHost(String(decoding: authority, as: UTF8.self))) }
                switch parsePort(rest.dropFirst()) {
                case .success(let p): port = p
                case .failure(let e): return .failure(e)
                }
            }
        } else {
            let colon = authority.firstIndex(of: UInt8(ascii: ":"))
            let hostBytes = authority[authority.startIndex..<(colon ?? authority.endIndex)]
            host = String(decoding: hostBytes, as: UTF8.self).lowercased()
            for c in hostBytes
            where
                !(isAlpha(c) || isDigit(c) || c == UInt8(ascii: "-") || c == UInt8(ascii: ".") || c == UInt8(ascii: "_") || c == UInt8(ascii: "%") || c >= 0x80)
            {
                return .failure(.invalidHost(host))
            }
            if let colon {
                switch parsePort(authority[(colon + 1)...]) {
                case .success(let p): port = p
                case .failure(let e): return .failure(e)
                }
            }
        }
        if host.isEmpty && scheme != "file" { return .failure(.emptyHost) }
        let pathStart = i
        while i < b.count, b[i] != UInt8(ascii: "?"), b[i] != UInt8(ascii: "#") { i += 1 }
        var path = String(decoding: b[pathStart..<i], as: UTF8.self)
        if path.isEmpty { path = "/" }
        var query: String?
        var fragment: String?
        if i < b.count, b[i] == UInt8(ascii: "?") {
            let qs = i + 1
            i = qs
            while i < b.count, b[i] != UInt8(ascii: "#") { i += 1 }
            query = String(decoding: b[qs..<i], as: UTF8.self)
        }
        if i < b.count, b[i] == UInt8(ascii: "#") {
            fragment = String(decoding: b[(i + 1)...], as: UTF8.self)
        }
        if let p = port, p == defaultPort(for: scheme) { port = nil }
        return .success(ParsedURL(scheme: scheme, host: host, port: port, path: path, query: query, fragment: fragment, text: text))
    }

    private static func parsePort(_ bytes: ArraySlice<UInt8>) -> Result<Int?, ParseError> {
        if bytes.isEmpty { return .success(nil) }
        guard bytes.count <= 5, bytes.allSatisfy(isDigit), let v = Int(String(decoding: bytes, as: UTF8.self)), v >= 1, v <= 65535 else {
            return .failure(.invalidPort(String(decoding: bytes, as: UTF8.self)))
        }
        return .success(v)
    }

    public static func defaultPort(for scheme: String) -> Int? {
        switch scheme {
        case "http": 80
        case "https": 443
        default: nil
        }
    }

    /// `scheme://host[:port]`: the origin used for per-host limits and for deciding where secrets may go.
    public var origin: String {
        if let port { return "\(scheme)://\(host):\(port)" }
        return "\(scheme)://\(host)"
    }

    /// `scheme://host[:port]/path`, without query and fragment.
    public var identity: String { origin + path }

    /// The URL without its query and fragment, safe to print (signed URLs carry secrets in the query).
    public var displayString: String { identity }

    private static func isAlpha(_ c: UInt8) -> Bool { (c | 0x20) >= UInt8(ascii: "a") && (c | 0x20) <= UInt8(ascii: "z") }
    private static func isDigit(_ c: UInt8) -> Bool { c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9") }

    /// `%XX` escapes decoded as UTF-8; `nil` for a malformed escape or bytes that are not UTF-8.
    public static func percentDecoded(_ text: Substring) -> String? {
        var bytes: [UInt8] = []
        var utf8 = text.utf8[...]
        while let c = utf8.first {
            utf8 = utf8.dropFirst()
            guard c == UInt8(ascii: "%") else {
                bytes.append(c)
                continue
            }
            guard utf8.count >= 2, let high = Digest.nibble(utf8[utf8.startIndex]), let low = Digest.nibble(utf8[utf8.index(after: utf8.startIndex)])
            else { return nil }
            bytes.append(high << 4 | low)
            utf8 = utf8.dropFirst(2)
        }
        return String(validating: bytes, as: UTF8.self)
    }

    /// Percent-encodes a relative file path for use after a base URL. Keeps unreserved characters,
    /// sub-delimiters, `:`, `@` and `/`; everything else, `%`, `?` and `#` included, is encoded, so the
    /// file `a%20b?.ts` is fetched as `a%2520b%3F.ts`.
    public static func percentEncodePath(_ path: String) -> String {
        var needs = false
        for c in path.utf8 where !isPathSafe(c) {
            needs = true
            break
        }
        if !needs { return path }
        let hex = Array("0123456789ABCDEF".utf8)
        var out = [UInt8]()
        out.reserveCapacity(path.utf8.count + 8)
        for c in path.utf8 {
            if isPathSafe(c) {
                out.append(c)
            } else {
                out.append(UInt8(ascii: "%"))
                out.append(hex[Int(c >> 4)])
                out.append(hex[Int(c & 0xF)])
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static func isPathSafe(_ c: UInt8) -> Bool {
        if isAlpha(c) || isDigit(c) { return true }
        switch c {
        case UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"),
            UInt8(ascii: "!"), UInt8(ascii: "$"), UInt8(ascii: "&"), UInt8(ascii: "'"), UInt8(ascii: "("),
            UInt8(ascii: ")"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: ","), UInt8(ascii: ";"),
            UInt8(ascii: "="), UInt8(ascii: ":"), UInt8(ascii: "@"), UInt8(ascii: "/"):
            return true
        default:
            return false
        }
    }
}
