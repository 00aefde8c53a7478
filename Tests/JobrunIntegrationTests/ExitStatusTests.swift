import Foundation
import JobrunTestSupport
import Testing

/// Exit statuses are public API (README, `jobrun --help`): each one, end to end.
@Suite struct ExitStatusTests {
    /// One resource of two files; `populated` writes both, correctly, into `mirror/`.
    static func fixture(populated: Bool) throws -> TemporaryDirectory {
        let directory = try TemporaryDirectory(prefix: "jobrun-exit")
        try directory.write(
            file: "site.yaml",
            contents: """
                version: 1
                resources:
                  - id: docs
                    base_url: https://cdn.example.com/docs/
                    slices:
                      - path: hello.txt
                        size: 6
                        sha256: 5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03
                      - path: intro.txt
                        md5: 60a71506347a6d5f688c41d296e19c69

                """)
        if populated {
            try directory.write(file: "mirror/docs/hello.txt", contents: "hello\n")
            try directory.write(file: "mirror/docs/intro.txt", contents: "intro\n")
        }
        return directory
    }

    static func run(_ arguments: [String], populated: Bool = false, prepare: (TemporaryDirectory) throws -> Void = { _ in }) async throws -> RunResult {
        let directory = try fixture(populated: populated)
        defer { directory.remove() }
        try prepare(directory)
        return try await Harness.run(arguments, in: directory.path)
    }

    // MARK: 0

    @Test func validateOfAValidManifestIs0() async throws {
        let result = try await Self.run(["validate", "site.yaml"])
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout == "Valid: 1 manifest, 1 resource, 2 slices.\n")
        #expect(result.stderr.isEmpty)
    }

    @Test func verifyWithEverySliceOkIs0() async throws {
        let result = try await Self.run(["verify", "site.yaml", "--output", "mirror"], populated: true)
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.hasSuffix("Verify: 2 ok, 0 mismatched, 0 missing, 0 errors; 2 proven by hashing.\n"), "\(result)")
    }

    @Test func planWithNothingToDoIs0WithDetailedExitcode() async throws {
        let result = try await Self.run(["plan", "site.yaml", "--output", "mirror", "--detailed-exitcode"], populated: true)
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.hasSuffix("Plan: 0 to fetch, 0 to resume, 0 to refetch, 2 up to date, 0 deferred.\n"), "\(result)")
    }

    @Test func planWithChangesIs0WithoutDetailedExitcode() async throws {
        let result = try await Self.run(["plan", "site.yaml", "--output", "mirror"])
        #expect(result.status == 0, "\(result)")
    }

    // MARK: 1

    @Test func verifyWithAMismatchIs1() async throws {
        let result = try await Self.run(["verify", "site.yaml", "--output", "mirror"], populated: true) { directory in
            try directory.write(file: "mirror/docs/intro.txt", contents: "intra\n")
        }
        #expect(result.status == 1, "\(result)")
        #expect(result.stdout.contains("* mirror/docs/intro.txt: md5 differs"), "\(result)")
    }

    @Test func verifyWithAMissingFileIs1() async throws {
        let result = try await Self.run(["verify", "site.yaml", "--output", "mirror"], populated: true) { directory in
            try FileManager.default.removeItem(atPath: directory.path("mirror/docs/hello.txt"))
        }
        #expect(result.status == 1, "\(result)")
        #expect(result.stdout.contains("- mirror/docs/hello.txt: missing"), "\(result)")
    }

    @Test func verifyOfAnEmptyMirrorIs1() async throws {
        let result = try await Self.run(["verify", "site.yaml", "--output", "mirror"])
        #expect(result.status == 1, "\(result)")
        #expect(result.stdout.hasSuffix("Verify: 0 ok, 0 mismatched, 2 missing, 0 errors.\n"), "\(result)")
    }

    /// A foreign file has a sign of its own; jobrun's working files of the manifests' slices are
    /// named as such and never fail `--fail-on-extra` (those of any other file are foreign).
    @Test func verifyWithExtraFilesIs1OnlyWithFailOnExtra() async throws {
        let prepare: (TemporaryDirectory) throws -> Void = { try $0.write(file: "mirror/docs/junk.tmp", contents: "x") }
        let lenient = try await Self.run(["verify", "site.yaml", "--output", "mirror", "--extra"], populated: true, prepare: prepare)
        #expect(lenient.status == 0, "\(lenient)")
        #expect(lenient.stdout.contains("# mirror/docs/junk.tmp: named by no manifest\n"), "\(lenient)")
        #expect(lenient.stdout.contains(", 0 errors, 1 extra;"), "\(lenient)")
        let strict = try await Self.run(
            ["verify", "site.yaml", "--output", "mirror", "--extra", "--fail-on-extra"], populated: true, prepare: prepare)
        #expect(strict.status == 1, "\(strict)")

        let leftovers: (TemporaryDirectory) throws -> Void = { directory in
            try directory.write(file: "mirror/docs/.hello.txt.jobrun-part", contents: "hel")
            try directory.write(file: "mirror/docs/.intro.txt.jobrun-meta", contents: "{}")
        }
        let working = try await Self.run(
            ["verify", "site.yaml", "--output", "mirror", "--extra", "--fail-on-extra"], populated: true, prepare: leftovers)
        #expect(working.status == 0, "\(working)")
        #expect(working.stdout.contains("% mirror/docs/.intro.txt.jobrun-meta: jobrun's resume metadata of mirror/docs/intro.txt\n"), "\(working)")
        #expect(working.stdout.contains("% mirror/docs/.hello.txt.jobrun-part: jobrun's partial download of mirror/docs/hello.txt\n"), "\(working)")
        #expect(working.stdout.contains(", 0 errors, 0 extra, 2 jobrun working files;"), "\(working)")
        let json = try await Self.run(
            ["verify", "site.yaml", "--output", "mirror", "--extra", "--json"], populated: true, prepare: leftovers)
        #expect(
            json.stdout.contains("\"working_files\": [\n    {\n      \"path\": \"mirror/docs/.hello.txt.jobrun-part\",\n      \"kind\": \"partial\""), "\(json)"
        )

        let stale = try await Self.run(
            ["verify", "site.yaml", "--output", "mirror", "--extra", "--fail-on-extra"], populated: true,
            prepare: { try $0.write(file: "mirror/docs/.gone.txt.jobrun-part", contents: "go") })
        #expect(stale.status == 1, "\(stale)")
        #expect(stale.stdout.contains("# mirror/docs/.gone.txt.jobrun-part: named by no manifest\n"), "\(stale)")
    }

    /// terraform's contract: with --detailed-exitcode every error is 1, so 2 always means "changes".
    @Test(arguments: [
        ["plan", "broken.yaml", "--detailed-exitcode"],
        ["plan", "no-such.yaml", "--detailed-exitcode"],
    ])
    func planErrorsAre1WithDetailedExitcode(arguments: [String]) async throws {
        let result = try await Self.run(arguments) { directory in
            try directory.write(file: "broken.yaml", contents: "version: 1\nresources: []\n")
        }
        #expect(result.status == 1, "\(result)")
        #expect(result.stdout.isEmpty, "\(result)")
        #expect(!result.stderr.isEmpty)
    }

    // MARK: 2

    @Test func planWithChangesIs2WithDetailedExitcode() async throws {
        let result = try await Self.run(["plan", "site.yaml", "--output", "mirror", "--detailed-exitcode"])
        #expect(result.status == 2, "\(result)")
        #expect(result.stdout.hasSuffix("Plan: 2 to fetch, 0 to resume, 0 to refetch (6 B + 1 of unknown size), 0 up to date, 0 deferred.\n"), "\(result)")
        #expect(result.stderr.isEmpty)
    }

    // MARK: 64

    @Test(arguments: [
        ["plan", "site.yaml", "--frobnicate"],
        ["plan", "site.yaml", "--jobs", "0"],
        ["verify", "site.yaml", "--jobs", "0"],
        ["plan", "site.yaml", "--jobs", "many"],
        ["verify", "site.yaml", "--fail-on-extra"],
        ["status", "site.yaml", "--max-age", "5x"],
        ["status", "site.yaml", "--max-age", "0s"],
        ["status", "site.yaml", "--runs", "-1"],
        ["frobnicate"],
        ["validate", "site.yaml", "--json"],
    ])
    func usageErrorsAre64(arguments: [String]) async throws {
        let result = try await Self.run(arguments)
        #expect(result.status == 64, "\(result)")
        #expect(result.stdout.isEmpty, "\(result)")
        #expect(result.stderr.contains("Error: "), "\(result)")
    }

    // MARK: 65

    @Test(arguments: ["validate", "plan", "verify", "status", "graph"])
    func anInvalidManifestIs65(command: String) async throws {
        let result = try await Self.run([command, "broken.yaml"]) { directory in
            try directory.write(file: "broken.yaml", contents: "version: 1\nresources: []\n")
        }
        #expect(result.status == 65, "\(result)")
        #expect(result.stdout.isEmpty, "\(result)")
        #expect(
            result.stderr == """
                broken.yaml:2:12: error: 'resources' is empty; a manifest must declare at least one resource
                resources: []
                           ^
                jobrun: 1 error in the manifests; nothing was done.

                """)
    }

    /// `apply FILE` with a JSON file: a plan saved by `plan --out` or nothing jobrun can use.
    @Test(arguments: [
        ("{\"kind\": \"something-else\"}", "is neither a manifest nor a plan saved by 'jobrun plan --out'"),
        ("{\"kind\": \"jobrun-plan\", \"format_version\": 99}", "was saved in an unknown plan format"),
        ("{\"kind\": \"jobrun-plan\"", "is neither a manifest nor a plan saved by 'jobrun plan --out'"),
        ("{\"kind\": \"jobrun-plan\", \"format_version\": 2, \"manifests\": []}", "names no manifest; run 'jobrun plan --out' again"),
    ])
    func aJSONFileThatIsNoUsablePlanIs65(document: String, complaint: String) async throws {
        let result = try await Self.run(["apply", "saved.plan", "--output", "mirror"]) { directory in
            try directory.write(file: "saved.plan", contents: document)
        }
        #expect(result.status == 65, "\(result)")
        #expect(result.stdout.isEmpty, "\(result)")
        #expect(result.stderr == "jobrun: error: 'saved.plan' \(complaint)\n", "\(result)")
    }

    /// `apply` starts initializing libcurl and OpenSSL on another thread before it reads its
    /// input; an exit moments later must wait for that thread. Without the wait, 38 of 300 such
    /// runs died of SIGSEGV in OpenSSL's exit handlers; 40 runs would all pass by luck 0.4 % of
    /// the time.
    @Test func anApplyThatStopsAtOnceExitsCleanlyEveryTime() async throws {
        let directory = try TemporaryDirectory(prefix: "jobrun-exit")
        defer { directory.remove() }
        try directory.write(file: "saved.plan", contents: "{\"kind\": \"something-else\"}")
        for attempt in 1...40 {
            // `Harness.run` fails the test on a signal.
            let result = try await Harness.run(["apply", "saved.plan"], in: directory.path)
            try #require(result.status == 65, "attempt \(attempt): \(result)")
        }
    }

    // MARK: 66

    @Test(arguments: ["validate", "plan", "verify", "status", "graph"])
    func aMissingManifestIs66(command: String) async throws {
        let result = try await Self.run([command, "no-such.yaml"])
        #expect(result.status == 66, "\(result)")
        #expect(result.stdout.isEmpty, "\(result)")
        #expect(result.stderr == "jobrun: error: cannot read 'no-such.yaml': No such file or directory\n")
    }

    @Test func aFolderWithoutManifestsIs66() async throws {
        let result = try await Self.run(["plan", "empty"]) { directory in
            try directory.makeDirectory("empty")
            try directory.write(file: "empty/notes.txt", contents: "not a manifest\n")
        }
        #expect(result.status == 66, "\(result)")
        #expect(result.stdout.isEmpty, "\(result)")
        #expect(result.stderr == "jobrun: error: cannot read 'empty': the folder has no *.yaml or *.yml manifests\n")
    }

    /// With no argument jobrun reads its own manifests, of which this folder holds none.
    @Test func noArgumentsInAFolderWithoutManifestsIs66() async throws {
        let result = try await Self.run(["validate"]) { directory in
            try FileManager.default.removeItem(atPath: directory.path("site.yaml"))
        }
        #expect(result.status == 66, "\(result)")
    }

    /// A FIFO named like a manifest: refused at once, not waited on for a writer that never comes.
    @Test func aManifestThatIsNotARegularFileIs66() async throws {
        let result = try await Self.run(["validate", "site.yaml", "fifo.yaml"]) { directory in
            try #require(mkfifo(directory.path("fifo.yaml"), 0o600) == 0)
        }
        #expect(result.status == 66, "\(result)")
        #expect(result.stderr == "jobrun: error: cannot read 'fifo.yaml': not a regular file\n", "\(result)")
    }

    /// With no manifest named, a repository's other YAML files are not read: jobrun's own are
    /// found by name (or in `manifests/`), and without any it says so and exits 66.
    @Test func noManifestNamedReadsOnlyJobrunsOwn() async throws {
        let directory = try Self.fixture(populated: false)
        defer { directory.remove() }
        try directory.write(file: "docker-compose.yml", contents: "services:\n  web: {image: nginx}\n")
        try directory.write(file: ".gitlab-ci.yml", contents: "stages: [build]\n")
        let none = try await Harness.run(["validate"], in: directory.path)
        #expect(none.status == 66, "\(none)")
        #expect(
            none.stderr
                == "jobrun: error: cannot read '.': no manifests named, no folder 'manifests' here and no file named jobrun.yaml or *.jobrun.yaml; name the manifests to read\n",
            "\(none)")

        try FileManager.default.moveItem(atPath: directory.path("site.yaml"), toPath: directory.path("site.jobrun.yaml"))
        let named = try await Harness.run(["validate"], in: directory.path)
        #expect(named.status == 0 && named.stdout == "Valid: 1 manifest, 1 resource, 2 slices.\n", "\(named)")
        try FileManager.default.createDirectory(atPath: directory.path("manifests"), withIntermediateDirectories: false)
        try FileManager.default.moveItem(atPath: directory.path("site.jobrun.yaml"), toPath: directory.path("manifests/site.yaml"))
        let folder = try await Harness.run(["validate"], in: directory.path)
        #expect(folder.status == 0 && folder.stdout == "Valid: 1 manifest, 1 resource, 2 slices.\n", "\(folder)")
    }

    // MARK: 74

    @Test func planOutIntoAnUnwritablePlaceIs74() async throws {
        let result = try await Self.run(["plan", "site.yaml", "--output", "mirror", "--out", "site.yaml/plan.json"])
        #expect(result.status == 74, "\(result)")
        #expect(result.stderr.hasPrefix("jobrun: error: cannot write the saved plan 'site.yaml/plan.json': "), "\(result)")
        // …and with --detailed-exitcode, an error is 1 like any other.
        let detailed = try await Self.run(
            ["plan", "site.yaml", "--output", "mirror", "--out", "site.yaml/plan.json", "--detailed-exitcode"])
        #expect(detailed.status == 1, "\(detailed)")
    }

    @Test func verifyJUnitIntoAnUnwritablePlaceIs74() async throws {
        let result = try await Self.run(["verify", "site.yaml", "--output", "mirror", "--junit", "site.yaml/report.xml"], populated: true)
        #expect(result.status == 74, "\(result)")
        #expect(result.stderr.hasPrefix("jobrun: error: cannot write the JUnit report 'site.yaml/report.xml': "), "\(result)")
    }

    // MARK: 75

    /// This test process holds the output root's lock, as another apply would (ApplyLockTests
    /// runs one `jobrun apply` against another, and checks that nothing is sent or written).
    @Test func applyIntoALockedOutputRootIs75() async throws {
        var holder: Int32 = -1
        defer { if holder >= 0 { close(holder) } }
        let result = try await Self.run(["apply", "site.yaml"]) { directory in
            holder = open(try directory.makeDirectory("mirror"), O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            try #require(holder >= 0 && flock(holder, LOCK_EX) == 0)
        }
        #expect(result.status == 75, "\(result)")
        #expect(result.stdout.isEmpty)
        #if os(Linux)
        #expect(result.stderr.hasPrefix("jobrun: error: the output root 'mirror' is locked by pid \(getpid()) ("), "\(result)")
        #else
        #expect(result.stderr.hasPrefix("jobrun: error: the output root 'mirror' is locked by another process"), "\(result)")
        #endif
    }
}
