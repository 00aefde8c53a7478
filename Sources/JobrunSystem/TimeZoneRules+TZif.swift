extension TimeZoneRules {
    /// Why the bytes of a zone file are not a zone jobrun can use.
    public enum TZifProblem: Error, Hashable, Sendable {
        /// The file does not start with `TZif`: not a zone at all (`zone.tab`, say).
        case notTZif
        /// Truncated, inconsistent, or with an offset beyond ±26 hours; the reason is for people.
        case malformed(String)
        /// It counts leap seconds (a `right/` zone), whose instants are not POSIX time.
        case leapSeconds
    }

    /// Reads a TZif file (RFC 8536, versions 1 to 4): the 64-bit data of version 2 and later when
    /// present, and the `TZ` string at its end for the instants after its last transition.
    public init(identifier: String, tzif bytes: [UInt8]) throws(TZifProblem) {
        var reader = TZifReader(bytes: bytes)
        guard bytes.count >= 4, bytes[0..<4].elementsEqual("TZif".utf8) else { throw .notTZif }
        guard bytes.count >= 44 else { throw .malformed("it is truncated") }
        let version = bytes[4]
        let v1 = try reader.header()
        let v1Length = v1.dataLength(timeSize: 4)
        guard reader.position + v1Length <= bytes.count else { throw .malformed("it is truncated") }
        let counts: TZifReader.Counts
        let timeSize: Int
        if version >= UInt8(ascii: "2") {
            reader.position += v1Length
            guard reader.position + 44 <= bytes.count, bytes[reader.position..<(reader.position + 4)].elementsEqual("TZif".utf8) else {
                throw .malformed("its second header is missing")
            }
            counts = try reader.header()
            timeSize = 8
        } else {
            counts = v1
            timeSize = 4
        }
        guard counts.leap == 0 else { throw .leapSeconds }
        guard counts.types >= 1, counts.chars >= 1, counts.isStandard == 0 || counts.isStandard == counts.types,
            counts.isUT == 0 || counts.isUT == counts.types
        else { throw .malformed("its counts are inconsistent") }
        guard reader.position + counts.dataLength(timeSize: timeSize) <= bytes.count else { throw .malformed("it is truncated") }

        var times: [Int64] = []
        times.reserveCapacity(counts.times)
        for _ in 0..<counts.times { times.append(reader.integer(size: timeSize)) }
        guard zip(times, times.dropFirst()).allSatisfy({ $0 < $1 }) else { throw .malformed("its transitions are out of order") }
        var typeIndices: [Int] = []
        typeIndices.reserveCapacity(counts.times)
        for _ in 0..<counts.times { typeIndices.append(Int(reader.integer(size: 1))) }
        var typeOffsets: [Int64] = []
        for _ in 0..<counts.types {
            typeOffsets.append(reader.integer(size: 4))
            reader.position += 2  // isdst and the abbreviation's index: jobrun needs only the offset
        }
        guard typeIndices.allSatisfy({ $0 < counts.types }) else { throw .malformed("a transition names a time type it does not have") }
        guard typeOffsets.allSatisfy({ abs($0) <= Self.offsetLimit }) else { throw .malformed("an offset is more than 26 hours from UTC") }
        reader.position += counts.chars + counts.isStandard + counts.isUT

        var rule: POSIXTimeZoneRule?
        if timeSize == 8 {
            // The footer: "\n", a TZ string (empty when none applies), "\n".
            guard reader.position < bytes.count, bytes[reader.position] == UInt8(ascii: "\n"),
                let close = bytes[(reader.position + 1)...].firstIndex(of: UInt8(ascii: "\n"))
            else { throw .malformed("its TZ string is missing") }
            let text = String(decoding: bytes[(reader.position + 1)..<close], as: UTF8.self)
            if !text.isEmpty {
                guard let parsed = POSIXTimeZoneRule(text) else { throw .malformed("its TZ string '\(text)' is not understood") }
                rule = parsed
            }
        }
        self.init(
            identifier: identifier, transitions: times, offsetsAfter: typeIndices.map { typeOffsets[$0] },
            initialOffset: typeOffsets[0], rule: rule)
    }
}

/// Big-endian reads through a TZif file whose length has been checked for them.
private struct TZifReader {
    let bytes: [UInt8]
    var position = 0

    struct Counts {
        var isUT = 0, isStandard = 0, leap = 0, times = 0, types = 0, chars = 0

        /// Bytes of the data block that follows the header.
        func dataLength(timeSize: Int) -> Int {
            times * timeSize + times + types * 6 + chars + leap * (timeSize + 4) + isStandard + isUT
        }
    }

    /// The 44-byte header at `position`, which the caller checked is there.
    mutating func header() throws(TimeZoneRules.TZifProblem) -> Counts {
        position += 20
        var values: [Int] = []
        for _ in 0..<6 {
            let v = integer(size: 4)
            // The largest real file has a few thousand entries; a count past the file is a lie.
            guard v >= 0, v <= bytes.count else { throw .malformed("a count is larger than the file") }
            values.append(Int(v))
        }
        return Counts(isUT: values[0], isStandard: values[1], leap: values[2], times: values[3], types: values[4], chars: values[5])
    }

    /// A signed big-endian integer of 1, 4 or 8 bytes (the count fields are unsigned but small).
    mutating func integer(size: Int) -> Int64 {
        var value: UInt64 = 0
        for k in 0..<size { value = value << 8 | UInt64(bytes[position + k]) }
        position += size
        switch size {
        case 1: return Int64(value)
        case 4: return Int64(Int32(truncatingIfNeeded: value))
        default: return Int64(bitPattern: value)
        }
    }
}
