import Testing
@testable import JobrunFetch

/// Loading libcurl with `dlopen` (``CurlAPI``): the installed one loads whole; a file that cannot
/// be loaded, or a library that is not libcurl, is an error naming what was tried.
@Suite struct CurlAPITests {
    static let requirement = "`apply` needs libcurl 7.85 or later"

    @Test func loadsTheInstalledLibcurl() throws {
        let api = try CurlAPI.load(from: CurlAPI.libraryNames).get()
        #expect(api.versionNumber >= CurlAPI.minimumVersion)
        #expect(
            CurlLibrary.version == CurlAPI.dotted(api.versionNumber) || CurlLibrary.version.hasPrefix(CurlAPI.dotted(api.versionNumber) + "-"),
            "\(CurlLibrary.version)")
        #expect(CurlLibrary.supportsHTTP2)
        #expect(CurlLibrary.tlsBackend != "none")
    }

    @Test func theMinimumIs7850() {
        #expect(CurlAPI.dotted(CurlAPI.minimumVersion) == "7.85.0")
    }

    @Test func aNameThatCannotBeOpenedIsSkippedAndTheFirstThatOpensIsTaken() throws {
        _ = try CurlAPI.load(from: ["libjobrun-no-such-curl.so.4"] + CurlAPI.libraryNames).get()
        #if os(Linux)
        // libyaml opens (jobrun has it loaded already), so it is taken, and refused: the names
        // after it are not tried.
        guard case .failure(let error) = CurlAPI.load(from: ["libyaml-0.so.2"] + CurlAPI.libraryNames) else {
            Issue.record("a later name was used although an earlier one opened")
            return
        }
        #expect(error.description.hasPrefix("libyaml-0.so.2 "), "\(error)")
        #endif
    }

    @Test func aMissingLibraryIsAnErrorNamingEveryFileTriedInOrder() {
        let result = CurlAPI.load(from: ["libjobrun-no-such-curl.so.4", "libjobrun-nor-this.so.4"])
        guard case .failure(let error) = result else {
            Issue.record("loaded a library that does not exist")
            return
        }
        // What dlopen says differs (glibc: "NAME: cannot open shared object file…"; dyld:
        // "dlopen(NAME, 0x0006): tried: …"): only the names, their order and the frame are checked.
        let text = error.description
        #expect(text.hasPrefix("cannot load libcurl ("), "\(text)")
        let first = text.range(of: "libjobrun-no-such-curl.so.4")
        let second = text.range(of: "libjobrun-nor-this.so.4")
        #expect(first != nil && second != nil, "\(text)")
        if let first, let second { #expect(first.upperBound < second.lowerBound, "\(text)") }
        #expect(text.hasSuffix("); \(Self.requirement) (Debian and Ubuntu: apt install libcurl4)"), "\(text)")
    }

    #if os(Linux)
    @Test func aLibraryThatIsNotLibcurlIsAnErrorNamingTheMissingEntryPoint() {
        // libyaml: loaded by jobrun already, and has none of libcurl's functions.
        guard case .failure(let error) = CurlAPI.load(from: ["libyaml-0.so.2"]) else {
            Issue.record("took libyaml for libcurl")
            return
        }
        #expect(error.description == "libyaml-0.so.2 is not a usable libcurl: it has no curl_version_info; \(Self.requirement)", "\(error)")
    }
    #endif

    @Test func aLibcurlBelowTheMinimumIsRefusedWithItsVersionAndOneAtItIsTaken() throws {
        let installed = try CurlAPI.load(from: CurlAPI.libraryNames).get().versionNumber
        _ = try CurlAPI.load(from: CurlAPI.libraryNames, minimumVersion: installed).get()
        guard case .failure(let error) = CurlAPI.load(from: CurlAPI.libraryNames, minimumVersion: installed + 1) else {
            Issue.record("a libcurl below the minimum was accepted")
            return
        }
        #expect(error.description == "\(CurlAPI.libraryNames[0]) is libcurl \(CurlAPI.dotted(installed)), too old; \(Self.requirement)", "\(error)")
    }

    @Test func versionNumbersAreDotted() {
        #expect(CurlAPI.dotted(0x07_58_01) == "7.88.1")
        #expect(CurlAPI.dotted(0x07_55_00) == "7.85.0")
        #expect(CurlAPI.dotted(0x08_0B_00) == "8.11.0")
    }
}
