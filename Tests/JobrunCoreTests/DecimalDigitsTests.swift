import JobrunCore
import Testing

/// `Int64(decimalDigits:)`: HTTP's `1*DIGIT`, nothing else.
@Suite struct DecimalDigitsTests {
    @Test(arguments: [("0", 0), ("5", 5), ("007", 7), ("9223372036854775807", Int64.max)] as [(String, Int64)])
    func digitsAreTheirValue(text: String, value: Int64) {
        #expect(Int64(decimalDigits: text) == value)
    }

    @Test(arguments: ["", "-1", "-922337", "+5", " 5", "5 ", "1_000", "0x10", "1e3", "١٢", "9223372036854775808", "99999999999999999999"])
    func anythingElseIsNoNumber(text: String) {
        #expect(Int64(decimalDigits: text) == nil)
    }
}
