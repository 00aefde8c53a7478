import ArgumentParser
import JobrunCore
import JobrunManifest
import JobrunOutcome
import JobrunPlan
import JobrunReport
import JobrunRun
import JobrunState

struct PlanCommand: DocumentedCommand {
    static let configuration = CommandConfiguration(
        commandName: "plan",
        abstract: "Show what applying the manifests would change in the mirror, without the network.",
        discussion: """
            A line per resource, then the stable summary line: 'Plan: 4 to fetch,
            0 to resume, 2 to refetch (26.3 MiB), 188 up to date, 0 deferred.'
            --out FILE saves the plan for 'jobrun apply FILE'. The whole
            reference: man jobrun.
            """)

    static let reference = """
        Every slice is classified against the files on disk:
          fetch       the file is missing
          resume      a partial download exists
          refetch     the size or a digest differs
          up to date  the size and every digest were verified, now or (with
                      the mirror state) when the file, unchanged since,
                      was last proven
          deferred    held back by the network policy
        Before it, a line per file system the output roots are on gives the
        bytes to fetch there and its free space, and says when they do not
        fit (apply would refuse to start). The last line is a stable summary
        (one line), for example:
          Plan: 4 to fetch, 0 to resume, 2 to refetch (26.3 MiB),
          188 up to date, 0 deferred.
        Slices that declare no digest are 'size only' (a size is declared)
        or 'unverified' (nothing is): -v marks them, and the summary adds
        a clause before its period:
          ...; 6 without digests (2 size only, 4 unverified).
        With --resource ID (repeatable), only those resources and the ones
        they depend on, directly or not, are planned; stderr says which:
          Selected 2 of 7 resources (--resource b): a, b.
        A plan saved with --out records the selection and --concurrency
        and --per-host, and 'apply FILE' uses them.
        An output root's mirror state (ROOT/.jobrun, docs/state.md) lets a
        file whose device, inode, size and times are what they were when
        its bytes were last proven pass without being read; --rehash reads
        every file. plan records what it hashes into a state that exists,
        and never creates one.
        A resource's catalog ('slices_from' with 'url:' or 'format: debian')
        is fetched (never kept: apply keeps it) and verified; a line under
        the resource says what changed since the copy the last apply kept:
          catalog https://example.org/SHA256SUMS: fetched, 3 new,
          1 removed, 2 changed (412 slices)
        A catalog that cannot be trusted refuses its resource ('!' line) and
        the exit status is 1.
        """

    @OptionGroup(title: "Manifests") var manifestOptions: ManifestOptions
    @OptionGroup(title: "Manifests") var digestOption: DigestRequirementOption

    @OptionGroup(title: "Selection and shards") var resourceOptions: ResourceOptions
    @OptionGroup(title: "Selection and shards") var shardOptions: ShardOptions

    @OptionGroup(title: "Reports and output") var outputOptions: PlanOutputOptions
    @OptionGroup(title: "Reports and output") var quietOption: QuietOption
    @OptionGroup(title: "Reports and output") var eventOptions: EventOptions

    @OptionGroup(title: "Transfers") var concurrencyOptions: ConcurrencyOptions

    @OptionGroup(title: "Mirror state") var stateOptions: MirrorStateOptions
    @OptionGroup(title: "Mirror state") var jobsOption: JobsOption

    @OptionGroup(title: "Network policy") var conditionsOptions: ConditionsOptions
    @OptionGroup(title: "Pruning") var pruneOptions: PruneOptions

    func validate() throws {
        if quietOption.quiet && outputOptions.verbose { throw ValidationError("--quiet and --verbose cannot be used together") }
        try eventOptions.refuseSharingStdout(withJSON: outputOptions.json)
    }

    func run() throws {
        // terraform's contract: with --detailed-exitcode, any error is 1.
        if outputOptions.detailedExitcode { Reports.failWith(.failure) }
        try CommandRun.run("plan", events: shardOptions.expanding(eventOptions)) { run in try plan(run) }
    }

    func plan(_ run: CommandRun) throws {
        var manifest: Manifest
        do {
            manifest = try shardOptions.narrow(
                resourceOptions.select(
                    from: manifestOptions.load(
                        fingerprinting: true, requiringDigests: digestOption.requireDigests, concurrency: concurrencyOptions.override,
                        digest: run.manifestsDigest)))
        } catch let exit as ExitCode {
            // terraform's contract: with --detailed-exitcode, any error is 1.
            throw outputOptions.detailedExitcode ? ExitCode(ExitStatus.failure.rawValue) : exit
        }
        // Fetched, never kept: the next apply compares against the same copy.
        let catalogs = Catalogs.read(
            manifest, mode: .fetch, allowingFileURLs: manifestOptions.allowFileURLs, requiringDigests: digestOption.requireDigests)
        manifest = catalogs.manifest
        run.start(manifest)
        Catalogs.emit(catalogs, on: run.events)
        let states = MirrorStateOptions.open(for: manifest, access: .existing)
        // A stage an earlier apply left is what the next apply continues.
        let (staged, stages) = Publisher.view(manifest, states: states)
        var plan = Planner.plan(
            for: staged, parallelism: jobsOption.jobs, memory: MirrorStateOptions.memory(of: states, recognizing: !stateOptions.rehash),
            policy: conditionsOptions.context(for: manifest, states: states))
        states.learn(plan.proofs)
        plan.catalogs = catalogs.reports
        plan.prune = pruneOptions.plan(for: manifest, states: states, stages: stages)
        run.events.emit(.planned(plan.counts))
        ProcessLifetime.keepUntilExit(plan)
        var stderr = StandardError()
        for warning in plan.warnings {
            print("jobrun: warning: \(warning)", to: &stderr)
        }
        for shortage in plan.space.compactMap(\.shortage) {
            print("jobrun: warning: \(shortage); apply will refuse to start (unless --no-space-check)", to: &stderr)
        }
        let out = shardOptions.expand(outputOptions.out)
        var isSaved = false
        if let out {
            let saved = PlanJSON.SavedPlanOptions(
                outputOverride: manifestOptions.output, allowFileURLs: manifestOptions.allowFileURLs, concurrency: concurrencyOptions.override)
            OutputFiles.prepareParent(of: out)
            isSaved = Reports.attempt("the saved plan '\(out)'") {
                // Written as it is made: a plan of a million slices is never held as one document.
                try AtomicFile.write(to: out) { (append: ([UInt8]) throws(FileWriteError) -> Void) throws(FileWriteError) in
                    try PlanJSON.write(plan, pretty: true, savedPlan: saved, to: append)
                }
            }
        }
        if outputOptions.json {
            PlanJSON.write(plan, pretty: true, runID: run.runID) { StandardOutput.write(bytes: $0, what: "the JSON plan to stdout") }
        } else {
            // With `--events -`, stdout carries the events.
            let text = plan.renderText(verbose: outputOptions.verbose, problemsOnly: quietOption.quiet)
            if eventOptions.isOnStdout { StandardError.write(text) } else { StandardOutput.write(text) }
            if let out, isSaved {
                print("Saved the plan to \(out).", to: &stderr)
            }
        }
        run.summarize(counts: plan.counts.named(resources: plan.entries.count), summaryLine: plan.summaryLine)
        if catalogs.refusedCount > 0 { throw ExitCode(ExitStatus.failure.rawValue) }
        if outputOptions.detailedExitcode && (plan.counts.hasChanges || plan.prune?.files.isEmpty == false) {
            throw ExitCode(ExitStatus.changesPresent.rawValue)
        }
    }
}
