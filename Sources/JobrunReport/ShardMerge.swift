public import JobrunCore
import JobrunManifest
public import JobrunJSON

/// `jobrun report merge`: the `apply --json` results of the shards of one plan (`--shard K/N`)
/// as one result (docs/sharding.md, "One answer from many shards"). Pure: documents in, a
/// document and what is wrong with the set out.
///
/// The set must be one plan: every document an `apply --json` result of a sharded run, all with
/// the same count and plan fingerprint, every index from 0 to N-1 exactly once, and no slice in
/// two of them. Whatever breaks that is a problem (exit 1), and the merge still goes as far as
/// the documents allow, so that the reports show what is there.
public enum ShardMerge {
    /// One shard's result, and the file it came from.
    public struct Input: Sendable {
        public var name: String
        public var document: JSONValue

        public init(name: String, document: JSONValue) {
            self.name = name
            self.document = document
        }
    }

    public struct Output: Sendable {
        /// The merged result: the shape of `apply --json`, resources by id and slices by path,
        /// `shards` for the run each came from, and `problems`.
        public var document: JSONValue
        public var problems: [String]
        /// 1 for a problem or a failed slice, else 75 when a shard stopped early, else 0.
        public var exitStatus: ExitStatus
    }

    /// A resource as the shards' results give it: the first one's members, the slices of all of
    /// them by path, complete when it is in each, and the hooks of all (`nil` when none had any).
    struct MergedResource {
        var members: [(String, JSONValue)]
        var slices: [String: JSONValue] = [:]
        var isComplete = true
        var hooks: [JSONValue]?
    }

    /// The summary's counters, each the sum of the shards'.
    static let summedCounts = [
        "fetched", "resumed", "repaired", "bytes_transferred", "up_to_date", "failed", "skipped", "deferred", "size_only", "unverified", "revalidated",
        "unchanged", "replaced", "pruned",
    ]
    static let remainingCounts = ["cut_in_flight", "partials_kept", "partials_discarded", "not_started", "not_started_bytes", "not_started_unsized"]

    public static func merge(_ inputs: [Input]) -> Output {
        var problems: [String] = []
        var shards: [(index: Int, input: Input)] = []
        var counts = Set<Int64>()
        var plans = Set<String>()
        for input in inputs {
            let d = input.document
            // `summary.fetched` is apply's alone: a verify result has the rest of the shape.
            guard d["format_version"]?.intValue == ApplyReports.formatVersion, d["summary"]?["fetched"] != nil, d["resources"]?.arrayValue != nil else {
                problems.append("'\(input.name)' is not a result of 'jobrun apply --json' (format_version \(ApplyReports.formatVersion))")
                continue
            }
            guard let shard = d["shard"], let index = shard["index"]?.intValue, let count = shard["count"]?.intValue, let plan = shard["plan"]?.stringValue
            else {
                problems.append("'\(input.name)' is not a shard's result: it was not run with --shard")
                continue
            }
            guard (1...Int64(ShardSpec.maxCount)).contains(count), (0..<count).contains(index) else {
                problems.append("'\(input.name)' says it is shard \(index) of \(count), which no run can be")
                continue
            }
            counts.insert(count)
            plans.insert(plan)
            shards.append((Int(index), input))
        }
        if counts.count > 1 {
            problems.append(
                "the shards do not agree on their count: "
                    + shards.map { "'\($0.input.name)' says \($0.input.document["shard"]?["count"]?.intValue ?? 0)" }.joined(separator: ", "))
        }
        if plans.count > 1 {
            problems.append("the shards were not made from the same manifests (plan fingerprints \(plans.sorted().joined(separator: ", ")))")
        }
        shards.sort { ($0.index, $0.input.name) < ($1.index, $1.input.name) }
        var byIndex: [Int: [String]] = [:]
        for shard in shards { byIndex[shard.index, default: []].append("'\(shard.input.name)'") }
        if let count = counts.max() {
            for k in 0..<Int(count) {
                let named = byIndex[k] ?? []
                if named.isEmpty { problems.append("shard \(k) of \(count) is missing") }
                if named.count > 1 {
                    problems.append("shard \(k) of \(count) is there \(named.count) times: \(named.joined(separator: ", ")); the first is merged")
                }
            }
        }
        // A shard given twice counts once: the first file of each index.
        var seenIndex = Set<Int>()
        shards = shards.filter { seenIndex.insert($0.index).inserted }

        // Resources by id; a split resource's slices come from several shards.
        var resources: [String: MergedResource] = [:]
        var sliceShard: [String: Int] = [:]
        for (index, input) in shards {
            for r in input.document["resources"]?.arrayValue ?? [] {
                guard case .object(let members) = r, let id = r["id"]?.stringValue else { continue }
                var entry = resources[id] ?? MergedResource(members: members)
                entry.isComplete = entry.isComplete && (r["complete"]?.boolValue ?? false)
                if let hooks = r["hooks"]?.arrayValue { entry.hooks = (entry.hooks ?? []) + hooks }
                for s in r["slices"]?.arrayValue ?? [] {
                    guard let path = s["path"]?.stringValue else { continue }
                    let key = id + "\u{0}" + path
                    if let other = sliceShard[key] {
                        problems.append("slice '\(path)' of '\(id)' is in shard \(other) and shard \(index)")
                        continue
                    }
                    sliceShard[key] = index
                    entry.slices[path] = s
                }
                resources[id] = entry
            }
        }
        let merged: [JSONValue] = resources.keys.sorted().compactMap { id in
            guard let entry = resources[id] else { return nil }
            var members: [(String, JSONValue)] = []
            for (key, value) in entry.members where key != "hooks" {
                switch key {
                case "complete": members.append((key, .bool(entry.isComplete)))
                case "slices": members.append((key, .array(entry.slices.keys.sorted().compactMap { entry.slices[$0] })))
                default: members.append((key, value))
                }
            }
            if let hooks = entry.hooks { members.append(("hooks", .array(hooks))) }
            return .object(members)
        }

        let summaries = shards.compactMap { $0.input.document["summary"] }
        func sum(_ key: String, in objects: [JSONValue]) -> Int64 { objects.reduce(0) { $0.saturatingAdding($1[key]?.intValue ?? 0) } }
        var summary: [(String, JSONValue)] = summedCounts.map { ($0, .int(sum($0, in: summaries))) }
        let stopReason = summaries.lazy.compactMap { $0["stop_reason"]?.stringValue }.first
        let failed = sum("failed", in: summaries) + sum("hooks_failed", in: summaries)
        let isSuccess = problems.isEmpty && !summaries.isEmpty && summaries.allSatisfy { $0["success"]?.boolValue == true }
        summary.append(("success", .bool(isSuccess)))
        summary.append(("interrupted_by_signal", summaries.lazy.compactMap { $0["interrupted_by_signal"]?.intValue }.first.map { .int($0) } ?? .null))
        summary.append(("stop_reason", stopReason.map { .string($0) } ?? .null))
        let remaining = summaries.compactMap { $0["remaining"] }
        if !remaining.isEmpty { summary.append(("remaining", .object(remainingCounts.map { ($0, .int(sum($0, in: remaining))) }))) }
        // The shards ran side by side: the longest is the run's.
        summary.append(("elapsed_seconds", .double(summaries.compactMap { $0["elapsed_seconds"]?.doubleValue }.max() ?? 0)))
        summary.append(("offline_seconds", .double(summaries.compactMap { $0["offline_seconds"]?.doubleValue }.max() ?? 0)))
        if summaries.contains(where: { $0["hooks_failed"] != nil }) { summary.append(("hooks_failed", .int(sum("hooks_failed", in: summaries)))) }

        // Every slice of the plan in some shard's result: the shards' layouts agreed.
        let planned = shards.compactMap { $0.input.document["shard"]?["total_slices"]?.intValue }
        if problems.isEmpty, let total = planned.first, planned.allSatisfy({ $0 == total }), Int64(sliceShard.count) != total {
            problems.append(
                "the shards' results hold \(sliceShard.count) slices of the plan's \(total): \(total - Int64(sliceShard.count)) are in no shard's result")
        }

        let document = JSONValue.object([
            ("format_version", .int(ApplyReports.formatVersion)),
            ("jobrun_version", .string(JobrunVersion.current)),
            (
                "shards",
                .array(
                    shards.map { shard in
                        let d = shard.input.document
                        return .object([
                            ("file", .string(shard.input.name)), ("index", .int(Int64(shard.index))), ("run_id", d["run_id"] ?? .null),
                            ("success", d["summary"]?["success"] ?? .null), ("stop_reason", d["summary"]?["stop_reason"] ?? .null),
                        ])
                    })
            ),
            (
                "shard",
                .object([
                    ("count", counts.count == 1 ? .int(counts.first ?? 0) : .null),
                    ("plan", plans.count == 1 ? .string(plans.first ?? "") : .null),
                ])
            ),
            ("problems", .array(problems.map { .string($0) })),
            ("summary", .object(summary)),
            ("resources", .array(merged)),
            ("catalogs", .array(Self.perShard("catalogs", of: shards.map { ($0.index, $0.input.document) }))),
            ("publications", .array(Self.perShard("publications", of: shards.map { ($0.index, $0.input.document) }))),
            ("origins", .array(Self.origins(of: shards.map { ($0.index, $0.input.document) }))),
        ])
        let skipped = sum("skipped", in: summaries)
        let status: ExitStatus = !problems.isEmpty || failed > 0 ? .failure : stopReason != nil ? .locked : skipped > 0 || !isSuccess ? .failure : .ok
        return Output(document: document, problems: problems, exitStatus: status)
    }
}

extension ShardMerge {
    /// Each shard's `catalogs` or `publications`, with its `shard` index, in shard order: a
    /// resource is on one shard, and so are its catalog and its publication.
    static func perShard(_ key: String, of shards: [(index: Int, document: JSONValue)]) -> [JSONValue] {
        shards.sorted { $0.index < $1.index }.flatMap { index, document in
            (document[key]?.arrayValue ?? []).compactMap { p -> JSONValue? in
                guard case .object(let members) = p else { return nil }
                return .object(members + [("shard", .int(Int64(index)))])
            }
        }
    }

    /// Each shard's `origins`, with its `shard` index, by origin and then shard: the shards ran
    /// on their own connections, so what each carried stays its own.
    static func origins(of shards: [(index: Int, document: JSONValue)]) -> [JSONValue] {
        var rows: [(origin: String, shard: Int, value: JSONValue)] = []
        for (index, document) in shards {
            for o in document["origins"]?.arrayValue ?? [] {
                guard case .object(let members) = o, let origin = o["origin"]?.stringValue else { continue }
                rows.append((origin, index, .object(members + [("shard", .int(Int64(index)))])))
            }
        }
        return rows.sorted { ($0.origin, $0.shard) < ($1.origin, $1.shard) }.map(\.value)
    }
}
