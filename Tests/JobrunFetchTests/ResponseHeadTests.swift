import Testing
@testable import JobrunFetch

@Suite struct ResponseHeadTests {
    static func head(_ lines: [(String, String)], version: String = "1.1") -> ResponseHead {
        ResponseHead(status: 200, headers: lines.map { .init(name: $0.0, value: $0.1) }, version: version)
    }

    @Test func namesMatchWithoutRegardToASCIICaseOnly() {
        let h = Self.head([("ETag", "\"a\""), ("CONTENT-length", "5"), ("\u{212A}eep", "kelvin"), ("keep", "ascii")])
        #expect(h.value("etag") == "\"a\"" && h.value("ETAG") == "\"a\"")
        #expect(h.value("content-length") == "5")
        // Field names are ASCII tokens: the Kelvin sign is not a "k".
        #expect(h.value("keep") == "ascii")
        #expect(h.value("kee") == nil && h.value("keeps") == nil)
    }

    @Test func whetherTheProtocolMarksTheBodysEnd() {
        #expect(Self.head([("Content-Length", "5")]).hasDelimitedBody)
        #expect(Self.head([("Transfer-Encoding", "gzip, Chunked")]).hasDelimitedBody)
        #expect(!Self.head([("Connection", "close")]).hasDelimitedBody)
        #expect(!Self.head([], version: "1.0").hasDelimitedBody)
        #expect(Self.head([], version: "2").hasDelimitedBody)
        #expect(Self.head([], version: "").hasDelimitedBody, "file://")
    }

    /// A request is over TLS by its scheme, in any case; a longer or shorter prefix is not.
    @Test func aRequestUsesTLSByItsScheme() {
        #expect(TransferRequest(url: "https://h/a").usesTLS && TransferRequest(url: "HTTPS://h/a").usesTLS)
        #expect(!TransferRequest(url: "http://h/a").usesTLS && !TransferRequest(url: "https").usesTLS && !TransferRequest(url: "").usesTLS)
        #expect(!TransferRequest(url: "httpss://h/a").usesTLS && !TransferRequest(url: "file:///https:").usesTLS)
    }
}
