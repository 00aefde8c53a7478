import Testing
@testable import JobrunRun

@Suite struct RetryAfterTests {
    static let now: Int64 = 1_800_000_000  // 2027-01-15T08:00:00Z

    @Test func secondsAndDates() {
        #expect(RetryAfter.delay("120", now: Self.now) == .seconds(120))
        #expect(RetryAfter.delay(" 7 ", now: Self.now) == .seconds(7))
        #expect(RetryAfter.delay("0", now: Self.now) == .zero)
        #expect(RetryAfter.delay("Fri, 15 Jan 2027 08:00:30 GMT", now: Self.now) == .seconds(30))
        // A date already past asks for no wait.
        #expect(RetryAfter.delay("Fri, 15 Jan 2027 07:00:00 GMT", now: Self.now) == .zero)
    }

    /// Neither delay-seconds nor an HTTP-date: absent, so the caller's backoff applies.
    @Test(arguments: ["", "-5", "+5", "1.5", "1e3", "soon", "5 s", "99999999999999999999", "1000000000", "Mon, 32 Foo 2026 99:00:00 GMT"])
    func garbageIsAbsent(value: String) {
        #expect(RetryAfter.delay(value, now: Self.now) == nil, "\(value)")
    }
}
