import Foundation
import JobrunTestSupport
import Testing

/// What the binary loads at start: FoundationEssentials, never the rest of Foundation or ICU
/// (40 MB; 6 ms more at every start). A single `import Foundation` anywhere in the product's
/// modules would bring them back; this catches it. libcurl is loaded with `dlopen`, by the
/// commands that use it and no others, and a libcurl that cannot be loaded fails only those.
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

    /// The libraries whose initializers ran, from glibc's `LD_DEBUG=libs` list on stderr.
    private static func initialized(_ result: RunResult) -> [Substring] {
        result.stderr.split(separator: "\n").filter { $0.contains("calling init: ") }
    }

    @Test func onlyApplyAndVersionLoadLibcurl() async throws {
        let directory = try MirrorFixture.make()
        defer { directory.remove() }
        let manifests = ["manifests/docs.yaml", "manifests/media.yaml"]
        for arguments in [["validate"] + manifests, ["plan"] + manifests + ["--output", "mirror"], ["verify"] + manifests + ["--output", "mirror"]] {
            let result = try await Harness.run(arguments, in: directory.path, environment: ["LD_DEBUG": "libs"])
            let loaded = Self.initialized(result)
            #expect(loaded.contains { $0.contains("libyaml") }, "the loader's list was not seen: \(result.stderr.prefix(2_000))")
            #expect(!loaded.contains { $0.contains("libcurl") }, "jobrun \(arguments[0]) loaded libcurl")
            #expect(!loaded.contains { $0.contains("libgnutls") || $0.contains("libldap") }, "jobrun \(arguments[0]) loaded libcurl's dependencies")
        }
        // An apply that has nothing to fetch still prepares its engines.
        let fresh = try TemporaryDirectory(prefix: "jobrun-startup")
        defer { fresh.remove() }
        try fresh.write(file: "done.yaml", contents: """
            version: 1
            resources:
              - id: docs
                # Never requested (the file is there); loopback all the same.
                base_url: http://127.0.0.1:9/docs/
                slices:
                  - path: hello.txt
                    size: 6
                    sha256: 5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03

            """)
        try fresh.write(file: "mirror/docs/hello.txt", contents: "hello\n")
        let apply = try await Harness.run(["apply", "done.yaml", "--output", "mirror"], in: fresh.path, environment: ["LD_DEBUG": "libs"])
        #expect(apply.status == 0, "\(apply)")
        #expect(apply.stdout.contains("1 up to date"), "\(apply)")
        #expect(Self.initialized(apply).contains { $0.contains("libcurl") }, "apply did not load libcurl: \(apply.stderr.prefix(2_000))")
    }

    /// A folder holding a file named like libcurl that is no library, first on the loader's path.
    private static func brokenLibcurl() throws -> TemporaryDirectory {
        let libraries = try TemporaryDirectory(prefix: "jobrun-nocurl")
        try libraries.write(file: "libcurl.so.4", contents: "not a library\n")
        return libraries
    }

    @Test func withoutALoadableLibcurlOnlyApplyFailsAndItSaysWhyAndWritesNothing() async throws {
        let directory = try MirrorFixture.make()
        defer { directory.remove() }
        let libraries = try Self.brokenLibcurl()
        defer { libraries.remove() }
        let environment = ["LD_LIBRARY_PATH": libraries.path]
        let manifests = ["manifests/docs.yaml", "manifests/media.yaml"]

        let validate = try await Harness.run(["validate"] + manifests, in: directory.path, environment: environment)
        #expect(validate.status == 0, "\(validate)")
        // The fixture's mirror has missing and corrupt files: verify reports them (1), it does not fail to start.
        let verify = try await Harness.run(["verify"] + manifests + ["--output", "mirror"], in: directory.path, environment: environment)
        #expect(verify.status == 1, "\(verify)")
        #expect(verify.stdout.contains("hello.txt"), "\(verify)")

        let version = try await Harness.run(["version"], in: directory.path, environment: environment)
        #expect(version.status == 0, "\(version)")
        #expect(version.stdout.contains("libcurl unavailable: cannot load libcurl (\(libraries.path)/libcurl.so.4: "), "\(version)")
        #expect(version.stdout.contains("libyaml 0."), "\(version)")

        func snapshot() -> [String: Data] {
            Dictionary(uniqueKeysWithValues: DirectoryTree.files(under: directory.path("mirror")).map { ($0, FileManager.default.contents(atPath: $0) ?? Data()) })
        }
        let before = snapshot()
        let apply = try await Harness.run(["apply"] + manifests + ["--output", "mirror", "--junit", "apply.xml"], in: directory.path, environment: environment)
        #expect(apply.status == 74, "\(apply)")
        #expect(apply.stderr.contains("jobrun: error: cannot load libcurl (\(libraries.path)/libcurl.so.4: "), "\(apply)")
        #expect(apply.stderr.contains("apt install libcurl4"), "\(apply)")
        #expect(snapshot() == before, "apply wrote into the mirror")
        #expect(!FileManager.default.fileExists(atPath: directory.path("apply.xml")))
    }
    #endif
}
