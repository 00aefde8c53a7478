import Testing
@testable import JobrunJSON

/// Reading JSON back: what ``JSONWriter`` writes comes back the same, keys in order; every way a
/// document can be broken is refused with where.
@Suite struct JSONParserTests {
    static func parse(_ text: String) -> Result<JSONValue, JSONParser.Failure> { JSONParser.parse(Array(text.utf8)) }

    @Test func whatIsWrittenComesBackTheSame() throws {
        let value = JSONValue.object([
            ("z", .int(-9_223_372_036_854_775_808)), ("a", .array([.bool(true), .bool(false), .null, .double(1.5), .double(-2e-3)])),
            ("text", .string("tab\t \"quoted\" \\ new\nline \u{1} é 😀")), ("empty", .object([])), ("list", .array([])),
        ])
        for pretty in [true, false] {
            #expect(try JSONParser.parse(value.renderedBytes(pretty: pretty)).get() == value)
        }
    }

    @Test func escapesAndNumbers() throws {
        #expect(try Self.parse(#""\u00e9\ud83d\ude00\/""#).get() == .string("é😀/"))
        #expect(try Self.parse("9223372036854775807").get() == .int(Int64.max))
        #expect(try Self.parse("9223372036854775808").get() == .double(9223372036854775808))
        #expect(try Self.parse(" [1, 2.0, 3e2] ").get() == .array([.int(1), .double(2), .double(300)]))
        #expect(try Self.parse(#"{"a":1,"a":2}"#).get()["a"] == .int(1))
    }

    @Test(arguments: [
        ("", "line 1, column 1: the document ends where a value should be"),
        ("{} x", "line 1, column 4: text after the document"),
        ("[1,\n 02]", "line 2, column 4: a number with a leading zero"),
        (#"{"a" 1}"#, "line 1, column 6: ':' expected after a key"),
        (#"["\ud800"]"#, "line 1, column 9: a lone surrogate"),
        (#""a\qb""#, "line 1, column 4: an unknown escape"),
        ("[1,]", "line 1, column 4: unexpected character"),
        ("tru", "line 1, column 4: not true"),
        ("\"a\u{1}\"", "line 1, column 3: a control character in a string"),
        (String(repeating: "[", count: 70), "line 1, column 65: nested more than 64 deep"),
    ])
    func brokenDocumentsAreRefusedWithWhere(text: String, message: String) {
        guard case .failure(let failure) = Self.parse(text) else {
            Issue.record("'\(text)' was read")
            return
        }
        #expect(failure.description == message)
    }
}
