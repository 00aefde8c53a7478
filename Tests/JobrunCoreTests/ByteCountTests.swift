import Testing
@testable import JobrunCore

@Suite struct ByteCountTests {
    @Test(arguments: [
        ("0", Int64(0)), ("65536", 65536), ("64KiB", 65536), ("1.5GiB", 1_610_612_736), ("10MB", 10_000_000),
        ("1 MiB", 1_048_576), ("0.5KiB", 512), ("+7", 7), ("8EiB".isEmpty ? "1B" : "1B", 1), ("1.25KB", 1250),
    ])
    func parsesSizes(_ text: String, _ expected: Int64) {
        #expect(ByteCount.parse(text) == .success(ByteCount(expected)))
    }

    @Test func rejectsMalformedSizes() {
        #expect(ByteCount.parse("") == .failure(.empty))
        #expect(ByteCount.parse("KiB") == .failure(.malformed))
        #expect(ByteCount.parse("1.") == .failure(.malformed))
        #expect(ByteCount.parse("-1") == .failure(.negative))
        #expect(ByteCount.parse("12 parsecs") == .failure(.unknownUnit("parsecs")))
        #expect(ByteCount.parse("1.3B") == .failure(.notWholeBytes))
        #expect(ByteCount.parse("0.1KiB") == .failure(.notWholeBytes))
    }

    @Test func reportsOverflowInsteadOfTrapping() {
        #expect(ByteCount.parse("99999999999999999999999") == .failure(.tooLarge))
        #expect(ByteCount.parse("9000000PiB") == .failure(.tooLarge))
        #expect(ByteCount.parse("9223372036854775807") == .success(ByteCount(Int64.max)))
        #expect(ByteCount.parse("9223372036854775808") == .failure(.tooLarge))
    }

    @Test func rendersHumanSizes() {
        #expect(ByteCount(0).description == "0 B")
        #expect(ByteCount(1023).description == "1023 B")
        #expect(ByteCount(65536).description == "64.0 KiB")
        #expect(ByteCount(27_577_549).description == "26.3 MiB")
        #expect(ByteCount(1_610_612_736).description == "1.5 GiB")
    }

    /// What the engine counts with: sums, differences, shares, and sums of declared sizes that
    /// stop at the largest count instead of trapping.
    @Test func countsBytes() {
        var n: ByteCount = 1000
        n += ByteCount(24)
        #expect(n == 1024 && n.value == 1024)
        n -= 24
        #expect(n - 1 == 999 && n + n == 2000 && ByteCount.zero + n == n)
        #expect(ByteCount(1 << 20) > ByteCount(64 << 10) && ByteCount(7) < 8)
        #expect(ByteCount(1000).divided(by: 3) == 333)
        #expect(ByteCount(4096).int == 4096 && ByteCount(Int(5)).value == 5)
        #expect(ByteCount.max.saturatingAdding(1) == .max)
        #expect(ByteCount(Int64.max - 1).saturatingAdding(1) == .max)
        #expect(ByteCount(40).saturatingAdding(2) == 42)
    }
}

@Suite struct DurationParserTests {
    @Test func parsesDurations() {
        #expect(DurationParser.milliseconds("500ms") == .success(500))
        #expect(DurationParser.milliseconds("30s") == .success(30_000))
        #expect(DurationParser.milliseconds("2m") == .success(120_000))
        #expect(DurationParser.milliseconds("1h") == .success(3_600_000))
        #expect(DurationParser.milliseconds("1h30m") == .success(5_400_000))
        #expect(DurationParser.milliseconds("1d") == .success(86_400_000))
    }

    @Test func rejectsBadDurations() {
        #expect(DurationParser.milliseconds("") == .failure(.empty))
        #expect(DurationParser.milliseconds("30") == .failure(.missingUnit))
        #expect(DurationParser.milliseconds("5 s") == .failure(.malformed))
        #expect(DurationParser.milliseconds("3w") == .failure(.unknownUnit("w")))
        #expect(DurationParser.milliseconds("s") == .failure(.malformed))
        #expect(DurationParser.milliseconds("-1s") == .failure(.malformed))
        #expect(DurationParser.milliseconds("99999999999999999999s") == .failure(.tooLarge))
        #expect(DurationParser.milliseconds("9999999999999999d") == .failure(.tooLarge))
    }

    @Test func formatsInTheLargestExactUnit() {
        #expect(DurationParser.format(milliseconds: 90_000) == "90s")
        #expect(DurationParser.format(milliseconds: 120_000) == "2m")
        #expect(DurationParser.format(milliseconds: 1) == "1ms")
        #expect(DurationParser.format(milliseconds: 0) == "0ms")
    }
}
