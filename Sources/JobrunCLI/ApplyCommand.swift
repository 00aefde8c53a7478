import ArgumentParser
import Dispatch
import Synchronization
import JobrunCore
import JobrunManifest
import JobrunPlan
import JobrunReport
import JobrunOutcome
import JobrunRun
import JobrunState
import JobrunFiles
import JobrunCatalog

struct ApplyCommand: DocumentedCommand {
    static let configuration = CommandConfiguration(
        commandName: "apply",
        abstract: "Fetch every slice the plan says is missing or wrong, verify it, and commit it atomically.",
        discussion: """
            Takes manifests, or a plan saved with 'jobrun plan --out FILE'. Exit 0
            when every slice is verified (or deferred), 1 when any failed, 75 when
            the run stopped early (deadline, offline) or another holds the output
            root. The whole reference: man jobrun.
            """)

    static let reference = """
        Takes manifests, or a plan saved with 'jobrun plan --out FILE' (refused
        when stale unless --refresh). Slices stream into a partial file beside
        their destination, are checked against their size and digests, and
        are renamed into place; a final path holds a verified file or nothing.
        The last line is stable: 'Apply complete!' (every slice verified),
        'Apply failed!' (some failed) or 'Apply interrupted!' (a signal), then
        the same counts, for example:
          Apply complete! Slices: 412 fetched (26.3 MiB), 3 resumed,
          188 up to date, 0 failed, 0 deferred.
        When slices that passed declare no digest ('size only' or
        'unverified'), a clause goes before the period:
          ...; 6 without digests (2 size only, 4 unverified).
        What was fetched for them is hashed anyway: --json reports its
        SHA-256 ('computed_digests'), and --record-sums FILE pins every
        file in place for later runs (use the list as 'slices_from').

        --events FILE (or - for stdout) writes every event of the run as
        it happens, one JSON object a line, from run_start to run_end
        (docs/events.md); the run id (JOBRUN_RUN_ID, or a new ULID) is in
        every event, the JSON, the JUnit properties and progress lines.
        --progress plain writes a line with the time and the run id when
        the run starts and ends, and one every --progress-interval between.
        --metrics-file FILE writes the run in the Prometheus text format for
        node_exporter's textfile collector (docs/monitoring.md), whichever
        way it ends; verify and status take it too.

        One apply at a time per output root: while another holds it, apply
        exits 75 before planning or fetching anything (--lock-timeout waits).
        Before any request, the known sizes to fetch are checked against the
        free space of each output root's file system, less a margin (1%, at
        least 64 MiB, at most a tenth of it): exit 74 when they do not fit.

        With --deadline, the run stops by that time: no slice starts that
        cannot finish before it, transfers still running at the deadline
        (less --deadline-margin) are cut in flight, the partial files that can
        be resumed kept, and the last line is 'Apply stopped at deadline: ...' with
        what was fetched, cut in flight and not started (exit 75); ready resources
        take turns, a higher 'priority' first.
        When connections fail at every origin with work to do (a name that
        does not resolve, refused, unreachable), the network is taken to be
        gone: the run pauses, gives those attempts back and probes the
        origins from 1 s to 30 s apart, and resumes on the first answer; after
        --offline-wait it stops with 'Apply stopped offline: ...' (exit 75).

        With --resource, only those resources and the ones they depend on;
        a saved plan applies the resources it was made for.
        Each output root keeps a mirror state (ROOT/.jobrun/state.sqlite,
        docs/state.md): what was proven of every file (fetched and verified,
        or hashed while planning) and every run. A file unchanged since its
        last proof passes without being read; --rehash reads every file. A
        damaged state is set aside and started anew, with a warning.

        A resource whose network policy holds it back (a metered network,
        battery, a busy machine, outside its window: docs/policy.md) is
        deferred: nothing of it is fetched, and the log, JSON, JUnit and
        events say why. Conditions are read again every
        --conditions-interval; --wait-for-conditions waits for them instead
        of deferring.
        Hooks ('hooks:' in a manifest, --on-run-end) run programs when a
        resource or the run ends, beside the transfers, the output roots
        still locked (docs/policy.md, Hooks).

        A slice without a digest whose 'refresh:' is due (docs/manifest.md,
        Refresh) is asked of its origin again: conditionally with the ETag
        and Last-Modified recorded at its fetch (a 304 keeps the file), or
        whole; a body replaces the file only when its bytes differ.
        With --prune (or a resource's 'prune: true'), after a run that
        completed every selected resource, the files in their folders that no
        slice names and that jobrun fetched are moved to ROOT/.jobrun/trash
        (kept for --keep-trash); more than --max-delete of them (50% of the
        pruned resources' files by default), and none is moved; another
        program's files only with --prune-foreign (docs/apply.md, Pruning).
        A resource with 'publish: atomic' is built in a stage beside its
        folder (ROOT/.jobrun/publish/ID/next, unchanged files hard-linked)
        and switched in whole, in one step, once the run completed it;
        readers see the old version or the new one. A failed or stopped run
        leaves the published folder as it was, and the next run continues
        the stage (docs/apply.md, Atomic publication).

        A resource whose slices come from a catalog ('slices_from' with
        'url:' or 'format: debian') has it fetched once the output roots are
        locked, conditionally, its signature verified before any of its
        payload is requested; one that cannot be trusted or read refuses
        that resource (and those depending on it), the others go on
        (docs/manifest.md, Catalogs fetched at each run).

        Exit status 0 when every slice is verified (or deferred), 1 when any
        failed (or a hook with 'on_hook_failure: fail' did, a prune was
        refused or could not move a file, a stage could not be switched
        in, or a resource's catalog was refused); 74 when a stage cannot be made or an earlier one settled
        (nothing is fetched then); 75
        with --require-complete when work was deferred.
        """

    @OptionGroup(title: "Manifests") var manifestOptions: ManifestOptions
    @OptionGroup(title: "Manifests") var digestOption: DigestRequirementOption
    @OptionGroup(title: "Manifests") var refreshOption: RefreshOption

    @OptionGroup(title: "Selection and shards") var resourceOptions: ResourceOptions
    @OptionGroup(title: "Selection and shards") var shardOptions: ShardOptions

    @OptionGroup(title: "Transfers") var concurrencyOptions: ConcurrencyOptions
    @OptionGroup(title: "Transfers") var transferOptions: TransferOptions

    @OptionGroup(title: "Reports") var reportOptions: ReportOptions
    @OptionGroup(title: "Reports") var eventOptions: EventOptions
    @OptionGroup(title: "Reports") var metricsOption: MetricsOption

    @OptionGroup(title: "Progress and output") var progressOptions: ProgressOptions

    @OptionGroup(title: "Mirror state") var stateOptions: MirrorStateOptions
    @OptionGroup(title: "Pruning") var pruneOptions: PruneOptions
    @OptionGroup(title: "Pruning") var keepTrashOption: KeepTrashOption

    @OptionGroup(title: "Network policy") var conditionsOptions: ConditionsOptions
    @OptionGroup(title: "Network policy") var deferralOptions: DeferralOptions

    @OptionGroup(title: "Deadline and offline") var deadlineOptions: DeadlineOptions
    @OptionGroup(title: "Deadline and offline") var offlineOptions: OfflineOptions

    @OptionGroup(title: "Hooks") var hookOptions: HookOptions

    func validate() throws {
        try eventOptions.refuseSharingStdout(withJSON: reportOptions.json)
    }

    func run() throws {
        let plan = SavedPlan.read(manifestOptions.manifests)
        let savedShard = try? plan?.get().shard
        try CommandRun.run("apply", events: shardOptions.expanding(eventOptions, saved: savedShard), progressInterval: progressOptions.interval) { run in
            try apply(run, plan: plan)
        }
    }

    /// - Parameter plan: the saved plan the arguments name, as read before the run started.
    func apply(_ run: CommandRun, plan savedPlan: Result<SavedPlan, SavedPlan.Problem>?) throws {
        let preparation = ApplyRun.startPreparingLibraries()
        // Before any exit, error or not (see `startPreparingLibraries`).
        defer { preparation.wait() }
        var stderr = StandardError()
        let metrics = metricsOption.collect(for: run)
        // The deadline counts from here: the lock wait and the planning are part of the run.
        let cutoff = deadlineOptions.cutoff()
        let runID = run.runID
        let events = run.events
        // stdout carries the JSON or the events then.
        let display = try progressOptions.install(on: events, runID: runID, resultsToStderr: reportOptions.json || eventOptions.isOnStdout)
        var manifest: Manifest
        let saved = try SavedPlan.loaded(savedPlan)
        let savedShard = saved?.shard
        if let saved {
            try resourceOptions.refuse(beside: saved)
            try shardOptions.refuse(beside: saved)
            var options = manifestOptions
            options.manifests = saved.manifestPaths
            options.output = saved.outputOverride
            options.allowFileURLs = saved.allowFileURLs
            manifest = try saved.select(
                from: options.load(
                    fingerprinting: true, requiringDigests: digestOption.requireDigests, concurrency: concurrencyOptions.override.over(saved.concurrency),
                    digest: run.manifestsDigest))
        } else {
            manifest = try shardOptions.narrow(
                resourceOptions.select(
                    from: manifestOptions.load(
                        requiringDigests: digestOption.requireDigests, concurrency: concurrencyOptions.override, digest: run.manifestsDigest)))
        }
        run.start(manifest)
        let sums = shardOptions.expand(reportOptions.recordSums, saved: savedShard).map(RecordSums.init(template:))
        try sums?.check(manifest)
        // Before planning: what another run is writing would be planned against otherwise.
        let lock = try lockOutputRoots(of: manifest, events: events, runID: runID, cutoff: cutoff)
        // Held until the hooks have run and the run's end is recorded, whichever way the run ends:
        // the hooks write to the outboxes, and the next run reads the mirror state.
        run.afterEnd { lock.release() }
        // Once the roots are this run's: a run that cannot have them asks nothing of any origin.
        let catalogs = Catalogs.read(
            manifest, mode: .fetch, allowingFileURLs: saved?.allowFileURLs ?? manifestOptions.allowFileURLs, caFile: transferOptions.cacert,
            requiringDigests: digestOption.requireDigests, deadline: cutoff)
        manifest = catalogs.manifest
        Catalogs.emit(catalogs, on: events)
        metrics?.refused(catalogs.refusedResources)
        for warning in catalogs.keep() { print("jobrun: warning: \(warning)", to: &stderr) }
        let states = MirrorStateOptions.open(for: manifest, access: .create)
        let hooks = hookOptions.start(for: manifest, runID: runID, states: states, events: events)
        run.atEnd { end in hooks.finish(end, events: events) }
        let policy = conditionsOptions.context(for: manifest, states: states)
        let published = manifest
        // What a killed run left is settled before planning: the plan depends on it.
        var publisher = try Publication.prepare(published, states: states, runID: runID)
        // Waiting for conditions, the plan defers nothing: the run's gate holds the work back.
        func makePlan(_ manifest: Manifest) -> Plan {
            Planner.plan(
                for: manifest, memory: MirrorStateOptions.memory(of: states, recognizing: !stateOptions.rehash),
                policy: deferralOptions.wait == nil ? policy : nil)
        }
        manifest = publisher.staging(published)
        var plan = makePlan(manifest)
        events.emit(.planned(plan.counts))
        if let saved, let staleness = saved.staleness(against: manifest, plan: plan), !refreshOption.refresh {
            print("jobrun: error: the saved plan is stale: \(staleness); run 'jobrun plan' again, or apply with --refresh", to: &stderr)
            throw ExitCode(ExitStatus.failure.rawValue)
        }
        for warning in plan.warnings { print("jobrun: warning: \(warning)", to: &stderr) }
        if !transferOptions.noSpaceCheck { try refuseUnlessItFits(plan) }
        // A resource published atomically gets a stage only when the run changes something of it.
        let stages = publisher.stageMap
        let pruning = { pruneOptions.plan(for: published, states: states, stages: stages, quietly: true) }
        if try Publication.begin(&publisher, for: plan, pruning: pruning, states: states) {
            manifest = publisher.staging(published)
            plan = makePlan(manifest)
        }
        // Only a run that goes ahead records anything: a refused one leaves the root as it was.
        states.learn(plan.proofs)
        let recorder = StateRecorder(states: states, plan: plan, runID: runID, command: "apply", startedAt: run.startedAtMilliseconds)
        events.add(recorder)
        // Before the locks go (at the run's end, after the hooks): the next run plans against these records.
        defer { recorder.waitUntilWritten() }

        var options = ApplyOptions()
        options.caFile = transferOptions.cacert
        options.allowsFileURLs = manifestOptions.allowFileURLs
        options.deadline = cutoff
        options.offlineWait = offlineOptions.wait
        options.rateLimit = transferOptions.rateLimit
        options.policy = runPolicy(policy, for: manifest, cutoff: cutoff)
        options.quarantinedOrigins = Array(states.quarantinedOrigins(atMilliseconds: Int64(Date().timeIntervalSince1970 * 1000)).values)
        let started = Date()
        let applyRun = ApplyRun(plan: plan, options: options)
        let stopper = hooks.stopper
        let signals = SignalHandling.install { signal in
            applyRun.requestStop(.signal(signal))
            stopper.stop(signal: signal)
        }
        defer { signals.cancel() }
        var result: ApplyResult
        do {
            defer { display.end() }
            result = try applyRun.run(events: events)
        } catch {
            print("jobrun: error: \(error)", to: &stderr)
            throw ExitCode(ExitStatus.ioError.rawValue)
        }
        hooks.settle(&result, events: events)
        if let metrics {
            let resources = RunMetrics.Resource.of(result, endedAtMilliseconds: RunID.milliseconds())
            metrics.parts.withLock { [origins = result.origins] parts in (parts.resources, parts.origins) = (resources, origins) }
        }
        result.catalogs = catalogs.reports
        // After the run, with its records: what it fetched is named, what it dropped is not.
        recorder.waitUntilWritten()
        let now = RunID.milliseconds()
        // Before this run's prune: what it moves there stays for --keep-trash from now.
        keepTrashOption.expireTrash(of: manifest, now: now)
        if let prunePlan = pruneOptions.plan(for: published, states: states, stages: publisher.stageMap) {
            let report = Pruning.run(prunePlan, after: result, states: states, runID: runID, now: now)
            result.prune = report
            events.emit(.pruned(report))
        }
        publisher.publish(&result, runID: runID, now: RunID.milliseconds())
        for report in result.publications { events.emit(.published(report)) }
        if sums != nil {
            // Before the reports, which then show these digests too.
            for problem in result.computeMissingSHA256() { print("jobrun: warning: \(problem)", to: &stderr) }
        }
        if let junit = shardOptions.expand(reportOptions.junit, saved: savedShard) {
            OutputFiles.prepareParent(of: junit)
            Reports.attempt("the JUnit report '\(junit)'") {
                try ReportClock.finish(
                    ApplyReports.junit(
                        result, timestamp: ReportClock.timestamp(started), hostname: ReportClock.hostname, runID: runID)
                ).write(to: junit)
            }
        }
        sums?.write(ApplyReports.checksumLists(result))
        if reportOptions.json { StandardOutput.write(bytes: ApplyReports.json(result, runID: runID, shard: manifest.shard), what: "the JSON report to stdout") }
        var status = result.exitStatus
        if status == .ok, deferralOptions.requireComplete, result.counts.deferred > 0 { status = .locked }
        run.summarize(counts: result.counts.named, summaryLine: result.summaryLine, stopReason: result.stopReason)
        if status != .ok { throw ExitCode(status.rawValue) }
    }
}

extension ApplyCommand {
    /// How the run judges the network policy again as it goes: with the conditions read anew
    /// when some resource's policy looks at them, and `--wait-for-conditions` (never past the
    /// deadline's cutoff).
    func runPolicy(_ context: PolicyContext, for manifest: Manifest, cutoff: ContinuousClock.Instant?) -> RunPolicy {
        var policy = RunPolicy(context: context) { RunID.milliseconds() }
        policy.interval = deferralOptions.interval
        if manifest.resources.contains(where: { $0.settings.network.defersForConditions }) { policy.readConditions = conditionsOptions.reader() }
        if let wait = deferralOptions.wait {
            let until = ContinuousClock.now + wait
            policy.waitUntil = cutoff.map { min($0, until) } ?? until
        }
        return policy
    }

    /// A pre-flight step: the known sizes to fetch must fit each output file system's free space
    /// less its margin (``SpaceCheck``), before the first request.
    /// - Throws: `ExitCode` 74, after a line per file system that lacks room.
    func refuseUnlessItFits(_ plan: Plan) throws {
        let shortages = plan.space.compactMap(\.shortage)
        guard !shortages.isEmpty else { return }
        for shortage in shortages {
            StandardError.write("jobrun: error: \(shortage); nothing was requested (--no-space-check skips this check)\n")
        }
        throw ExitCode(ExitStatus.ioError.rawValue)
    }

    /// Locks every output root the manifests write to (``OutputLock``), waiting up to
    /// `--lock-timeout`.
    /// - Throws: `ExitCode` 75 when a root stays locked.
    func lockOutputRoots(of manifest: Manifest, events: RunEvents, runID: String, cutoff: ContinuousClock.Instant?) throws -> OutputLock {
        var timeout = transferOptions.lockWait ?? .zero  // `validate()` refused anything else
        // Never past the deadline's cutoff.
        if let cutoff { timeout = max(.zero, min(timeout, cutoff - ContinuousClock.now)) }
        let roots = manifest.resources.map(\.outputRoot)
        do {
            let lock = try OutputLock.acquire(roots: roots, timeout: timeout, runID: runID) { root, holder in
                events.emit(.lockWaited(root: root, holder: holder?.description, timeout: timeout))
            }
            for warning in lock.warnings { StandardError.write("jobrun: warning: \(warning)\n") }
            return lock
        } catch {
            let hint = timeout == .zero ? " (--lock-timeout DURATION waits for it)" : ""
            StandardError.write("jobrun: error: \(error.message); nothing was planned or fetched\(hint)\n")
            throw ExitCode(ExitStatus.locked.rawValue)
        }
    }
}
