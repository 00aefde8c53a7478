/// The synthetic content `faultserver.py` serves at `/gen/<size>/<name>`, computed in Swift so a
/// test can write a manifest's `size` and `sha256` without asking the server.
///
/// Byte `i` of `/gen/N/name` (for `0 ≤ i < N`) is byte `i % 32` of
/// `sha256(utf8(name + ":" + String(i / 32)))`, where `name` is the rest of the path after
/// `/gen/N/`, percent-decoded, without the query. Representation version `v` (the server's
/// `etag_version=`/`change_after=` options) XORs every byte with `v & 0xFF`.
///
///     let body = Generated.bytes(size: 4096, name: "a.bin")
///     let manifestDigest = Generated.sha256Hex(size: 4096, name: "a.bin")
///     let url = server.url(Generated.path(size: 4096, name: "a.bin"))
///
/// Uses ``PortableSHA256``: fine for fixtures of a few MiB; for larger ones ask the server
/// (`GET /_digest/gen/N/name` returns the hex digest).
public enum Generated {
    /// The `size` bytes served at `/gen/<size>/<name>` (representation `version`).
    public static func bytes(size: Int, name: String, version: Int = 0) -> [UInt8] {
        precondition(size >= 0, "size must not be negative")
        let key = UInt8(truncatingIfNeeded: version)
        var output: [UInt8] = []
        output.reserveCapacity(size)
        var block = 0
        while output.count < size {
            let digest = PortableSHA256.digest(of: Array("\(name):\(block)".utf8))
            let take = min(digest.count, size - output.count)
            if key == 0 {
                output.append(contentsOf: digest[0..<take])
            } else {
                output.append(contentsOf: digest[0..<take].map { $0 ^ key })
            }
            block += 1
        }
        return output
    }

    /// The lowercase hex SHA-256 of ``bytes(size:name:version:)``.
    public static func sha256Hex(size: Int, name: String, version: Int = 0) -> String {
        PortableSHA256.hex(of: bytes(size: size, name: name, version: version))
    }

    /// `/gen/<size>/<name>`; `name` is used as is, so keep it to unreserved URL characters and `/`.
    public static func path(size: Int, name: String) -> String {
        "/gen/\(size)/\(name)"
    }

    /// `bytes` as the server sends them with `wrong_bytes=1`: byte `count / 2` XOR `0xFF`.
    public static func corrupted(_ bytes: [UInt8]) -> [UInt8] {
        guard !bytes.isEmpty else { return bytes }
        var copy = bytes
        copy[copy.count / 2] ^= 0xFF
        return copy
    }
}
