import JobrunCore
import Testing

@Suite struct ByteRateTests {
    /// curl's single letters in either case, the binary unit names, plain bytes, an optional
    /// `/s` after any of them, and fractions that come to whole bytes.
    static let rates: [(String, Int64)] = [
        ("1", 1), ("2048", 2048), ("2048B", 2048), ("2048b", 2048), ("2048/s", 2048), ("+7", 7),
        ("500K", 512_000), ("500k", 512_000), ("500KiB", 512_000), ("500K/s", 512_000),
        ("1M", 1 << 20), ("1m", 1 << 20), ("1MiB", 1 << 20), ("1MiB/s", 1 << 20), ("1.5M", 3 << 19),
        ("2G", 2 << 30), ("2g", 2 << 30), ("2GiB/s", 2 << 30), ("0.5K", 512),
    ]

    @Test(arguments: rates)
    func parsesRates(_ text: String, _ expected: Int64) {
        #expect(ByteRate.parse(text) == .success(ByteRate(bytesPerSecond: expected)))
    }

    static let refusals: [(String, ByteRate.ParseError)] = [
        ("", .count(.empty)), ("0", .zero), ("0K", .zero), ("0.0M/s", .zero),
        ("-1", .count(.negative)), ("-1M", .count(.negative)), ("M", .count(.malformed)), ("/s", .count(.malformed)), ("fast", .count(.malformed)),
        (".K", .count(.malformed)), ("1.", .count(.malformed)), ("1..5K", .count(.malformed)), ("1.2.3", .count(.malformed)),
        ("1KB", .unknownUnit("KB")), ("1MB/s", .unknownUnit("MB")), ("1 M", .unknownUnit(" M")),
        ("1kib", .unknownUnit("kib")), ("1T", .unknownUnit("T")), ("1M/s/s", .unknownUnit("M/s")),
        ("1Mbps", .unknownUnit("Mbps")), ("1.3", .count(.notWholeBytes)), ("0.1K", .count(.notWholeBytes)),
        ("9999999999G", .count(.tooLarge)), ("99999999999999999999", .count(.tooLarge)),
    ]

    @Test(arguments: refusals)
    func refusesWhatIsNotAPositiveRate(_ text: String, _ error: ByteRate.ParseError) {
        #expect(ByteRate.parse(text) == .failure(error))
    }

    @Test func rendersInBinaryUnitsPerSecond() {
        #expect(ByteRate(bytesPerSecond: 512).description == "512 B/s")
        #expect(ByteRate(bytesPerSecond: 1 << 20).description == "1.0 MiB/s")
        #expect(ByteRate(bytesPerSecond: 3 << 19).description == "1.5 MiB/s")
    }

    @Test func everyErrorSaysWhy() {
        let errors: [ByteRate.ParseError] = [
            .count(.empty), .count(.malformed), .unknownUnit("KB"), .count(.notWholeBytes), .count(.tooLarge), .count(.negative), .zero,
        ]
        #expect(Set(errors.map(\.description)).count == errors.count)
        #expect(ByteRate.ParseError.unknownUnit("KB").description == "'KB' is not a unit")
    }
}
