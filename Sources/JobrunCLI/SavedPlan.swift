import ArgumentParser
import JobrunCore
import JobrunManifest
import JobrunPlan
import JobrunReport
import JobrunSystem

/// A plan saved by `jobrun plan --out FILE`, as `apply` reads it back.
struct SavedPlan {
    var jobrunVersion: String
    var manifestPaths: [String]
    /// `path` → SHA-256 of every input the plan was made from: the manifests and their
    /// `slices_from` lists.
    var fingerprints: [String: String]
    var outputOverride: String?
    var allowFileURLs: Bool
    /// `--concurrency` and `--per-host` the plan was made with.
    var concurrency: ConcurrencyOverride
    /// The ids `plan --resource` was given, `nil` when the plan covers every resource.
    var selection: [String]?
    /// The shard `plan --shard` was given, `nil` when the plan is not a shard's.
    var shard: ShardSpec?
    /// `resource id` → `slice path` → action.
    var actions: [String: [String: String]]

    /// The parts of a plan document (`PlanJSON`) that `apply` reads back; everything optional,
    /// so that what is missing is judged below rather than by the decoder.
    private struct Document: Decodable {
        struct ManifestFile: Decodable {
            var path: String?
            var sha256: String?
        }
        struct Options: Decodable {
            var output: String?
            var allowFileURLs: Bool?
            var concurrency: Int?
            var perHost: Int?
            enum CodingKeys: String, CodingKey {
                case output, allowFileURLs = "allow_file_urls", concurrency, perHost = "per_host"
            }
        }
        struct Selection: Decodable {
            var requested: [String]?
        }
        struct Shard: Decodable {
            var index: Int?
            var count: Int?
        }
        struct Entry: Decodable {
            struct SliceAction: Decodable {
                var path: String?
                var action: String?
            }
            var id: String?
            var slices: [SliceAction]?
        }
        var kind: String?
        var formatVersion: Int64?
        var jobrunVersion: String?
        var manifests: [ManifestFile]?
        var sliceLists: [ManifestFile]?
        var options: Options?
        var selection: Selection?
        var shard: Shard?
        var resources: [Entry]?
        enum CodingKeys: String, CodingKey {
            case kind, formatVersion = "format_version", jobrunVersion = "jobrun_version", manifests
            case sliceLists = "slice_lists", options, selection, shard, resources
        }
    }

    /// Why a plan file cannot be applied: what `jobrun: error:` says of it (exit 65).
    struct Problem: Error {
        var message: String
    }

    /// The saved plan when `arguments` is a single plan file, read once and reported (said on
    /// stderr and thrown, exit 65) when asked (``loaded(_:)``): the run reads it before its event
    /// stream opens, for `{shard}` in file names, and reports it inside the stream.
    static func read(_ arguments: [String]) -> Result<SavedPlan, Problem>? {
        guard arguments.count == 1, let path = arguments.first else { return nil }
        // Anything but a readable regular file (a folder, a missing path) is left to the manifest
        // loader, which reports it.
        guard !path.hasSuffix(".yaml"), !path.hasSuffix(".yml"),
            case .success(let bytes) = FileReader.read(path, limit: .max), bytes.first == UInt8(ascii: "{")
        else { return nil }
        guard let document = try? JSONDecoder().decode(Document.self, from: Data(bytes)), document.kind == PlanJSON.kind else {
            return .failure(Problem(message: "'\(path)' is neither a manifest nor a plan saved by 'jobrun plan --out'"))
        }
        guard document.formatVersion == PlanJSON.formatVersion else {
            return .failure(Problem(message: "'\(path)' was saved in an unknown plan format"))
        }
        // An edited limit of 0 would start nothing and never end.
        let concurrency = ConcurrencyOverride(total: document.options?.concurrency, perHost: document.options?.perHost)
        if let total = concurrency.total, !ConcurrencyLimits.totalRange.contains(total) {
            return .failure(Problem(message: "'\(path)' records a concurrency of \(total), outside 1 to 1024; run 'jobrun plan' again"))
        }
        if let perHost = concurrency.perHost, !ConcurrencyLimits.perHostRange.contains(perHost) {
            return .failure(Problem(message: "'\(path)' records a per_host of \(perHost), outside 1 to 256; run 'jobrun plan' again"))
        }
        var shard: ShardSpec?
        if let saved = document.shard {
            guard let index = saved.index, let count = saved.count,
                case .success(let spec) = ShardSpec.resolve("\(index)/\(count)", count: nil, environment: [:])
            else {
                return .failure(Problem(message: "'\(path)' records a shard that is not one of its count; run 'jobrun plan' again"))
            }
            shard = spec
        }
        let manifests = document.manifests ?? []
        // Without one, apply would read whatever manifests it finds here instead of the plan's.
        guard !manifests.compactMap(\.path).isEmpty else {
            return .failure(Problem(message: "'\(path)' names no manifest; run 'jobrun plan --out' again"))
        }
        var fingerprints: [String: String] = [:]
        for m in manifests + (document.sliceLists ?? []) {
            if let p = m.path { fingerprints[p] = m.sha256 ?? "" }
        }
        var actions: [String: [String: String]] = [:]
        for r in document.resources ?? [] {
            guard let id = r.id else { continue }
            var byPath: [String: String] = [:]
            for s in r.slices ?? [] {
                if let p = s.path, let a = s.action { byPath[p] = Self.compared(a) }
            }
            actions[id] = byPath
        }
        return .success(
            SavedPlan(
                jobrunVersion: document.jobrunVersion ?? "", manifestPaths: manifests.compactMap(\.path),
                fingerprints: fingerprints, outputOverride: document.options?.output,
                allowFileURLs: document.options?.allowFileURLs ?? false,
                concurrency: concurrency, selection: document.selection.map { $0.requested ?? [] }, shard: shard, actions: actions))
    }

    /// The plan `read` found, or nothing for manifests.
    /// - Throws: `ExitCode` 65 after saying what is wrong with the plan file.
    static func loaded(_ read: Result<SavedPlan, Problem>?) throws -> SavedPlan? {
        switch read {
        case nil: return nil
        case .success(let plan)?: return plan
        case .failure(let problem)?:
            StandardError.write("jobrun: error: \(problem.message)\n")
            throw ExitCode(ExitStatus.manifestInvalid.rawValue)
        }
    }

    /// Why the plan no longer describes what applying would do, or `nil` when it still does.
    func staleness(against manifest: Manifest, plan: Plan) -> String? {
        if jobrunVersion != JobrunVersion.current {
            return "it was made by jobrun \(jobrunVersion), this is \(JobrunVersion.current)"
        }
        // Every input read now must be one the plan recorded, with the same content; a recorded
        // input no longer read means a manifest changed, which the loop has already said.
        for file in manifest.files + manifest.sliceLists where fingerprints[file.path] != file.fingerprint {
            return "'\(file.path)' changed since the plan was made"
        }
        var current: [String: [String: String]] = [:]
        for entry in plan.entries {
            var byPath: [String: String] = [:]
            for (s, d) in zip(entry.resource.slices, entry.decisions) { byPath[s.path] = Self.compared(d.action.rawValue) }
            current[entry.resource.id] = byPath
        }
        if current != actions { return "the mirror changed since the plan was made" }
        return nil
    }

    /// An action as staleness compares it: a file in place whose `refresh:` fell due since the
    /// plan was made is no change of the mirror (time passed; the file is as it was).
    static func compared(_ action: String) -> String {
        action == SliceAction.revalidate.rawValue ? SliceAction.upToDate.rawValue : action
    }

    /// `manifest` narrowed to the resources the plan was made for (`plan --resource`), said on
    /// stderr as ``ResourceOptions`` says it.
    /// - Throws: `ExitCode` 1 when an id it selected names no resource now: the manifests
    ///   changed since, and the plan is stale whatever `--refresh` says.
    func select(from manifest: Manifest) throws -> Manifest {
        guard let selection else { return shard.map { ShardOptions.narrowed(manifest, to: $0) } ?? manifest }
        switch manifest.selecting(ids: selection) {
        case .success(let narrowed):
            ResourceOptions.announce(narrowed)
            return shard.map { ShardOptions.narrowed(narrowed, to: $0) } ?? narrowed
        case .failure(let unknown):
            for entry in unknown.ids {
                StandardError.write(
                    "jobrun: error: the saved plan is stale: it was made for resource '\(entry.id)', which the manifests no longer declare; run 'jobrun plan' again\n"
                )
            }
            throw ExitCode(ExitStatus.failure.rawValue)
        }
    }
}
