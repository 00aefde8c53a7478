public import JobrunCore

/// A `sha256sum`-format list of a resource's files (`--record-sums`): `<hex>  <path>` a line,
/// paths relative to the resource's folder (`output/dest`) exactly as its slices name them.
/// So the list is that resource's `slices_from` as it stands, and `sha256sum -c LIST` run in
/// that folder checks every file.
public struct ChecksumList: Sendable, Hashable {
    public struct Line: Sendable, Hashable {
        public var path: String
        public var digest: Digest

        public init(path: String, digest: Digest) {
            self.path = path
            self.digest = digest
        }
    }

    /// In the order given (callers pass slice order).
    public var lines: [Line]

    public init(lines: [Line] = []) {
        self.lines = lines
    }

    /// The list as bytes, a line each, `\n`-terminated; empty when there are no lines.
    public func rendered() -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(lines.count * 100)
        for line in lines { out += Array(Self.line(line.path, line.digest).utf8) }
        return out
    }

    /// One line as GNU coreutils writes it (text mode: two spaces). A name holding `\`, a
    /// newline or a carriage return is escaped (`\\`, `\n`, `\r`) and the line starts with `\`,
    /// which `sha256sum -c` and `slices_from` both read back.
    public static func line(_ path: String, _ digest: Digest) -> String {
        let needsEscape = path.utf8.contains { $0 == UInt8(ascii: "\\") || $0 == 0x0A || $0 == 0x0D }
        guard needsEscape else { return "\(digest.hex)  \(path)\n" }
        var escaped = ""
        for scalar in path.unicodeScalars {
            switch scalar {
            case "\\": escaped += "\\\\"
            case "\n": escaped += "\\n"
            case "\r": escaped += "\\r"
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return "\\\(digest.hex)  \(escaped)\n"
    }
}
