import Testing
@testable import JobrunCore

@Suite struct ParsedURLTests {
    @Test func identityDropsQueryFragmentAndDefaultPort() throws {
        let a = try ParsedURL.parse("HTTPS://CDN.Example.com:443/class/a.ts?sig=abc&exp=1#frag").get()
        #expect(a.scheme == "https")
        #expect(a.host == "cdn.example.com")
        #expect(a.port == nil)
        #expect(a.query == "sig=abc&exp=1")
        #expect(a.fragment == "frag")
        #expect(a.identity == "https://cdn.example.com/class/a.ts")
        let b = try ParsedURL.parse("https://cdn.example.com/class/a.ts?sig=other").get()
        #expect(a.identity == b.identity)
    }

    @Test func keepsNonDefaultPortsAndIPv6() throws {
        #expect(try ParsedURL.parse("http://127.0.0.1:8088/x").get().identity == "http://127.0.0.1:8088/x")
        #expect(try ParsedURL.parse("http://[::1]:8080/x").get().identity == "http://[::1]:8080/x")
        #expect(try ParsedURL.parse("http://example.com").get().identity == "http://example.com/")
    }

    @Test func refusesWhatIsNotAPlainURL() {
        #expect(ParsedURL.parse("cdn.example.com/a") == .failure(.missingScheme))
        #expect(ParsedURL.parse("https:/a") == .failure(.missingAuthority))
        #expect(ParsedURL.parse("https://user:pw@host/a") == .failure(.userInfo))
        #expect(ParsedURL.parse("https://host/a\u{0}b") == .failure(.controlCharacter(offset: 14)))
        #expect(ParsedURL.parse("https://host/a b") == .failure(.whitespace(offset: 14)))
        #expect(ParsedURL.parse("https:///a") == .failure(.emptyHost))
        #expect(ParsedURL.parse("https://host:0/") == .failure(.invalidPort("0")))
        #expect(ParsedURL.parse("https://host:65536/") == .failure(.invalidPort("65536")))
        #expect(ParsedURL.parse("https://ho<st/") == .failure(.invalidHost("ho<st")))
    }

    @Test func fileURLsParseWithAnEmptyHost() throws {
        let f = try ParsedURL.parse("file:///srv/data/a.bin").get()
        #expect(f.scheme == "file")
        #expect(f.host == "")
        #expect(f.path == "/srv/data/a.bin")
    }

    @Test func percentEncodesPathsForURLs() {
        #expect(ParsedURL.percentEncodePath("raw/ts/669b14bd.ts") == "raw/ts/669b14bd.ts")
        #expect(ParsedURL.percentEncodePath("a b/c?d#e%f") == "a%20b/c%3Fd%23e%25f")
        #expect(ParsedURL.percentEncodePath("ü.png") == "%C3%BC.png")
    }
}

@Suite struct HeaderFieldTests {
    @Test func redactsSecretsByNameAndOrigin() {
        for name in ["Authorization", "proxy-authorization", "Cookie", "X-Api-Key", "X-Auth-Token", "Client-Secret", "DB-Password"] {
            #expect(HeaderField(name: name, value: "v", isSecret: false).displayValue == "<redacted>", "\(name)")
        }
        #expect(HeaderField(name: "User-Agent", value: "bot/1", isSecret: false).displayValue == "bot/1")
        #expect(HeaderField(name: "X-Trace", value: "from-env", isSecret: true).displayValue == "<redacted>")
    }

    @Test func tokensFollowRFC9110() {
        #expect(HeaderField.isToken("X-Trace_1.a!#$%&'*+^`|~"))
        #expect(!HeaderField.isToken(""))
        #expect(!HeaderField.isToken("X Trace"))
        #expect(!HeaderField.isToken("X:Trace"))
        #expect(!HeaderField.isToken("Ünicode"))
    }
}
