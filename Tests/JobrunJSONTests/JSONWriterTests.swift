import Foundation
import JobrunJSON
import Testing

@Suite struct JSONWriterTests {
    static let document: JSONValue = [
        "version": 1,
        "zeta": "first key stays first",
        "alpha": [1, -2, 9_223_372_036_854_775_807, JSONValue.int(.min)],
        "doubles": [0.5, -0.0, 1e-7, 1e300, JSONValue.double(.nan), JSONValue.double(.infinity)],
        "flags": [true, false, nil],
        "empty object": [:],
        "empty array": [],
        "nested": ["a": ["b": ["c": []]]],
    ]

    @Test func compactHasNoWhitespaceAndNoTrailingNewline() {
        #expect(
            Self.document.render(pretty: false)
                == #"{"version":1,"zeta":"first key stays first","alpha":[1,-2,9223372036854775807,-9223372036854775808],"#
                + #""doubles":[0.5,-0.0,1e-07,1e+300,null,null],"flags":[true,false,null],"empty object":{},"#
                + #""empty array":[],"nested":{"a":{"b":{"c":[]}}}}"#)
    }

    @Test func prettyIndentsByTwoSpacesAndEndsWithNewline() {
        #expect(
            Self.document.render(pretty: true) == """
                {
                  "version": 1,
                  "zeta": "first key stays first",
                  "alpha": [
                    1,
                    -2,
                    9223372036854775807,
                    -9223372036854775808
                  ],
                  "doubles": [
                    0.5,
                    -0.0,
                    1e-07,
                    1e+300,
                    null,
                    null
                  ],
                  "flags": [
                    true,
                    false,
                    null
                  ],
                  "empty object": {},
                  "empty array": [],
                  "nested": {
                    "a": {
                      "b": {
                        "c": []
                      }
                    }
                  }
                }

                """)
    }

    @Test func scalarsAtTopLevel() {
        #expect(JSONValue.string("x").render(pretty: false) == #""x""#)
        #expect(JSONValue.int(0).render(pretty: true) == "0\n")
        #expect(JSONValue.null.render(pretty: false) == "null")
        #expect(JSONValue.array([]).render(pretty: true) == "[]\n")
    }

    @Test func escapesStringsPerRFC8259() {
        let nasty = "quote\" backslash\\ slash/ nl\n cr\r tab\t bs\u{8} ff\u{C} nul\u{0} us\u{1F} del\u{7F} é 世 🚀 \u{2028}"
        let expected =
            #""quote\" backslash\\ slash/ nl\n cr\r tab\t bs\b ff\f nul\u0000 us\u001f del"# + "\u{7F} é 世 🚀 \u{2028}\""
        #expect(JSONValue.string(nasty).render(pretty: false) == expected)
        // Keys are escaped the same way.
        #expect(JSONValue.object([("a\"b\n", 1)]).render(pretty: false) == #"{"a\"b\n":1}"#)
    }

    /// The escaper skips clean 8-byte words at once; compare it with a scalar-by-scalar reference
    /// on strings with specials at every offset, next to multi-byte UTF-8 (bytes >= 0x80).
    @Test func wordAtATimeEscapingMatchesAReference() {
        let alphabet: [Unicode.Scalar] = ["a", "Z", "\"", "\\", "/", "\n", "\u{0}", "\u{1F}", " ", "\u{7F}", "é", "\u{A2}", "世", "🚀"]
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        for _ in 0..<2_000 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let length = Int(state >> 58)  // 0...63
            var text = String.UnicodeScalarView()
            for _ in 0..<length {
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                // Mostly clean letters, so that whole clean words occur.
                let pick = Int(state >> 33) % (alphabet.count * 4)
                text.append(pick < alphabet.count ? alphabet[pick] : "x")
            }
            let string = String(text)
            #expect(JSONValue.string(string).render(pretty: false) == Self.referenceEscape(string))
        }
    }

    static func referenceEscape(_ string: String) -> String {
        var out = "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\u{8}": out += "\\b"
            case "\u{C}": out += "\\f"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    @Test func roundTripsThroughJSONSerialization() throws {
        let strings = ["", "plain", "quote\" backslash\\", "\u{0}\u{1}\u{1F}\n\r\t", "é 世 🚀", "</script>"]
        let value: JSONValue = [
            "strings": .array(strings.map(JSONValue.string)),
            "numbers": [0, 42, -7, 9_007_199_254_740_991],
            "double": 0.1,
            "bool": true,
            "null": nil,
        ]
        for pretty in [false, true] {
            let data = Data(value.renderedBytes(pretty: pretty))
            let parsed = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
            #expect(parsed["strings"] as? [String] == strings)
            #expect((parsed["numbers"] as? [NSNumber])?.map(\.int64Value) == [0, 42, -7, 9_007_199_254_740_991])
            #expect((parsed["double"] as? NSNumber)?.doubleValue == 0.1)
            #expect((parsed["bool"] as? NSNumber)?.boolValue == true)
            #expect(parsed["null"] is NSNull)
        }
    }

    @Test func equalValuesRenderIdentically() {
        let a: JSONValue = ["b": 1, "a": [1.5, "x"]]
        let b: JSONValue = .object([("b", .int(1)), ("a", .array([.double(1.5), .string("x")]))])
        #expect(a == b)
        #expect(a.render(pretty: true) == b.render(pretty: true))
        #expect(a != JSONValue.object([("a", .array([.double(1.5), .string("x")])), ("b", .int(1))]))
        #expect(JSONValue.double(.nan) == JSONValue.double(.nan))
    }

    @Test func streamingWriterMatchesTheTree() {
        var writer = JSONWriter(pretty: true)
        var streamed: [UInt8] = []
        writer.beginObject()
        writer.key("name")
        writer.string("plan")
        writer.key("slices")
        writer.beginArray()
        for index in 0..<3 {
            writer.value(["id": .int(Int64(index)), "ok": .bool(index != 1)])
            streamed += writer.takeBytes()
        }
        writer.endArray()
        writer.key("digest")
        writer.null()
        writer.endObject()
        #expect(writer.depth == 0)
        streamed += writer.finish()

        let tree: JSONValue = [
            "name": "plan",
            "slices": [["id": 0, "ok": true], ["id": 1, "ok": false], ["id": 2, "ok": true]],
            "digest": nil,
        ]
        #expect(String(decoding: streamed, as: UTF8.self) == tree.render(pretty: true))
    }

    /// A smoke test against pathological slowness; the real budget (1M objects well under a
    /// second) is for release builds.
    @Test func rendersManySmallObjects() throws {
        let slices = (0..<20_000).map { index -> JSONValue in
            [
                "id": .string("slice-\(index)"),
                "offset": .int(Int64(index) * 1_048_576),
                "length": 1_048_576,
                "state": "missing",
            ]
        }
        let bytes = JSONValue.object([("slices", .array(slices))]).renderedBytes(pretty: false)
        let parsed = try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: [Any]]
        #expect(parsed?["slices"]?.count == 20_000)
    }
}
