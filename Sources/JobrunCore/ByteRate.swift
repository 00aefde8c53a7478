/// A rate in bytes per second, as `--limit-rate` takes it. The syntax is curl's `--limit-rate`
/// (`500K`, `1M`, `2G`: the letters, in either case, are powers of 1024; `B` or nothing: bytes)
/// with the binary unit names as well (`512KiB`, `1.5MiB`) and an optional `/s` (`1MiB/s`).
/// A fraction must come to whole bytes (`1.5K`, not `1.3`); zero and negative rates are refused.
public struct ByteRate: Hashable, Sendable, CustomStringConvertible {
    public var bytesPerSecond: Int64

    public init(bytesPerSecond: Int64) { self.bytesPerSecond = bytesPerSecond }

    public enum ParseError: Error, Equatable, Sendable, CustomStringConvertible {
        /// What the number with its unit is not, as a byte count.
        case count(ByteCount.ParseError)
        case unknownUnit(String)
        case zero

        public var description: String {
            switch self {
            case .count(.empty): "it is empty"
            case .count(.malformed): "it is not a number"
            case .count(.notWholeBytes): "it is not a whole number of bytes"
            case .count(.tooLarge): "it is too large"
            case .count(.negative): "it is negative"
            case .count(.unknownUnit(let unit)), .unknownUnit(let unit): "'\(unit)' is not a unit"
            case .zero: "it must be more than zero"
            }
        }
    }

    /// The units after the number, and the ``ByteCount`` unit each one means.
    public static let units: [(suffix: String, binary: String)] = [
        ("", ""), ("B", "B"), ("b", "B"),
        ("K", "KiB"), ("k", "KiB"), ("KiB", "KiB"),
        ("M", "MiB"), ("m", "MiB"), ("MiB", "MiB"),
        ("G", "GiB"), ("g", "GiB"), ("GiB", "GiB"),
    ]

    public static func parse(_ text: some StringProtocol) -> Result<ByteRate, ParseError> {
        var rest = Substring(text)
        if rest.isEmpty { return .failure(.count(.empty)) }
        if rest.hasSuffix("/s") { rest = rest.dropLast(2) }
        if rest.first == "-" { return .failure(.count(.negative)) }
        let number = rest.prefix { $0.isASCII && ($0.isNumber || $0 == "." || $0 == "+") }
        let unit = String(rest[number.endIndex...])
        if number.isEmpty { return .failure(.count(.malformed)) }
        guard let binary = units.first(where: { $0.suffix == unit })?.binary else { return .failure(.unknownUnit(unit)) }
        switch ByteCount.parse(number + binary) {
        case .success(let count):
            return count.value == 0 ? .failure(.zero) : .success(ByteRate(bytesPerSecond: count.value))
        case .failure(let error):
            return .failure(.count(error))
        }
    }

    /// `1.0 MiB/s`, `512 B/s`.
    public var description: String { "\(ByteCount(bytesPerSecond))/s" }
}
