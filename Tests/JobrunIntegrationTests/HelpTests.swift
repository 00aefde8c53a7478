import JobrunTestSupport
import Testing

/// `--help` of the root command and every subcommand, compared with `Golden/help/`, so a change
/// to the command line's documentation is always deliberate (and reviewed as a diff).
@Suite struct HelpTests {
    static let commands: [[String]] = [
        [], ["validate"], ["plan"], ["apply"], ["verify"], ["status"], ["conditions"], ["graph"], ["report"], ["report", "merge"], ["version"],
    ]

    @Test(arguments: commands)
    func helpMatchesTheGolden(command: [String]) async throws {
        let directory = try TemporaryDirectory(prefix: "jobrun-help")
        defer { directory.remove() }
        let result = try await Harness.run(command + ["--help"], in: directory.path)
        #expect(result.status == 0, "\(result)")
        #expect(result.stderr.isEmpty, "\(result.stderr)")
        Harness.expectGolden(result.stdout, "help/\(command.isEmpty ? "jobrun" : command.joined(separator: "-")).txt")
        // `jobrun help <command>` says the same.
        let viaHelp = try await Harness.run(["help"] + command, in: directory.path)
        #expect(viaHelp.status == 0)
        #expect(viaHelp.stdout == result.stdout)
    }

    /// The usage comes within the first ten lines, before the options: the discussions are short,
    /// the whole reference is in the manual (ManualPageTests).
    @Test(arguments: [[], ["plan"], ["apply"], ["verify"], ["status"]])
    func theUsageComesFirst(command: [String]) async throws {
        let directory = try TemporaryDirectory(prefix: "jobrun-help")
        defer { directory.remove() }
        let result = try await Harness.run(command + ["--help"], in: directory.path)
        let lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false)
        let usage = lines.firstIndex { $0.hasPrefix("USAGE: jobrun") }
        #expect(usage.map { $0 < 10 } == true, "\(result.stdout)")
    }

    /// `apply --help` groups its options under titled sections, in this order, and the hidden
    /// manual generator is in no help.
    @Test func applyGroupsItsOptions() async throws {
        let directory = try TemporaryDirectory(prefix: "jobrun-help")
        defer { directory.remove() }
        let result = try await Harness.run(["apply", "--help"], in: directory.path)
        let titles = result.stdout.split(separator: "\n").filter { $0.first?.isUppercase == true && $0.hasSuffix(":") }
        #expect(
            titles == [
                "MANIFESTS:", "SELECTION AND SHARDS:", "TRANSFERS:", "REPORTS:", "PROGRESS AND OUTPUT:", "MIRROR STATE:", "PRUNING:", "NETWORK POLICY:",
                "DEADLINE AND OFFLINE:", "HOOKS:", "OPTIONS:",
            ], "\(result.stdout)")
        let root = try await Harness.run(["--help"], in: directory.path)
        #expect(root.status == 0 && !root.stdout.contains("generate-manual"), "\(root)")
    }

    /// The flags the documentation promises exist under those exact names.
    @Test(arguments: [
        (
            "plan",
            [
                "--output", "--allow-file-urls", "--verbose", "--json", "--detailed-exitcode", "--out", "--jobs", "--resource", "--concurrency", "--per-host",
                "--events", "--shard", "--shard-count",
            ]
        ),
        (
            "verify",
            [
                "--output", "--allow-file-urls", "--quiet", "--json", "--junit", "--extra", "--fail-on-extra", "--jobs", "--resource", "--events", "--shard",
                "--shard-count",
            ]
        ),
        ("validate", ["--output", "--allow-file-urls"]),
        (
            "apply",
            [
                "--output", "--allow-file-urls", "--refresh", "--cacert", "--json", "--junit", "--resource", "--concurrency", "--per-host", "--events",
                "--deadline", "--deadline-margin", "--progress", "--progress-interval", "--quiet", "--verbose", "--limit-rate", "--shard", "--shard-count",
                "--offline-wait", "--on-run-end",
            ]
        ),
        ("graph", ["--output", "--allow-file-urls", "--resource"]),
        ("status", ["--output", "--allow-file-urls", "--resource", "--json", "--max-age", "--runs", "--shard", "--shard-count"]),
    ])
    func documentedFlagsExist(command: String, flags: [String]) async throws {
        let directory = try TemporaryDirectory(prefix: "jobrun-help")
        defer { directory.remove() }
        let result = try await Harness.run([command, "--help"], in: directory.path)
        for flag in flags {
            #expect(
                result.stdout.contains(" \(flag) ") || result.stdout.contains(" \(flag)\n") || result.stdout.contains("[\(flag)]")
                    || result.stdout.contains("[\(flag) "), "\(command) --help does not show \(flag)")
        }
    }
}
