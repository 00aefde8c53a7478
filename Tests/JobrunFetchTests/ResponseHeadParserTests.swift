import Testing
@testable import JobrunFetch

/// ``ResponseHeadParser``: header lines in, one at a time as libcurl delivers them; a head out at
/// the blank line that ends a final response, and never otherwise.
@Suite struct ResponseHeadParserTests {
    /// Feeds `lines` (each as one callback) and returns every head completed, with the index of
    /// the line that completed it.
    static func heads(_ lines: [[UInt8]]) -> [(line: Int, head: ResponseHead)] {
        var parser = ResponseHeadParser()
        var out: [(Int, ResponseHead)] = []
        for (i, line) in lines.enumerated() {
            if let head = line.withUnsafeBytes({ parser.feed($0) }) { out.append((i, head)) }
        }
        return out
    }

    static func heads(_ lines: [String]) -> [(line: Int, head: ResponseHead)] { heads(lines.map { Array($0.utf8) }) }

    @Test(arguments: ["\r\n", "\n"])
    func aFinalResponseCompletesAtItsBlankLineWithFieldsInOrder(ending: String) {
        let lines = ["HTTP/1.1 200 OK", "Content-Length: 5", "ETag:  \"v1\"\t", "X-Empty:", ""].map { $0 + ending }
        let got = Self.heads(lines)
        #expect(got.count == 1)
        #expect(got.first?.line == 4)
        #expect(
            got.first?.head
                == ResponseHead(
                    status: 200,
                    headers: [.init(name: "Content-Length", value: "5"), .init(name: "ETag", value: "\"v1\""), .init(name: "X-Empty", value: "")],
                    version: "1.1"))
    }

    @Test func interimResponsesAreSkippedAndTheirFieldsDoNotCarryOver() {
        let got = Self.heads([
            "HTTP/1.1 100 Continue\r\n", "\r\n",
            "HTTP/1.1 103 Early Hints\r\n", "Link: </a.css>\r\n", "\r\n",
            "HTTP/2 206\r\n", "content-range: bytes 1-4/5\r\n", "\r\n",
        ])
        #expect(got.map(\.line) == [7])
        #expect(got.first?.head == ResponseHead(status: 206, headers: [.init(name: "content-range", value: "bytes 1-4/5")], version: "2"))
    }

    @Test(arguments: ["HTTP/1.1 20 OK\r\n", "HTTP/1.1 OK\r\n", "HTTP/1.1\r\n", "HTTP/\r\n"])
    func aStatusThatIsNotThreeDigitsNeverCompletes(statusLine: String) {
        #expect(Self.heads([statusLine, "A: b\r\n", "\r\n"]).isEmpty)
    }

    @Test func aBlankLineBeforeAnyStatusLineCompletesNothing() {
        #expect(Self.heads(["\r\n", "A: b\r\n", "\n"]).isEmpty)
    }

    @Test func aStatusOfMoreThanThreeDigitsKeepsTheFirstThree() {
        #expect(Self.heads(["HTTP/1.1 2000 Odd\r\n", "\r\n"]).first?.head.status == 200)
    }

    @Test func fieldsSplitAtTheFirstColonAndLinesWithoutOneAreIgnored() {
        let got = Self.heads([
            "HTTP/1.1 301 Moved\r\n", "Location: https://example.com:8443/a\r\n", "no colon here\r\n", ":\r\n", "\r\n",
        ])
        #expect(got.first?.head.headers == [.init(name: "Location", value: "https://example.com:8443/a"), .init(name: "", value: "")])
    }

    @Test func nonASCIIBytesAreKeptAndInvalidUTF8IsReplaced() {
        let got = Self.heads([Array("HTTP/1.1 200 \u{FF}\r\n".utf8), Array("X-Caf\u{E9}: na\u{EF}ve ".utf8) + [0xFF] + [0x0D, 0x0A], [0x0D, 0x0A]])
        #expect(got.first?.head.headers == [.init(name: "X-Caf\u{E9}", value: "na\u{EF}ve \u{FFFD}")])
    }

    @Test func aNewStatusLineStartsOverAfterAFinalResponse() {
        let got = Self.heads(["HTTP/1.1 200 OK\r\n", "A: 1\r\n", "\r\n", "HTTP/1.1 404 Not Found\r\n", "B: 2\r\n", "\r\n"])
        #expect(got.map(\.head.status) == [200, 404])
        #expect(got.last?.head.headers == [.init(name: "B", value: "2")])
    }
}
