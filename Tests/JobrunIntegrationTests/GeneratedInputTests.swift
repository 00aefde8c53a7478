import Foundation
import JobrunTestSupport
import Testing

/// Inputs too big or too hostile to keep in the repository, generated per run: long dependency
/// chains and cycles (no recursion, no quadratic blow-up), absurd nesting, oversized files.
@Suite struct GeneratedInputTests {
    static let count = 10_000

    static func id(_ n: Int) -> String {
        let digits = String(n)
        return "r" + String(repeating: "0", count: max(0, 5 - digits.count)) + digits
    }

    /// `count` resources, each depending on the one before it (and, when `isCycle`, the first on
    /// the last). Declared last to first, so dependency order is the reverse of document order.
    static func chain(isCycle: Bool) -> String {
        var text = "version: 1\nresources:\n"
        text.reserveCapacity(120 * count)
        for n in stride(from: count - 1, through: 0, by: -1) {
            let dependency = n > 0 ? "[\(id(n - 1))]" : isCycle ? "[\(id(count - 1))]" : "[]"
            text += "  - {id: \(id(n)), base_url: \"https://cdn.example.com/\", depends_on: \(dependency), slices: [{path: \(id(n)).bin, size: 1}]}\n"
        }
        return text
    }

    @Test func aTenThousandLongChainValidatesPlansAndGraphs() async throws {
        let directory = try TemporaryDirectory(prefix: "jobrun-chain")
        defer { directory.remove() }
        try directory.write(file: "chain.yaml", contents: Self.chain(isCycle: false))

        let validate = try await Harness.run(["validate", "chain.yaml"], in: directory.path)
        #expect(validate.status == 0, "\(validate)")
        #expect(validate.stdout == "Valid: 1 manifest, 10000 resources, 10000 slices.\n")
        #expect(validate.stderr.isEmpty, "\(validate.stderr)")

        let plan = try await Harness.run(["plan", "chain.yaml", "--output", "mirror", "--detailed-exitcode"], in: directory.path)
        #expect(plan.status == 2, "\(plan.stderr)")
        #expect(plan.stderr.isEmpty, "\(plan.stderr)")
        let lines = plan.stdout.split(separator: "\n")
        #expect(lines.count == Self.count + 2)
        // Dependency order: r00000 first, each resource after the one it depends on.
        #expect(lines.first == "~ r00000 -> mirror/r00000/: 1 to fetch (1 B)")
        #expect(lines.dropLast(2).last == "~ r09999 -> mirror/r09999/: 1 to fetch (1 B)")
        #expect(lines.dropLast().last?.hasPrefix("Space: mirror: 9.8 KiB to fetch, ") == true)
        let order = lines.dropLast(2).map { $0.split(separator: " ")[1] }
        #expect(order == (0..<Self.count).map { Substring(Self.id($0)) })
        #expect(
            lines.last
                == "Plan: 10000 to fetch, 0 to resume, 0 to refetch (9.8 KiB), 0 up to date, 0 deferred; 10000 without digests (10000 size only, 0 unverified)."
        )
        #expect(!directory.exists("mirror"))

        let graph = try await Harness.run(["graph", "chain.yaml"], in: directory.path)
        #expect(graph.status == 0, "\(graph.stderr)")
        #expect(graph.stdout.contains("    \"r09998\" -> \"r09999\";\n"))
    }

    @Test func aTenThousandLongCycleIsAnErrorNotAHang() async throws {
        let directory = try TemporaryDirectory(prefix: "jobrun-cycle")
        defer { directory.remove() }
        try directory.write(file: "cycle.yaml", contents: Self.chain(isCycle: true))

        for command in ["validate", "plan"] {
            let result = try await Harness.run([command, "cycle.yaml", "--output", "mirror"], in: directory.path)
            #expect(result.status == 65, "\(result.stderr.prefix(2000))")
            #expect(result.stdout.isEmpty)
            let first = result.stderr.split(separator: "\n").first.map(String.init) ?? ""
            // The cycle starts at the smallest id and follows `depends_on`: r00000 -> r09999 -> … -> r00000.
            #expect(first.hasPrefix("cycle.yaml:\(Self.count + 2):"), "\(first.prefix(200))")
            #expect(first.contains(": error: dependency cycle: r00000 -> r09999 -> r09998 -> "), "\(first.prefix(200))")
            #expect(first.hasSuffix(" -> r00002 -> r00001 -> r00000"), "\(first.suffix(200))")
            #expect(first.components(separatedBy: " -> ").count == Self.count + 1)
            #expect(result.stderr.hasSuffix("jobrun: 1 error in the manifests; nothing was done.\n"))
        }
    }

    /// libyaml would happily recurse into this; jobrun stops at level 65 and says where.
    @Test func aHundredThousandDeepFlowSequenceIsRefusedWithALocation() async throws {
        let directory = try TemporaryDirectory(prefix: "jobrun-deep")
        defer { directory.remove() }
        let depth = 100_000
        let prefix = "resources: "
        try directory.write(
            file: "deep.yaml",
            contents: "version: 1\n" + prefix + String(repeating: "[", count: depth) + String(repeating: "]", count: depth) + "\n")

        let result = try await Harness.run(["validate", "deep.yaml"], in: directory.path)
        #expect(result.status == 65)
        #expect(result.stdout.isEmpty)
        // The mapping is level 1, the first '[' level 2: the 64th '[' opens level 65.
        let column = prefix.count + 64
        let lines = result.stderr.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.first == "deep.yaml:2:\(column): error: nesting deeper than 64 levels", "\(result.stderr.prefix(300))")
        #expect(lines.count > 2 && lines[2] == Substring(String(repeating: " ", count: column - 1) + "^"))
        #expect(result.stderr.hasSuffix("jobrun: 1 error in the manifests; nothing was done.\n"))
    }

    /// A manifest over 256 MiB is refused before it is read (the file here is sparse: no disk used).
    @Test func aManifestOverTheSizeLimitIsRefusedWithALocation() async throws {
        let directory = try TemporaryDirectory(prefix: "jobrun-huge")
        defer { directory.remove() }
        let path = try directory.write(file: "huge.yaml", contents: "version: 1\n")
        let size: UInt64 = 256 * 1024 * 1024 + 1
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.truncate(atOffset: size)
        try handle.close()

        let result = try await Harness.run(["validate", "huge.yaml"], in: directory.path)
        #expect(result.status == 65, "\(result)")
        #expect(result.stdout.isEmpty)
        #expect(
            result.stderr == """
                huge.yaml:1:1: error: manifest is \(size) bytes; the limit is 256 MiB
                jobrun: 1 error in the manifests; nothing was done.

                """)
    }
}
