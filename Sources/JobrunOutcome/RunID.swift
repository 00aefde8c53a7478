import JobrunCore

/// A run's identifier, in every event, report and progress line of the run so that one search
/// finds its whole story: `JOBRUN_RUN_ID` when set (a CI job's id, say), otherwise a new ULID
/// (26 characters, sortable by time).
public enum RunID {
    /// The longest and the characters a `JOBRUN_RUN_ID` may have: it is printed in logs and file
    /// contents, so no spaces, controls or quotes.
    public static let maxLength = 128

    /// `JOBRUN_RUN_ID` from `environment` when valid, else a new ULID.
    /// - Throws: the reason when `JOBRUN_RUN_ID` is set but unusable.
    public static func resolve(
        environment: [String: String], now: () -> Int64 = RunID.milliseconds, random: () -> UInt64 = { UInt64.random(in: .min ... .max) }
    ) throws(RunIDError) -> String {
        guard let given = environment["JOBRUN_RUN_ID"] else { return ulid(milliseconds: now(), random: random) }
        guard !given.isEmpty, given.utf8.count <= maxLength else {
            throw RunIDError(value: given, reason: "must have 1 to \(maxLength) characters")
        }
        guard given.unicodeScalars.allSatisfy(isAllowed) else {
            throw RunIDError(value: given, reason: "may only hold letters, digits and . _ : -")
        }
        return given
    }

    static func isAllowed(_ c: Unicode.Scalar) -> Bool {
        switch c {
        case "a"..."z", "A"..."Z", "0"..."9", ".", "_", ":", "-": true
        default: false
        }
    }

    /// Crockford's base 32, as ULIDs spell them.
    static let alphabet = Array("0123456789ABCDEFGHJKMNPQRSTVWXYZ".utf8)

    /// A ULID: 48 bits of milliseconds since the epoch, then 80 random bits, in base 32.
    public static func ulid(milliseconds: Int64, random: () -> UInt64) -> String {
        var bytes = [UInt8](repeating: 0, count: 16)
        let ms = UInt64(max(0, milliseconds)) & 0xFFFF_FFFF_FFFF
        for i in 0..<6 { bytes[i] = UInt8(truncatingIfNeeded: ms >> (8 * (5 - i))) }
        let high = random()
        let low = random()
        for i in 0..<2 { bytes[6 + i] = UInt8(truncatingIfNeeded: high >> (8 * (1 - i))) }
        for i in 0..<8 { bytes[8 + i] = UInt8(truncatingIfNeeded: low >> (8 * (7 - i))) }
        // 128 bits as 26 digits of 5 bits, the first digit holding the top 3.
        var out = [UInt8](repeating: 0, count: 26)
        var bit = -2
        for d in 0..<26 {
            var value = 0
            for b in 0..<5 {
                let position = bit + b
                let set = position >= 0 && bytes[position / 8] & (0x80 >> (position % 8)) != 0
                value = value << 1 | (set ? 1 : 0)
            }
            out[d] = alphabet[value]
            bit += 5
        }
        return String(decoding: out, as: UTF8.self)
    }

    public static func milliseconds() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Int64(ts.tv_sec) * 1000 + Int64(ts.tv_nsec) / 1_000_000
    }
}

/// `JOBRUN_RUN_ID` is set to something jobrun cannot use.
public struct RunIDError: Error, Sendable, CustomStringConvertible {
    public var value: String
    public var reason: String
    public var description: String { "JOBRUN_RUN_ID: the run id \(reason)" }
}
