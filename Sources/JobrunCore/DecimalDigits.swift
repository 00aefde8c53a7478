extension Int64 {
    /// A length or position as HTTP writes it (RFC 9110's `1*DIGIT`): ASCII digits only, no sign,
    /// no spaces; `nil` when empty, anything else, or too large for Int64. (`Int64(_:)` would
    /// also take `-5` and `+5`.)
    @inlinable
    public init?(decimalDigits text: some StringProtocol) {
        var value: Int64 = 0
        var any = false
        for c in text.utf8 {
            guard c >= UInt8(ascii: "0"), c <= UInt8(ascii: "9") else { return nil }
            let (times10, o1) = value.multipliedReportingOverflow(by: 10)
            let (sum, o2) = times10.addingReportingOverflow(Int64(c - UInt8(ascii: "0")))
            if o1 || o2 { return nil }
            value = sum
            any = true
        }
        guard any else { return nil }
        self = value
    }
}
