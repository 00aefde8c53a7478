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
        // What dlopen says differs (glibc: "NAME: cannot open shared object file…"; dyld:
        // "dlopen(NAME, 0x0002): tried: …"): only the names and the frame are checked.
        #expect(error.description.hasPrefix("cannot load libcurl ("), "\(error)")
        #expect(error.description.contains("libjobrun-no-such-curl.so.4"), "\(error)")
        #expect(error.description.contains("; "), "\(error)")
        #expect(error.description.contains("libjobrun-nor-this.so.4"), "\(error)")
        #expect(error.description.hasSuffix("); `apply` needs libcurl 7.85 or later (Debian and Ubuntu: apt install libcurl4)"), "\(error)")
    }

    #if os(Linux)
    @Test func aLibraryThatIsNotLibcurlIsAnErrorNamingTheMissingEntryPoint() {
        // libyaml: loaded by jobrun already, and has none of libcurl's functions.
        guard case .failure(let error) = CurlAPI.load(from: ["libyaml-0.so.2"]) else {
            Issue.record("took libyaml for libcurl")
            return
        }
        #expect(error.description == "libyaml-0.so.2 is not a usable libcurl: it has no curl_global_init; `apply` needs libcurl 7.85 or later (Debian and Ubuntu: apt install libcurl4)", "\(error)")
    }
    #endif

    @Test func aLibcurlOlderThanTheMinimumIsRefusedWithItsVersion() {
        // The installed one against a minimum above it: the path an old libcurl takes.
        guard case .failure(let error) = CurlAPI.load(from: CurlAPI.libraryNames, minimumVersion: 0xFF_00_00) else {
            Issue.record("a libcurl below the minimum was accepted")
            return
        }
        let version = CurlLibrary.version
        #expect(error.description == "\(CurlAPI.libraryNames[0]) is libcurl \(version), too old; `apply` needs libcurl 7.85 or later (Debian and Ubuntu: apt install libcurl4)", "\(error)")
    }

    @Test func versionNumbersAreDotted() {
        #expect(CurlAPI.dotted(0x07_58_01) == "7.88.1")
        #expect(CurlAPI.dotted(0x07_55_00) == "7.85.0")
        #expect(CurlAPI.dotted(0x08_0B_00) == "8.11.0")
    }
}
