import Testing
@testable import JobrunFetch

/// Loading libcurl with `dlopen` (``CurlAPI``): the installed one loads whole; a file that cannot
/// be loaded, or a library that is not libcurl, is an error naming what was tried.
@Suite struct CurlAPITests {
    @Test func loadsTheInstalledLibcurl() throws {
        _ = try CurlAPI.load(from: CurlAPI.libraryNames).get()
        #expect(CurlLibrary.version.first?.isNumber == true, "\(CurlLibrary.version)")
        #expect(CurlLibrary.supportsHTTP2)
        #expect(CurlLibrary.tlsBackend != "none")
    }

    @Test func triesTheNamesInOrder() throws {
        _ = try CurlAPI.load(from: ["libjobrun-no-such-curl.so.4"] + CurlAPI.libraryNames).get()
    }

    @Test func aMissingLibraryIsAnErrorNamingIt() {
        let result = CurlAPI.load(from: ["libjobrun-no-such-curl.so.4", "libjobrun-nor-this.so.4"])
        guard case .failure(let error) = result else {
            Issue.record("loaded a library that does not exist")
            return
        }
        #expect(error.description.hasPrefix("cannot load libcurl (libjobrun-no-such-curl.so.4: "), "\(error)")
        #expect(error.description.contains("; libjobrun-nor-this.so.4: "), "\(error)")
        #expect(error.description.hasSuffix("`apply` needs libcurl 7.85 or later (Debian and Ubuntu: apt install libcurl4)"), "\(error)")
    }

    #if os(Linux)
    @Test func aLibraryThatIsNotLibcurlIsAnErrorNamingTheMissingEntryPoint() {
        // libyaml: loaded by jobrun already, and has none of libcurl's functions.
        guard case .failure(let error) = CurlAPI.load(from: ["libyaml-0.so.2"]) else {
            Issue.record("took libyaml for libcurl")
            return
        }
        #expect(error.description == "libyaml-0.so.2 is not a usable libcurl: it has no curl_global_init", "\(error)")
    }
    #endif
}
