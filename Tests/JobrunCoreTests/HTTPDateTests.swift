import JobrunCore
import Testing

@Suite struct HTTPDateTests {
    /// RFC 9110's example instant, 1994-11-06T08:49:37Z, in each of the three forms.
    static let example: Int64 = 784_111_777

    @Test(arguments: ["Sun, 06 Nov 1994 08:49:37 GMT", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994", "  Sun, 06 Nov 1994 08:49:37 GMT "])
    func theThreeFormsOfOneInstant(text: String) {
        #expect(HTTPDate.parse(text) == Self.example)
    }

    @Test func epochLeapDaysAndTwoDigitYears() {
        #expect(HTTPDate.parse("Thu, 01 Jan 1970 00:00:00 GMT") == 0)
        #expect(HTTPDate.parse("Thu, 29 Feb 2024 12:00:00 GMT") == 1_709_208_000)
        #expect(HTTPDate.parse("Monday, 01-Jan-24 00:00:00 GMT") == 1_704_067_200)
        #expect(HTTPDate.parse("Friday, 01-Jan-99 00:00:00 GMT") == 915_148_800)
    }

    @Test(arguments: [
        "", "soon", "-5", "120", "Sun, 06 Nov 1994 08:49:37 UTC", "Sun, 06 Nov 1994 08:49:37", "Sun, 6 Nov 1994 08:49:37 GMT",
        "Sun, 32 Nov 1994 08:49:37 GMT", "Sun, 06 Foo 1994 08:49:37 GMT", "Sun, 06 Nov 1994 24:00:00 GMT", "Sun, 06 Nov 1994 8:49:37 GMT",
        "Sunday, 06-Nov-1994 08:49:37 GMT", "Sun Nov  6 08:49:37 94", "Xyz, 06 Nov 1994 08:49:37 GMT", "Sun, 06 Nov 1994 08:49:37 GMT extra",
        "Sun, 06 Nov 199x 08:49:37 GMT", "Sun, ٠٦ Nov 1994 08:49:37 GMT", "Tue, 31 Feb 2026 00:00:00 GMT", "Thu, 29 Feb 2023 00:00:00 GMT",
    ])
    func anythingElseIsNotADate(text: String) {
        #expect(HTTPDate.parse(text) == nil, "\(text)")
    }
}
