import Foundation
import JobrunTestSupport
import Testing

/// `--shard K/N` through the real binary (docs/sharding.md): shards run side by side against the
/// loopback server, each into its own output root, fetch every slice once between them, and
/// together hold what one unsharded run holds, slice for slice.
@Suite struct ApplyShardTests {
    static let count = 3

    /// Independent resources of several sizes, one large enough to be split over the shards, and
    /// two joined by `depends_on`, which stay together.
    static func manifest(_ fixture: ApplyFixture) -> String {
        var text = """
            version: 1
            defaults: {output: ./mirror}
            resources:

            """
        func resource(_ id: String, size: Int, slices: Int, dependsOn: String? = nil) {
            text += "  - id: \(id)\n    base_url: \(fixture.url("/gen/\(size)/"))\n"
            if let dependsOn { text += "    depends_on: [\(dependsOn)]\n" }
            text += "    slices:\n"
            for k in 0..<slices {
                let name = "\(id)-\(k).bin"
                text += "      - {path: \(name), size: \(size), sha256: \(Generated.sha256Hex(size: size, name: name))}\n"
            }
        }
        resource("big", size: 2_000, slices: 60)
        resource("base", size: 1_000, slices: 8)
        resource("extra", size: 1_500, slices: 6, dependsOn: "base")
        resource("small", size: 500, slices: 5)
        resource("tiny", size: 300, slices: 3)
        return text
    }

    /// `resource/path` → sha256 of every fetched slice in an `apply --json` document.
    static func fetched(_ report: ApplyJSON) -> [String: String] {
        var out: [String: String] = [:]
        for r in report.resources {
            for s in r.slices where s.status == "fetched" { out[r.id + "/" + s.path] = s.digests["sha256"] }
        }
        return out
    }

    @Test func shardsSideBySideFetchEverySliceOnceAndTogetherMakeTheWhole() async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        try fixture.write(manifest: Self.manifest(fixture))
        // Side by side, each into its own root, reports named by the shard.
        let shards = try (0..<Self.count).map { k in
            try fixture.startApply([
                "--shard", "\(k)/\(Self.count)", "--output", "root-\(k)", "--json", "--junit", "junit-{shard}.xml",
                "--events", "events-{shard}.ndjson",
            ])
        }
        defer { shards.forEach { $0.kill() } }
        var union: [String: String] = [:]
        var lines: [String] = []
        for (k, shard) in shards.enumerated() {
            let result = try #require(await shard.wait(timeout: .seconds(120)), "shard \(k) did not end: \(shard.stderr)")
            #expect(result.status == 0, "shard \(k): \(result)")
            try fixture.directory.write(file: "shard-\(k).json", contents: result.stdout)
            let report = try ApplyJSON.decode(result.stdout, context: "shard \(k): \(result)")
            let mine = Self.fetched(report)
            #expect(Set(mine.keys).isDisjoint(with: union.keys), "shard \(k) fetched what another did")
            union.merge(mine) { a, _ in a }
            lines += result.stderr.split(separator: "\n").filter { $0.hasPrefix("Shard ") }.map(String.init)
            #expect(fixture.directory.exists("junit-\(k).xml") && fixture.directory.exists("events-\(k).ndjson"))
            try EventLog.read("events-\(k).ndjson", in: fixture.directory).expectWellFormed()
        }
        #expect(lines.count == Self.count && lines.allSatisfy { $0.contains(" of 82 slices") }, "\(lines)")
        // base and extra, joined, are on one shard; big is split over all of them.
        for k in 0..<Self.count {
            let root = fixture.directory.path("root-\(k)")
            let hasBase = FileManager.default.fileExists(atPath: root + "/base")
            let hasExtra = FileManager.default.fileExists(atPath: root + "/extra")
            #expect(hasBase == hasExtra, "shard \(k) holds base without extra, or the other way round")
            #expect(FileManager.default.fileExists(atPath: root + "/big"), "big is not split over shard \(k)")
        }
        // On the wire: every slice requested once, by one shard or another.
        let requests = try await fixture.sentRequests()
        #expect(requests.count == 82 && Set(requests.map(\.path)).count == 82, "\(requests.count) requests")

        // One unsharded run fetches the same slices with the same digests.
        let whole = try await fixture.applyJSON(["--output", "whole"])
        #expect(whole.result.status == 0, "\(whole.result)")
        #expect(Self.fetched(whole.report) == union)

        // Merged, the shards' results are the unsharded run's, slice for slice, and the JUnit
        // report has every slice's test case once.
        let merge = try await fixture.run(["report", "merge", "shard-2.json", "shard-0.json", "shard-1.json", "--json", "merged.json", "--junit", "merged.xml"])
        #expect(merge.status == 0 && merge.stderr.hasPrefix("Merged 3 of 3 shards: 82 fetched"), "\(merge)")
        let merged = try ApplyJSON.decode(try #require(fixture.directory.contents(of: "merged.json")), context: "merged")
        // Each shard wrote into its own root: files compare below it.
        func records(_ report: ApplyJSON) -> [String: String] {
            var out: [String: String] = [:]
            for r in report.resources {
                for s in r.slices {
                    out[r.id + "/" + s.path] =
                        "\(s.status) \(s.attempts) \(s.size ?? -1) \(s.integrity) \(s.digests) \(s.file.split(separator: "/", maxSplits: 1).last ?? "")"
                }
            }
            return out
        }
        #expect(records(merged) == records(whole.report))
        #expect(merged.summary.fetched == whole.report.summary.fetched && merged.summary.bytesTransferred == whole.report.summary.bytesTransferred)
        let xml = try #require(fixture.directory.contents(of: "merged.xml"))
        #expect(xml.components(separatedBy: "<testcase ").count - 1 == 82 && !xml.contains("<failure") && !xml.contains("<error"), "\(xml.prefix(2000))")
        JUnitSchemaCheck.expectValid(fixture.directory.path("merged.xml"))

        // A shard missing, one twice, or a result of no shard: said, and exit 1.
        let missing = try await fixture.run(["report", "merge", "shard-0.json", "shard-2.json", "--junit", "partial.xml"])
        #expect(missing.status == 1 && missing.stderr.contains("jobrun: error: shard 1 of 3 is missing"), "\(missing)")
        #expect(fixture.directory.contents(of: "partial.xml")?.contains("shard 1 of 3 is missing") == true)
        let twice = try await fixture.run(["report", "merge", "shard-0.json", "shard-1.json", "shard-1.json", "shard-2.json"])
        #expect(twice.status == 1 && twice.stderr.contains("shard 1 of 3 is there 2 times: 'shard-1.json', 'shard-1.json'"), "\(twice)")
        try fixture.directory.write(file: "whole.json", contents: whole.result.stdout)
        let stranger = try await fixture.run(["report", "merge", "shard-0.json", "shard-1.json", "shard-2.json", "whole.json"])
        #expect(stranger.status == 1 && stranger.stderr.contains("'whole.json' is not a shard's result: it was not run with --shard"), "\(stranger)")
    }

    /// A plan saved for a shard applies that shard, and `--shard` beside it is refused.
    @Test func aSavedPlanKeepsItsShard() async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        try fixture.write(manifest: Self.manifest(fixture))
        let plan = try await fixture.run(["plan", "site.yaml", "--shard", "1/3", "--out", "plan-{shard}.json"])
        #expect(plan.status == 0, "\(plan)")
        let saved = try #require(fixture.directory.contents(of: "plan-1.json"))
        let document = try #require(try JSONSerialization.jsonObject(with: Data(saved.utf8)) as? [String: Any])
        let shard = try #require(document["shard"] as? [String: Any])
        #expect(shard["index"] as? Int == 1 && shard["count"] as? Int == 3 && shard["total_slices"] as? Int == 82)

        let refused = try await fixture.run(["apply", "plan-1.json", "--shard", "0/3"])
        #expect(
            refused.status == 64 && refused.stderr.contains("--shard cannot be given with a saved plan, which applies the shard it was made for (--shard 1/3)"),
            "\(refused)")
        let applied = try await fixture.applyJSON(["--junit", "junit-{shard}.xml"], manifest: "plan-1.json")
        #expect(applied.result.status == 0 && applied.result.stderr.contains("Shard 1/3: "), "\(applied.result)")
        // {shard} is the saved plan's shard.
        #expect(fixture.directory.exists("junit-1.xml"), "\(applied.result)")
        #expect(Self.fetched(applied.report).count == shard["slices"] as? Int)
    }

    /// Shards sharing one output root: `verify --extra` of a shard does not call the other
    /// shards' files extra, and `status` of a shard judges its own slices.
    @Test func shardsSharingARootSeeEachOthersFilesAsDeclared() async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        try fixture.write(manifest: Self.manifest(fixture))
        let all = try await fixture.apply()
        #expect(all.status == 0, "\(all)")
        let verify = try await fixture.run(["verify", "site.yaml", "--shard", "2/3", "--extra"])
        #expect(verify.status == 0 && verify.stdout.contains(", 0 extra;"), "\(verify)")
        let status = try await fixture.run(["status", "site.yaml", "--shard", "2/3"])
        #expect(status.status == 0, "\(status)")
    }
}
