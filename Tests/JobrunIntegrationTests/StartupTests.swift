import JobrunTestSupport
import Testing

/// What the binary loads at start: FoundationEssentials, never the rest of Foundation or ICU
/// (40 MB; 6 ms more at every start). A single `import Foundation` anywhere in the product's
/// modules would bring them back; this catches it.
@Suite struct StartupTests {
    #if os(Linux)
    @Test func theBinaryLoadsNeitherFoundationNorICU() async throws {
        let directory = try TemporaryDirectory(prefix: "jobrun-startup")
        defer { directory.remove() }
        // glibc's dynamic loader lists every library it loads under LD_DEBUG=libs (on stderr).
        let result = try await Harness.run(["version"], in: directory.path, environment: ["LD_DEBUG": "libs"])
        #expect(result.status == 0, "\(result)")
        let loaded = result.stderr.split(separator: "\n").filter { $0.contains("calling init: ") }
        #expect(loaded.contains { $0.contains("libFoundationEssentials.so") }, "the loader's list was not seen: \(result.stderr.prefix(2_000))")
        #expect(loaded.contains { $0.contains("libcurl") })
        let unwanted = loaded.filter { $0.contains("/libFoundation.so") || $0.contains("FoundationInternationalization") || $0.contains("FoundationICU") }
        #expect(unwanted.isEmpty, "\(unwanted)")
    }
    #endif
}
