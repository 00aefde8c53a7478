import Testing
@testable import JobrunReport
import JobrunJSON

/// The merge's rules on made-up shard results: counts add up, a split resource's slices come
/// together by path, and every way the set can fail to be one plan is said.
@Suite struct ShardMergeTests {
    /// An `apply --json` result of shard `index` of `count`, with `slices` of resource `r`.
    static func shard(
        _ index: Int, of count: Int = 2, plan: String = "00000000000000aa", slices: [String], resource: String = "r", failed: Int = 0,
        stopReason: String? = nil
    ) -> ShardMerge.Input {
        let records = slices.map { path in
            JSONValue.object([("path", .string(path)), ("status", .string(failed > 0 ? "failed" : "fetched")), ("attempts", .int(1))])
        }
        let summary = JSONValue.object(
            ShardMerge.summedCounts.map { ($0, .int($0 == "fetched" ? Int64(slices.count - failed) : $0 == "failed" ? Int64(failed) : 0)) }
                + [
                    ("success", .bool(failed == 0 && stopReason == nil)), ("stop_reason", stopReason.map { .string($0) } ?? .null),
                    ("elapsed_seconds", .double(Double(index + 1))),
                ])
        return ShardMerge.Input(
            name: "shard-\(index).json",
            document: .object([
                ("format_version", .int(2)), ("run_id", .string("run-\(index)")),
                ("shard", .object([("index", .int(Int64(index))), ("count", .int(Int64(count))), ("plan", .string(plan))])),
                ("summary", summary),
                ("resources", .array([.object([("id", .string(resource)), ("complete", .bool(failed == 0)), ("slices", .array(records))])])),
                ("origins", .array([.object([("origin", .string("https://cdn.example")), ("requests", .int(Int64(slices.count)))])])),
            ]))
    }

    /// Each shard's origins stay its own (they had their own connections), marked with the shard.
    @Test func eachShardsOriginsAreKeptWithTheirShard() {
        let out = ShardMerge.merge([Self.shard(1, slices: ["c", "a"]), Self.shard(0, slices: ["b"])])
        let origins = out.document["origins"]?.arrayValue ?? []
        #expect(origins.compactMap { $0["shard"]?.intValue } == [0, 1])
        #expect(origins.compactMap { $0["requests"]?.intValue } == [1, 2])
        #expect(origins.allSatisfy { $0["origin"]?.stringValue == "https://cdn.example" })
    }

    @Test func aSplitResourceComesTogetherByPath() throws {
        let out = ShardMerge.merge([Self.shard(1, slices: ["c", "a"]), Self.shard(0, slices: ["b"])])
        #expect(out.problems.isEmpty && out.exitStatus == .ok)
        let resource = try #require(out.document["resources"]?.arrayValue?.first)
        #expect(resource["slices"]?.arrayValue?.compactMap { $0["path"]?.stringValue } == ["a", "b", "c"])
        #expect(out.document["summary"]?["fetched"] == .int(3) && out.document["summary"]?["success"] == .bool(true))
        #expect(out.document["summary"]?["elapsed_seconds"] == .double(2))
        #expect(out.document["shards"]?.arrayValue?.compactMap { $0["run_id"]?.stringValue } == ["run-0", "run-1"])
    }

    @Test func whatKeepsTheSetFromBeingOnePlan() {
        #expect(ShardMerge.merge([Self.shard(0, of: 3, slices: ["a"]), Self.shard(2, of: 3, slices: ["b"])]).problems == ["shard 1 of 3 is missing"])
        #expect(
            ShardMerge.merge([Self.shard(0, slices: ["a"]), Self.shard(0, slices: ["b"]), Self.shard(1, slices: ["c"])]).problems
                == ["shard 0 of 2 is there 2 times: 'shard-0.json', 'shard-0.json'; the first is merged"])
        #expect(
            ShardMerge.merge([Self.shard(0, slices: ["a"]), Self.shard(1, plan: "00000000000000bb", slices: ["b"])]).problems
                == ["the shards were not made from the same manifests (plan fingerprints 00000000000000aa, 00000000000000bb)"])
        let overlap = ShardMerge.merge([Self.shard(0, slices: ["a"]), Self.shard(1, slices: ["a"])])
        #expect(overlap.problems == ["slice 'a' of 'r' is in shard 0 and shard 1"] && overlap.exitStatus == .failure)
        let counts = ShardMerge.merge([Self.shard(0, slices: ["a"]), Self.shard(1, of: 3, slices: ["b"])])
        #expect(counts.problems.first == "the shards do not agree on their count: 'shard-0.json' says 2, 'shard-1.json' says 3")
        let stranger = ShardMerge.merge([ShardMerge.Input(name: "x.json", document: .object([("format_version", .int(1))]))])
        #expect(stranger.problems == ["'x.json' is not a result of 'jobrun apply --json' (format_version 2)"])
        // A file's absurd shard is refused, not followed.
        var absurd = Self.shard(0, slices: ["a"])
        if case .object(var members) = absurd.document, let k = members.firstIndex(where: { $0.0 == "shard" }) {
            members[k].1 = .object([("index", .int(3)), ("count", .int(-1)), ("plan", .string("x"))])
            absurd.document = .object(members)
        }
        #expect(ShardMerge.merge([absurd]).problems == ["'shard-0.json' says it is shard 3 of -1, which no run can be"])
    }

    @Test func theExitStatusSaysHowTheWholeEnded() {
        #expect(ShardMerge.merge([Self.shard(0, slices: ["a"]), Self.shard(1, slices: ["b"], failed: 1)]).exitStatus == .failure)
        #expect(ShardMerge.merge([Self.shard(0, slices: ["a"]), Self.shard(1, slices: ["b"], stopReason: "deadline")]).exitStatus == .locked)
    }

    /// The JUnit report: every slice's test case once, and a `jobrun` suite for what is wrong.
    @Test func junitHasEveryCaseOnceAndSaysWhatIsWrong() {
        let out = ShardMerge.merge([Self.shard(0, of: 3, slices: ["a", "b"]), Self.shard(2, of: 3, slices: ["c"])])
        let report = ShardMerge.junit(out.document, timestamp: JUnitReport.Timestamp(secondsSince1970: 0), hostname: "h")
        #expect(report.suites.map(\.name) == ["r", "jobrun"])
        #expect(report.suites.first?.testCases.map(\.name) == ["a", "b", "c"])
        guard case .error(let type, let message, _)? = report.suites.last?.testCases.first?.result else {
            Issue.record("no error case")
            return
        }
        #expect(type == "ShardsIncomplete" && message == "shard 1 of 3 is missing")
    }

    /// A slice cut in flight is an error case: by its error's type, or, in a result written
    /// before `--json` gave it one, by its skip reason. A slice not started is skipped.
    @Test func aSliceCutInFlightIsAnErrorCase() throws {
        func merged(_ record: JSONValue) throws -> JUnitReport.TestCase.Result {
            var input = Self.shard(0, of: 1, slices: [])
            if case .object(var members) = input.document, let k = members.firstIndex(where: { $0.0 == "resources" }) {
                members[k].1 = .array([.object([("id", .string("r")), ("complete", .bool(false)), ("slices", .array([record]))])])
                input.document = .object(members)
            }
            let report = ShardMerge.junit(ShardMerge.merge([input]).document, timestamp: JUnitReport.Timestamp(secondsSince1970: 0), hostname: "h")
            return try #require(report.suites.first?.testCases.first?.result)
        }
        let reason = JSONValue.string("cut in flight by the stop; its partial file is kept to resume")
        let typed = try merged(
            .object([
                ("path", .string("a")), ("status", .string("skipped")), ("skip_reason", reason),
                ("error", .object([("type", .string("Interrupted")), ("message", reason)])),
            ]))
        guard case .error(let type, let message, _) = typed else {
            Issue.record("not an error case: \(typed)")
            return
        }
        #expect(type == "Interrupted" && message == "cut in flight by the stop; its partial file is kept to resume")
        let notStarted = try merged(
            .object([
                ("path", .string("a")), ("status", .string("skipped")),
                ("skip_reason", .string("not started: the run stopped at its deadline")),
            ]))
        guard case .skipped(let message) = notStarted else {
            Issue.record("not a skipped case: \(notStarted)")
            return
        }
        #expect(message == "not started: the run stopped at its deadline")
    }
}
