/// An IP address or a range of them (CIDR: `10.0.0.0/8`, `fd00::/8`), IPv4 or IPv6.
public struct AddressRange: Sendable, Hashable, CustomStringConvertible {
    /// 4 bytes (IPv4) or 16 (IPv6).
    public let bytes: [UInt8]
    public let prefixLength: Int

    /// `text` as an address (a range of one) or a CIDR range; `nil` when it is neither.
    public init?(_ text: String) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count <= 2, let address = Self.parse(String(parts[0])) else { return nil }
        let bits = address.count * 8
        var length = bits
        if parts.count == 2 {
            guard let n = Int(parts[1]), (0...bits).contains(n), parts[1].allSatisfy(\.isASCII) else { return nil }
            length = n
        }
        bytes = address
        prefixLength = length
    }

    private init(bytes: [UInt8], prefixLength: Int) {
        self.bytes = bytes
        self.prefixLength = prefixLength
    }

    public var description: String {
        let full = prefixLength == bytes.count * 8
        return Self.text(of: bytes) + (full ? "" : "/\(prefixLength)")
    }

    /// Whether `address` (4 or 16 bytes) is in the range.
    public func contains(_ address: [UInt8]) -> Bool {
        guard address.count == bytes.count else { return false }
        var left = prefixLength
        for i in bytes.indices where left > 0 {
            let take = min(8, left)
            let mask: UInt8 = take == 8 ? 0xFF : ~(0xFF >> UInt8(take))
            if address[i] & mask != bytes[i] & mask { return false }
            left -= take
        }
        return true
    }

    /// The bytes of an IPv4 (4) or IPv6 (16) address written as text; `nil` for anything else.
    public static func parse(_ text: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 { return withUnsafeBytes(of: &v4) { Array($0) } }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 { return withUnsafeBytes(of: &v6) { Array($0) } }
        return nil
    }

    static func text(of bytes: [UInt8]) -> String {
        var buffer = [CChar](repeating: 0, count: 64)
        var copy = bytes
        let family = bytes.count == 4 ? AF_INET : AF_INET6
        let ok = copy.withUnsafeMutableBytes { raw in inet_ntop(family, raw.baseAddress, &buffer, socklen_t(buffer.count)) != nil }
        return ok ? String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) : "?"
    }

    /// IPv4 addresses that are not on the public internet: loopback, link-local (169.254.169.254,
    /// the cloud metadata service, among them), private, shared (carrier-grade NAT), this
    /// network, documentation, benchmarking, 6to4 relay, multicast, reserved and broadcast.
    public static let notPublicIPv4: [AddressRange] = [
        "0.0.0.0/8", "10.0.0.0/8", "100.64.0.0/10", "127.0.0.0/8", "169.254.0.0/16", "172.16.0.0/12", "192.0.0.0/24", "192.0.2.0/24",
        "192.88.99.0/24", "192.168.0.0/16", "198.18.0.0/15", "198.51.100.0/24", "203.0.113.0/24", "224.0.0.0/4", "240.0.0.0/4",
    ].compactMap { AddressRange($0) }

    /// IPv6: only global unicast (`2000::/3`) is public, less Teredo, documentation and
    /// local-use NAT64; 6to4 is judged by the IPv4 address it carries.
    static let globalIPv6 = AddressRange("2000::/3")
    static let notPublicGlobalIPv6: [AddressRange] = ["2001::/32", "2001:db8::/32", "64:ff9b:1::/48"].compactMap { AddressRange($0) }
    static let sixToFour = AddressRange("2002::/16")

    /// What `address` is judged as: an IPv4 address mapped into IPv6 (`::ffff:a.b.c.d`),
    /// translated (`64:ff9b::a.b.c.d`) or compatible (`::a.b.c.d`) is its IPv4 address.
    public static func effective(_ address: [UInt8]) -> [UInt8] {
        guard address.count == 16 else { return address }
        let prefix = Array(address[0..<12])
        let mapped: [UInt8] = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF]
        let translated: [UInt8] = [0, 0x64, 0xFF, 0x9B, 0, 0, 0, 0, 0, 0, 0, 0]
        let compatible = [UInt8](repeating: 0, count: 12)
        if prefix == mapped || prefix == translated { return Array(address[12...]) }
        // `::` and `::1` are themselves; `::a.b.c.d` is a.b.c.d.
        if prefix == compatible, address[12..<15].contains(where: { $0 != 0 }) { return Array(address[12...]) }
        return address
    }

    /// Whether `address` is on the public internet.
    public static func isPublic(_ address: [UInt8]) -> Bool {
        let judged = effective(address)
        if judged.count == 4 { return !notPublicIPv4.contains { $0.contains(judged) } }
        guard globalIPv6?.contains(judged) == true, !notPublicGlobalIPv6.contains(where: { $0.contains(judged) }) else { return false }
        if sixToFour?.contains(judged) == true { return isPublic(Array(judged[2..<6])) }
        return true
    }
}

/// Which addresses a request may connect to: any public one, and those of `allowed` (a catalog's
/// `allow:` naming an address or a range). Checked on the address libcurl connected to, every
/// request (redirects included), so a name that resolves to a private address is caught too.
public struct AddressRule: Sendable, Hashable {
    public var allowed: [AddressRange]

    public init(allowed: [AddressRange]) { self.allowed = allowed }

    /// Why a connection to `ip` (as text) is refused; `nil` when it may be made.
    public func refusal(of ip: String) -> String? {
        guard let address = AddressRange.parse(ip) else { return "the address '\(ip)' could not be read" }
        let judged = AddressRange.effective(address)
        if AddressRange.isPublic(address) || allowed.contains(where: { $0.contains(judged) || $0.contains(address) }) { return nil }
        return "it connected to \(ip), which is not a public address (loopback, link-local, private or reserved)"
    }
}
