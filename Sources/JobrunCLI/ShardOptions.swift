import ArgumentParser
import JobrunCore
import JobrunManifest

/// `--shard K/N|auto` and `--shard-count N` of `plan`, `apply`, `verify` and `status`: this run
/// is shard K (0-based) of N, and works on that shard's resources and slices only
/// (``ShardLayout``, docs/sharding.md). `{shard}` in a report or events file name becomes K.
struct ShardOptions: ParsableArguments {
    @Option(
        name: .customLong("shard"),
        help: ArgumentHelp(
            "Work on shard K (0-based) of N only: K/N, or auto (Kubernetes JOB_COMPLETION_INDEX with --shard-count, GitLab CI_NODE_INDEX/CI_NODE_TOTAL); {shard} in a report or events file name becomes K.",
            valueName: "K/N|auto"), completion: .list(["auto"]))
    var shard: String?

    @Option(
        name: .customLong("shard-count"),
        help: ArgumentHelp(
            "How many shards there are, for --shard auto under Kubernetes (the Job's completions).", valueName: "n"))
    var shardCount: Int?

    /// The shard, as resolved from the arguments and the environment (`validate()` refused what
    /// does not resolve).
    var spec: ShardSpec? {
        shard.flatMap { try? ShardSpec.resolve($0, count: shardCount, environment: ProcessInfo.processInfo.environment).get() }
    }

    func validate() throws {
        if shardCount != nil, shard == nil { throw ValidationError("--shard-count goes with --shard auto") }
        if let shard, case .failure(let problem) = ShardSpec.resolve(shard, count: shardCount, environment: ProcessInfo.processInfo.environment) {
            throw ValidationError(problem.description)
        }
    }

    /// `manifest` narrowed to the shard (said on stderr); unchanged without `--shard`.
    func narrow(_ manifest: Manifest) -> Manifest {
        guard let spec else { return manifest }
        return Self.narrowed(manifest, to: spec)
    }

    /// `manifest` narrowed to shard `spec`, said on stderr.
    static func narrowed(_ manifest: Manifest, to spec: ShardSpec) -> Manifest {
        let narrowed = manifest.sharding(spec)
        announce(narrowed)
        return narrowed
    }

    /// `path` with `{shard}` replaced by the shard's index: `--shard`'s, else `saved`'s (the
    /// shard of a saved plan being applied). Without a shard it stays, with a warning.
    func expand(_ path: String?, saved: ShardSpec? = nil) -> String? {
        guard let path, path.contains(Self.placeholder) else { return path }
        guard let shard = spec ?? saved else {
            StandardError.write("jobrun: warning: '\(Self.placeholder)' in '\(path)' stays as it is: this run is no shard (--shard K/N)\n")
            return path
        }
        return path.replacing(Self.placeholder, with: String(shard.index))
    }

    static let placeholder = "{shard}"

    /// `options` with `{shard}` in the events file's name replaced.
    func expanding(_ options: EventOptions, saved: ShardSpec? = nil) -> EventOptions {
        var options = options
        options.events = expand(options.events, saved: saved)
        return options
    }

    /// A saved plan applies the shard it was made for; `--shard` beside it is refused.
    /// - Throws: `ExitCode` 64 when `--shard` is given.
    func refuse(beside saved: SavedPlan) throws {
        guard shard != nil else { return }
        let madeFor = saved.shard.map { "--shard \($0)" } ?? "no shard"
        StandardError.write(
            "jobrun: error: --shard cannot be given with a saved plan, which applies the shard it was made for (\(madeFor)); nothing was done\n")
        throw ExitCode(ExitStatus.usage.rawValue)
    }

    /// `Shard 1/4: 3 resources, 1 of them split; 2,512 of 10,000 slices, 24.6 MiB of 97.7 MiB.`
    static func announce(_ manifest: Manifest) {
        guard let line = shardLine(manifest) else { return }
        StandardError.write(line + "\n")
    }

    static func shardLine(_ manifest: Manifest) -> String? {
        guard let s = manifest.shard else { return nil }
        let resources = manifest.resources.count
        let weight = s.isByBytes ? ", \(ByteCount(s.load)) of \(ByteCount(s.totalLoad))" : ""
        return
            "Shard \(s.spec): \(resources) resource\(resources == 1 ? "" : "s")\(s.splitCount > 0 ? ", \(s.splitCount) of them split" : ""); \(s.sliceCount) of \(s.totalSliceCount) slices\(weight)."
    }
}
