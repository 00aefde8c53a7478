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
/// Uses ``PortableSHA256``: slow in a debug build, fine for fixtures of a few MiB; for
/// larger ones ask the server (`GET /_digest/gen/N/name` returns the hex digest).
public enum Generated {
    /// The `size` bytes served at `/gen/<size>/<name>` (representation `version`).
    public static func bytes(size: Int, name: String, version: Int = 0) -> [UInt8] {
        guard size > 0 else { return [] }
        let key = UInt8(truncatingIfNeeded: version)
        var output = [UInt8](repeating: 0, count: size)
        // The message is "<name>:<block number>", built in place: interpolating a string and
        // hashing it through arrays for every 32 bytes is slow in the unoptimized test build.
        let prefix = Array("\(name):".utf8)
        var message = [UInt8](repeating: 0, count: prefix.count + 20)
        message.replaceSubrange(0..<prefix.count, with: prefix)
        var digest = [UInt8](repeating: 0, count: 32)
        var block = 0
        var position = 0
        while position < size {
            let messageCount = prefix.count + writeDecimal(block, into: &message, at: prefix.count)
            if messageCount <= 55 {
                message.withUnsafeBufferPointer { text in
                    digest.withUnsafeMutableBufferPointer { out in
                        guard let out = out.baseAddress else { return }
                        PortableSHA256.digestOfShortMessage(UnsafeBufferPointer(rebasing: text[0..<messageCount]), into: out)
                    }
                }
            } else {
                digest = PortableSHA256.digest(of: message[0..<messageCount])
            }
            let take = min(32, size - position)
            for index in 0..<take { output[position + index] = digest[index] ^ key }
            position += take
            block += 1
        }
        return output
    }

    /// Writes `value` in decimal at `index` and returns the number of digits.
    private static func writeDecimal(_ value: Int, into buffer: inout [UInt8], at index: Int) -> Int {
        var digits = 1
        var rest = value / 10
        while rest > 0 {
            digits += 1
            rest /= 10
        }
        var remaining = value
        for offset in stride(from: digits - 1, through: 0, by: -1) {
            buffer[index + offset] = UInt8(ascii: "0") + UInt8(remaining % 10)
            remaining /= 10
        }
        return digits
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
