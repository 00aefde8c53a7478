import Testing
@testable import JobrunCore

/// Validators are sent back to a server as they came: only what can be sent safely is kept.
@Suite struct OriginValidatorsTests {
    @Test func onlyVisibleASCIIUpToAKibibyteIsSentBack() {
        #expect(OriginValidators.sendable("\"abc\"") == "\"abc\"")
        #expect(OriginValidators.sendable("W/\"abc\"") == "W/\"abc\"")
        #expect(OriginValidators.sendable("Tue, 01 Dec 2026 10:00:00 GMT") == "Tue, 01 Dec 2026 10:00:00 GMT")
        #expect(OriginValidators.sendable(nil) == nil && OriginValidators.sendable("") == nil)
        #expect(OriginValidators.sendable("\"a\r\nX-Injected: 1\"") == nil)
        #expect(OriginValidators.sendable("\"a\u{0}\"") == nil && OriginValidators.sendable("\"é\"") == nil)
        #expect(OriginValidators.sendable(String(repeating: "a", count: 1_025)) == nil)
        #expect(OriginValidators.sendable(String(repeating: "a", count: 1_024)) != nil)
    }

    @Test func conditionalHeadersNameWhatIsKnown() {
        let both = OriginValidators(etag: "\"e\"", lastModified: "Tue, 01 Dec 2026 10:00:00 GMT")
        #expect(both.conditionalHeaders.map(\.name) == ["If-None-Match", "If-Modified-Since"])
        #expect(OriginValidators(lastModified: "d").conditionalHeaders.map { "\($0.name): \($0.value)" } == ["If-Modified-Since: d"])
        #expect(OriginValidators(etag: "").isEmpty && OriginValidators().conditionalHeaders.isEmpty)
        #expect(both.description == "ETag \"e\", Last-Modified Tue, 01 Dec 2026 10:00:00 GMT" && OriginValidators().description == "no validator")
    }
}
