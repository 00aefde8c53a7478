import JobrunCore
import JobrunFetch
import JobrunFiles
import Testing
@testable import JobrunRun

/// `jobrun apply` initializes libcurl and OpenSSL on a thread of its own while it reads the
/// manifests. A smoke test: preparation may be started twice and waited on repeatedly, and
/// digests and engines work beside it (whether they meet it mid-way depends on timing; the exit
/// race it must not cause is `ExitStatusTests.anApplyThatStopsAtOnceExitsCleanlyEveryTime`).
@Suite struct LibraryPreparationTests {
    @Test func digestsAndEnginesWorkWhilePreparationRuns() throws {
        let first = ApplyRun.startPreparingLibraries()
        let second = ApplyRun.startPreparingLibraries()
        defer {
            first.wait()
            second.wait()
            second.wait()  // a wait that did not pass the signal on would hang here
        }
        let abc = Array("abc".utf8)
        #expect(try Digest.compute(.md5, of: abc).hex == "900150983cd24fb0d6963f7d28e17f72")
        #expect(try Digest.compute(.sha256, of: abc).hex == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        let engine = try CurlEngine.driven()
        engine.shutdown()
    }
}
