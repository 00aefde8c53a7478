/// A number of bytes. Parses `65536`, `64KiB`, `1.5GiB`, `10MB`; renders as `26.3 MiB`.
public struct ByteCount: Hashable, Sendable, Comparable, Codable, CustomStringConvertible, AdditiveArithmetic, ExpressibleByIntegerLiteral {
    public var value: Int64

    @inlinable public init(_ value: Int64) { self.value = value }

    @inlinable public init(integerLiteral value: Int64) { self.value = value }

    /// `count` bytes of memory or a buffer.
    @inlinable public init(_ count: Int) { value = Int64(count) }

    public static let zero = ByteCount(0)
    public static let max = ByteCount(Int64.max)

    @inlinable public static func < (lhs: ByteCount, rhs: ByteCount) -> Bool { lhs.value < rhs.value }

    // Byte counts in the engine are sums of what arrived and what was asked for, far below
    // Int64's range: arithmetic traps on overflow as Int64's does. Sums of declared sizes, which
    // a manifest may make as large as it likes, use ``saturatingAdding(_:)``.
    @inlinable public static func + (lhs: ByteCount, rhs: ByteCount) -> ByteCount { ByteCount(lhs.value + rhs.value) }
    @inlinable public static func - (lhs: ByteCount, rhs: ByteCount) -> ByteCount { ByteCount(lhs.value - rhs.value) }
    @inlinable public static func += (lhs: inout ByteCount, rhs: ByteCount) { lhs.value += rhs.value }
    @inlinable public static func -= (lhs: inout ByteCount, rhs: ByteCount) { lhs.value -= rhs.value }

    /// The sum, or `Int64.max` bytes where it would overflow.
    @inlinable public func saturatingAdding(_ other: ByteCount) -> ByteCount {
        let (sum, overflow) = value.addingReportingOverflow(other.value)
        return ByteCount(overflow ? .max : sum)
    }

    /// A whole share: this many bytes divided by `count` (rounded down).
    @inlinable public func divided(by count: Int64) -> ByteCount { ByteCount(value / count) }

    /// As an `Int`, for a buffer's size or an offset in one.
    @inlinable public var int: Int { Int(value) }

    /// Units accepted after a number. Binary units are powers of 1024, decimal ones of 1000.
    public static let units: [(suffix: String, factor: Int64)] = [
        ("B", 1),
        ("KiB", 1 << 10), ("MiB", 1 << 20), ("GiB", 1 << 30), ("TiB", 1 << 40), ("PiB", 1 << 50),
        ("KB", 1_000), ("MB", 1_000_000), ("GB", 1_000_000_000), ("TB", 1_000_000_000_000),
        ("PB", 1_000_000_000_000_000),
    ]

    public enum ParseError: Error, Equatable, Sendable {
        case empty
        case malformed
        case unknownUnit(String)
        case notWholeBytes
        case tooLarge
        case negative
    }

    /// Parses a size: digits, an optional fraction, an optional unit. No floating point is involved,
    /// so `1.5GiB` is exact and overflow is reported instead of trapping.
    public static func parse(_ text: some StringProtocol) -> Result<ByteCount, ParseError> {
        let s = Array(text.utf8)
        if s.isEmpty { return .failure(.empty) }
        var i = 0
        if s[0] == UInt8(ascii: "-") { return .failure(.negative) }
        if s[0] == UInt8(ascii: "+") { i = 1 }
        var whole: Int64 = 0
        var digits = 0
        while i < s.count, let d = digit(s[i]) {
            let (m, o1) = whole.multipliedReportingOverflow(by: 10)
            let (a, o2) = m.addingReportingOverflow(d)
            if o1 || o2 { return .failure(.tooLarge) }
            whole = a
            i += 1
            digits += 1
        }
        var fraction: [Int64] = []
        if i < s.count, s[i] == UInt8(ascii: ".") {
            i += 1
            while i < s.count, let d = digit(s[i]) {
                fraction.append(d)
                i += 1
            }
            if fraction.isEmpty { return .failure(.malformed) }
        }
        if digits == 0 { return .failure(.malformed) }
        while i < s.count, s[i] == UInt8(ascii: " ") { i += 1 }
        if i < s.count, s[i] == UInt8(ascii: ".") || digit(s[i]) != nil { return .failure(.malformed) }
        let unitText = String(decoding: s[i...], as: UTF8.self)
        let factor: Int64
        if unitText.isEmpty {
            factor = 1
        } else if let unit = units.first(where: { $0.suffix == unitText }) {
            factor = unit.factor
        } else {
            return .failure(.unknownUnit(unitText))
        }
        let (base, overflow) = whole.multipliedReportingOverflow(by: factor)
        if overflow { return .failure(.tooLarge) }
        // fraction * factor must be a whole number of bytes
        var numerator: Int64 = 0
        var denominator: Int64 = 1
        for d in fraction {
            if denominator > Int64.max / 10 { if d != 0 { return .failure(.notWholeBytes) } else { continue } }
            numerator = numerator * 10 + d
            denominator *= 10
        }
        if numerator == 0 { return .success(ByteCount(base)) }
        let (scaled, o3) = numerator.multipliedReportingOverflow(by: factor)
        if o3 { return .failure(.tooLarge) }
        guard scaled % denominator == 0 else { return .failure(.notWholeBytes) }
        let (total, o4) = base.addingReportingOverflow(scaled / denominator)
        if o4 { return .failure(.tooLarge) }
        return .success(ByteCount(total))
    }

    private static func digit(_ c: UInt8) -> Int64? {
        c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9") ? Int64(c - UInt8(ascii: "0")) : nil
    }

    /// Human form with binary units and one decimal: `512 B`, `64.0 KiB`, `26.3 MiB`.
    public var description: String {
        if value < 1024 { return "\(value) B" }
        let names = ["KiB", "MiB", "GiB", "TiB", "PiB", "EiB"]
        var unit = 0
        var scale: Double = 1024
        while unit < names.count - 1, Double(value) >= scale * 1024 {
            scale *= 1024
            unit += 1
        }
        let tenths = (Double(value) / scale * 10).rounded()
        let whole = Int64(tenths) / 10
        let frac = Int64(tenths) % 10
        return "\(whole).\(frac) \(names[unit])"
    }
}
