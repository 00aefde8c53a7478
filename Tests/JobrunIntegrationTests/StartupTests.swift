import Foundation
import JobrunTestSupport
import Testing

/// What the binary loads at start: FoundationEssentials, never the rest of Foundation or ICU
/// (their loading would slow every start; docs/performance.md). A single `import Foundation`
/// anywhere in the product's modules would bring them back; this catches it. libcurl is loaded
/// with `dlopen`, by the commands that use it and no others, and a libcurl that cannot be loaded
/// fails only those.
@Suite struct StartupTests {
    #if os(Linux)
    @Test func theBinaryLoadsNeitherFoundationNorICU() async throws {
        let directory = try TemporaryDirectory(prefix: "jobrun-startup")
        defer { directory.remove() }
        // glibc's dynamic loader lists every library it loads under LD_DEBUG=libs (on stderr).
        let result = try await Harness.run(["version"], in: directory.path, environment: ["LD_DEBUG": "libs"])
        #expect(result.status == 0, "\(result)")
        let loaded = Self.initialized(result)
        #expect(loaded.contains { $0.contains("libFoundationEssentials.so") }, "the loader's list was not seen: \(result.stderr.prefix(2_000))")
        #expect(loaded.contains { $0.contains("libcurl") })
        let unwanted = loaded.filter { $0.contains("/libFoundation.so") || $0.contains("FoundationInternationalization") || $0.contains("FoundationICU") }
        #expect(unwanted.isEmpty, "\(unwanted)")
    }

    /// The libraries whose initializers ran, from glibc's `LD_DEBUG=libs` list on stderr.
    private static func initialized(_ result: RunResult) -> [Substring] {
        result.stderr.split(separator: "\n").filter { $0.contains("calling init: ") }
    }

    /// (`version` loads it too: ``theBinaryLoadsNeitherFoundationNorICU()``.)
    @Test func onlyApplyAndVersionLoadLibcurl() async throws {
        let site = try Self.loopbackSite()
        defer { site.remove() }
        for arguments in [["validate", "site.yaml"], ["plan", "site.yaml", "--output", "mirror"], ["verify", "site.yaml", "--output", "mirror"]] {
            let result = try await Harness.run(arguments, in: site.path, environment: ["LD_DEBUG": "libs"])
            // verify: 1, for the missing file; validate and plan: 0.
            #expect(result.status == (arguments[0] == "verify" ? 1 : 0), "\(result.stdout)")
            let loaded = Self.initialized(result)
            #expect(loaded.contains { $0.contains("libyaml") }, "the loader's list was not seen: \(result.stderr.prefix(2_000))")
            #expect(!loaded.contains { $0.contains("libcurl") }, "jobrun \(arguments[0]) loaded libcurl")
            #expect(!loaded.contains { $0.contains("libgnutls") || $0.contains("libldap") }, "jobrun \(arguments[0]) loaded libcurl's dependencies")
        }
        // An apply that has nothing to fetch still prepares its engines.
        let apply = try await Harness.run(["apply", "done.yaml", "--output", "mirror"], in: site.path, environment: ["LD_DEBUG": "libs"])
        #expect(apply.status == 0, "\(apply)")
        #expect(apply.stdout.contains("1 up to date"), "\(apply)")
        #expect(Self.initialized(apply).contains { $0.contains("libcurl") }, "apply did not load libcurl: \(apply.stderr.prefix(2_000))")
    }

    /// `done.yaml`: one slice, in the mirror and intact. `site.yaml`: that one and one missing.
    /// Loopback URLs (port 9, nothing listens), never requested by these tests.
    private static func loopbackSite() throws -> TemporaryDirectory {
        let directory = try TemporaryDirectory(prefix: "jobrun-startup")
        let head = "version: 1\nresources:\n  - id: docs\n    base_url: http://127.0.0.1:9/docs/\n    slices:\n"
        let hello = "      - path: hello.txt\n        size: 6\n        sha256: 5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03\n"
        let missing = "      - path: missing.txt\n        size: 8\n"
        do {
            try directory.write(file: "done.yaml", contents: head + hello)
            try directory.write(file: "site.yaml", contents: head + hello + missing)
            try directory.write(file: "mirror/docs/hello.txt", contents: "hello\n")
        } catch {
            directory.remove()
            throw error
        }
        return directory
    }

    /// A folder holding a file named like libcurl that is no library.
    private static func brokenLibcurl() throws -> TemporaryDirectory {
        let libraries = try TemporaryDirectory(prefix: "jobrun-nocurl")
        do {
            try libraries.write(file: "libcurl.so.4", contents: "not a library\n")
        } catch {
            libraries.remove()
            throw error
        }
        return libraries
    }

    @Test func withoutALoadableLibcurlOnlyApplyFailsAndItSaysWhyAndWritesNothing() async throws {
        let site = try Self.loopbackSite()
        defer { site.remove() }
        let libraries = try Self.brokenLibcurl()
        defer { libraries.remove() }
        // First on the loader's path.
        let inherited = ProcessInfo.processInfo.environment["LD_LIBRARY_PATH"].map { ":" + $0 } ?? ""
        let environment = ["LD_LIBRARY_PATH": libraries.path + inherited]

        let validate = try await Harness.run(["validate", "site.yaml"], in: site.path, environment: environment)
        #expect(validate.status == 0, "\(validate)")
        let plan = try await Harness.run(["plan", "site.yaml", "--output", "mirror"], in: site.path, environment: environment)
        #expect(plan.status == 0, "\(plan)")
        #expect(plan.stdout.contains("1 to fetch, 1 up to date"), "\(plan)")
        let verify = try await Harness.run(["verify", "site.yaml", "--output", "mirror"], in: site.path, environment: environment)
        #expect(verify.status == 1, "\(verify)")
        #expect(verify.stdout.contains("missing.txt"), "\(verify)")

        let version = try await Harness.run(["version"], in: site.path, environment: environment)
        #expect(version.status == 0, "\(version)")
        #expect(version.stdout.contains("libcurl unavailable: cannot load libcurl (\(libraries.path)/libcurl.so.4: "), "\(version)")
        #expect(version.stdout.contains("libyaml 0."), "\(version)")

        func snapshot() -> [String: Data] {
            let root = site.path("mirror")
            return Dictionary(
                uniqueKeysWithValues: DirectoryTree.entries(under: root).map { ($0, FileManager.default.contents(atPath: root + "/" + $0) ?? Data()) })
        }
        let before = snapshot()
        let apply = try await Harness.run(["apply", "site.yaml", "--output", "mirror", "--junit", "apply.xml"], in: site.path, environment: environment)
        #expect(apply.status == 74, "\(apply)")
        #expect(apply.stderr.contains("jobrun: error: cannot load libcurl (\(libraries.path)/libcurl.so.4: "), "\(apply)")
        #expect(apply.stderr.contains("apt install libcurl4"), "\(apply)")
        #expect(snapshot() == before, "apply wrote into the mirror")
        #expect(!FileManager.default.fileExists(atPath: site.path("apply.xml")))
    }
    #endif
}
