/// A time zone's offsets from UTC, read from the system's tz database (TZif files, RFC 8536)
/// without ICU: the binary links Foundation's essentials only, which know no named zones. The
/// transitions of the file decide the past; its footer's POSIX rule (``PosixZoneRule``) decides
/// the times after its last transition.
public struct ZoneRules: Sendable, Hashable {
    /// `Europe/Berlin`, `UTC`, or the POSIX rule a `TZ` variable gave.
    public let identifier: String
    /// Transition instants (seconds since the epoch), ascending, and the offset (seconds east of
    /// UTC) from each on.
    let transitions: [Int64]
    let offsets: [Int32]
    /// The offset before the first transition.
    let initialOffset: Int32
    /// After the last transition, when the file has a rule.
    let rule: PosixZoneRule?

    public static let utc = ZoneRules(identifier: "UTC", transitions: [], offsets: [], initialOffset: 0, rule: nil)

    /// Seconds east of UTC at `second` (since the epoch).
    public func offset(atSecond second: Int64) -> Int32 {
        if let rule, second >= transitions.last ?? .min { return rule.offset(atSecond: second) }
        // The last transition at or before `second`, by binary search.
        var low = 0
        var high = transitions.count
        while low < high {
            let mid = (low + high) / 2
            if transitions[mid] <= second { low = mid + 1 } else { high = mid }
        }
        return low == 0 ? initialOffset : offsets[low - 1]
    }

    /// The default database on Linux and macOS.
    public static let database = "/usr/share/zoneinfo"

    /// Why a zone cannot be used.
    public enum Failure: Error, Sendable, Hashable {
        /// Not a name a zone can have (empty, `..`, an absolute path, odd characters).
        case invalidName
        /// No such zone in the database (or it cannot be read).
        case unknown
        /// The file is not a TZif file this reader understands.
        case malformed
    }

    /// The zone named `identifier` (`Europe/Berlin`, `UTC`) in `database`.
    public static func named(_ identifier: String, database: String = Self.database) -> Result<ZoneRules, Failure> {
        let allowed = identifier.utf8.allSatisfy { b in
            (b >= UInt8(ascii: "A") && b <= UInt8(ascii: "Z")) || (b >= UInt8(ascii: "a") && b <= UInt8(ascii: "z"))
                || (b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9")) || b == UInt8(ascii: "/") || b == UInt8(ascii: "_")
                || b == UInt8(ascii: "-") || b == UInt8(ascii: "+")
        }
        guard !identifier.isEmpty, allowed, !identifier.hasPrefix("/"), !identifier.split(separator: "/").contains(where: { $0 == ".." || $0 == "." })
        else { return .failure(.invalidName) }
        guard case .success(let bytes) = FileReader.read(database + "/" + identifier, limit: 1 << 20) else { return .failure(.unknown) }
        guard let rules = ZoneRules(identifier: identifier, tzif: bytes) else { return .failure(.malformed) }
        return .success(rules)
    }

    /// The machine's zone: `TZ` (a zone name, `:name`, or a POSIX rule), else `/etc/localtime`
    /// (named after the database file it links to), else UTC.
    public static func local(environment: [String: String], localtime: String = "/etc/localtime", database: String = Self.database) -> ZoneRules {
        if var tz = environment["TZ"], !tz.isEmpty {
            if tz.hasPrefix(":") { tz.removeFirst() }
            if case .success(let rules) = named(tz, database: database) { return rules }
            if let rule = PosixZoneRule(tz) { return ZoneRules(identifier: tz, transitions: [], offsets: [], initialOffset: rule.standardOffset, rule: rule) }
        }
        guard case .success(let bytes) = FileReader.read(localtime, limit: 1 << 20) else { return .utc }
        var name = "localtime"
        var buffer = [CChar](repeating: 0, count: 4096)
        let n = readlink(localtime, &buffer, buffer.count - 1)
        if n > 0 {
            let target = String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            // `/usr/share/zoneinfo/Europe/Berlin`, `../usr/share/zoneinfo/UTC`: the name follows the database folder.
            let parts = target.split(separator: "/", omittingEmptySubsequences: true)
            if let at = parts.lastIndex(of: "zoneinfo"), at + 1 < parts.count { name = parts[(at + 1)...].joined(separator: "/") }
        }
        return ZoneRules(identifier: name, tzif: bytes) ?? .utc
    }

    init(identifier: String, transitions: [Int64], offsets: [Int32], initialOffset: Int32, rule: PosixZoneRule?) {
        self.identifier = identifier
        self.transitions = transitions
        self.offsets = offsets
        self.initialOffset = initialOffset
        self.rule = rule
    }

    /// Parses a TZif file: version 1 with 32-bit times, or 2 and later with 64-bit times and a
    /// footer rule (the 32-bit block is then skipped).
    init?(identifier: String, tzif b: [UInt8]) {
        func be(_ at: Int, _ count: Int) -> Int64? {
            guard at >= 0, at + count <= b.count else { return nil }
            var v: UInt64 = 0
            for i in at..<(at + count) { v = v << 8 | UInt64(b[i]) }
            // Sign-extend 32-bit values.
            return count == 4 ? Int64(Int32(bitPattern: UInt32(truncatingIfNeeded: v))) : Int64(bitPattern: v)
        }
        func header(_ at: Int) -> (isut: Int, isstd: Int, leap: Int, time: Int, type: Int, char: Int)? {
            guard at + 44 <= b.count, b[at] == UInt8(ascii: "T"), b[at + 1] == UInt8(ascii: "Z"), b[at + 2] == UInt8(ascii: "i"), b[at + 3] == UInt8(ascii: "f"),
                let c0 = be(at + 20, 4), let c1 = be(at + 24, 4), let c2 = be(at + 28, 4), let c3 = be(at + 32, 4), let c4 = be(at + 36, 4), let c5 = be(at + 40, 4),
                [c0, c1, c2, c3, c4, c5].allSatisfy({ $0 >= 0 && $0 < 1 << 20 })
            else { return nil }
            return (Int(c0), Int(c1), Int(c2), Int(c3), Int(c4), Int(c5))
        }
        guard let first = header(0) else { return nil }
        var at = 0
        var h = first
        var timeSize = 4
        if b[4] >= UInt8(ascii: "2") {
            at = 44 + first.time * 5 + first.type * 6 + first.char + first.leap * 8 + first.isstd + first.isut
            guard let second = header(at) else { return nil }
            h = second
            timeSize = 8
        }
        var p = at + 44
        var transitions: [Int64] = []
        transitions.reserveCapacity(h.time)
        for _ in 0..<h.time {
            guard let t = be(p, timeSize) else { return nil }
            transitions.append(t)
            p += timeSize
        }
        var typeIndices: [Int] = []
        for _ in 0..<h.time {
            guard p < b.count else { return nil }
            typeIndices.append(Int(b[p]))
            p += 1
        }
        var typeOffsets: [Int32] = []
        for _ in 0..<h.type {
            guard let offset = be(p, 4), p + 6 <= b.count else { return nil }
            typeOffsets.append(Int32(offset))
            p += 6
        }
        guard !typeOffsets.isEmpty, typeIndices.allSatisfy({ $0 < typeOffsets.count }) else { return nil }
        p += h.char + h.leap * (timeSize + 4) + h.isstd + h.isut
        var rule: PosixZoneRule?
        if timeSize == 8, p < b.count, b[p] == UInt8(ascii: "\n") {
            let rest = b[(p + 1)...]
            if let end = rest.firstIndex(of: UInt8(ascii: "\n")), end > p + 1 {
                rule = PosixZoneRule(String(decoding: b[(p + 1)..<end], as: UTF8.self))
            }
        }
        self.init(
            identifier: identifier, transitions: transitions, offsets: typeIndices.map { typeOffsets[$0] },
            initialOffset: typeOffsets[0], rule: rule)
    }
}

extension ZoneRules {
    /// `2026-11-26T01:00:00+01:00`: the instant `second` in this zone's local time.
    public func rfc3339(second: Int64) -> String {
        let offset = Int64(offset(atSecond: second))
        let local = second + offset
        let days = CivilDate.floorDivide(local, 86_400)
        let (year, month, day) = CivilDate.date(daysSince1970: days)
        let time = local - days * 86_400
        func two(_ v: Int64) -> String { v < 10 ? "0\(v)" : "\(v)" }
        let sign = offset < 0 ? "-" : "+"
        let magnitude = abs(offset)
        return "\(year)-\(two(month))-\(two(day))T\(two(time / 3600)):\(two(time / 60 % 60)):\(two(time % 60))\(sign)\(two(magnitude / 3600)):\(two(magnitude / 60 % 60))"
    }

    /// Seconds since local midnight at `second`.
    public func secondOfDay(atSecond second: Int64) -> Int64 {
        CivilDate.floorModulo(second + Int64(offset(atSecond: second)), 86_400)
    }
}
