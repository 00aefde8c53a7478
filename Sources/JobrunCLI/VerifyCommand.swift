import ArgumentParser
import JobrunCore
import JobrunManifest
import JobrunOutcome
import JobrunReport
import JobrunFiles
import JobrunRun
import JobrunState

struct VerifyCommand: DocumentedCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Check a mirror already on disk: every slice's size and digests, without the network.",
        discussion: """
            One line per slice ('= path' ok, '* path' differs, '- path' missing,
            '! path' error; -q: only problems), then the summary line. Exit
            status 0 when every slice is ok, 1 otherwise. The whole reference:
            man jobrun.
            """)

    static let reference = """
        One line per slice:
          = path   ok
          ~ path   size only: the size matches, no digest is declared
          ? path   unverified: the file is there, no digest or size is
                   declared
          * path   the size or a digest differs
          - path   missing
          ! path   error (a symbolic link or other non-file: links are
                   never followed)
          # path   with --extra: a file under a resource's folder that
                   no manifest names
          % path   with --extra: one of jobrun's working files of a slice (a
                   partial download or its resume metadata), never a failure
        Files that passed without a digest count as ok, and the summary
        adds a clause before its period:
          ...; 6 without digests (2 size only, 4 unverified).
        With --require-digests they fail instead. With --resource, only
        those resources and the ones they depend on are checked, and --extra
        looks in their folders only (a file another resource names is not
        extra there).
        Every byte is read, and the summary says how many files were proven
        by hashing. With --quick, a file whose device, inode, size and times
        are what the output root's mirror state recorded when its bytes were
        last proven passes without being read:
          ...; 12 proven by hashing, 176 unchanged since proven.
        What verify hashes is recorded in a mirror state that exists.
        A resource's catalog ('slices_from' with 'url:' or 'format: debian')
        is the copy the last apply kept, verified again, never fetched: the
        mirror is checked against what it was made from.
        Exit status 0 when every slice is ok, 1 otherwise (a catalog that was
        never kept, or no longer verifies, too).
        """

    @OptionGroup(title: "Manifests") var manifestOptions: ManifestOptions

    @OptionGroup(title: "Selection and shards") var resourceOptions: ResourceOptions
    @OptionGroup(title: "Selection and shards") var shardOptions: ShardOptions

    @OptionGroup(title: "Checks") var checkOptions: VerifyCheckOptions
    @OptionGroup(title: "Checks") var jobsOption: JobsOption

    @OptionGroup(title: "Reports and output") var reportOptions: ReportOptions
    @OptionGroup(title: "Reports and output") var eventOptions: EventOptions
    @OptionGroup(title: "Reports and output") var metricsOption: MetricsOption
    @OptionGroup(title: "Reports and output") var quietOption: QuietOption

    func validate() throws {
        try eventOptions.refuseSharingStdout(withJSON: reportOptions.json)
    }

    func run() throws {
        try CommandRun.run("verify", events: shardOptions.expanding(eventOptions)) { run in try verify(run) }
    }

    func verify(_ run: CommandRun) throws {
        let metrics = metricsOption.collect(for: run)
        // What the mirror was made from: the catalogs the last apply kept, not today's.
        let catalogs = Catalogs.read(
            try shardOptions.narrow(resourceOptions.select(from: manifestOptions.load(digest: run.manifestsDigest))), mode: .kept,
            allowingFileURLs: manifestOptions.allowFileURLs,
            requiringDigests: checkOptions.requireDigests)
        let manifest = catalogs.manifest
        run.start(manifest)
        Catalogs.emit(catalogs, on: run.events)
        metrics?.refused(catalogs.refusedResources)
        let sums = shardOptions.expand(reportOptions.recordSums).map(RecordSums.init(template:))
        try sums?.check(manifest)
        let started = Date()
        let states = MirrorStateOptions.open(for: manifest, access: .existing)
        run.events.add(StateRecorder(states: states, plan: nil, runID: run.runID, command: "verify", startedAt: run.startedAtMilliseconds))
        let result = MirrorVerifier.verify(
            manifest, parallelism: jobsOption.jobs, findExtraFiles: checkOptions.extra, requiresDigests: checkOptions.requireDigests,
            alsoComputing: sums == nil ? nil : .sha256,
            timesChecks: reportOptions.junit != nil && !ReportClock.isReproducible,
            memory: MirrorStateOptions.memory(of: states, recognizing: checkOptions.quick))
        states.learn(result.proofs)
        if let metrics {
            let resources = RunMetrics.Resource.of(result, startedAtMilliseconds: run.startedAtMilliseconds, endedAtMilliseconds: RunID.milliseconds())
            metrics.parts.withLock { $0.resources = resources }
        }
        ProcessLifetime.keepUntilExit(result)
        if let junit = shardOptions.expand(reportOptions.junit) {
            let report = ReportClock.finish(
                VerifyReports.junit(
                    result, timestamp: ReportClock.timestamp(started), hostname: ReportClock.hostname, runID: run.runID))
            OutputFiles.prepareParent(of: junit)
            Reports.attempt("the JUnit report '\(junit)'") { try report.write(to: junit) }
        }
        sums?.write(VerifyReports.checksumLists(result))
        if reportOptions.json {
            StandardOutput.write(bytes: VerifyReports.json(result, runID: run.runID, shard: manifest.shard), what: "the JSON report to stdout")
        } else {
            // With `--events -`, stdout carries the events.
            let text = VerifyReports.text(result, problemsOnly: quietOption.quiet)
            if eventOptions.isOnStdout { StandardError.write(text) } else { StandardOutput.write(text) }
        }
        run.summarize(counts: result.namedCounts, summaryLine: VerifyReports.summaryLine(result))
        let failed =
            catalogs.refusedCount > 0 || !result.counts.isAllOK || !result.scanErrors.isEmpty
            || (checkOptions.failOnExtra && !(result.extraFiles ?? []).isEmpty)
        if failed { throw ExitCode(ExitStatus.failure.rawValue) }
    }
}

/// Time and host for reports. `SOURCE_DATE_EPOCH` (the reproducible-builds convention) fixes the
/// timestamp and zeroes the measured times, so reports can be compared byte for byte.
enum ReportClock {
    /// `SOURCE_DATE_EPOCH` in seconds, when set to a number.
    static var fixedEpoch: Int64? { ProcessInfo.processInfo.environment["SOURCE_DATE_EPOCH"].flatMap { Int64($0) } }

    static var isReproducible: Bool { fixedEpoch != nil }

    /// `report` as written: without measured times when reproducible.
    static func finish(_ report: JUnitReport) -> JUnitReport {
        isReproducible ? report.withoutTimes() : report
    }

    static func timestamp(_ now: Date) -> JUnitReport.Timestamp {
        if let seconds = fixedEpoch { return JUnitReport.Timestamp(secondsSince1970: seconds) }
        return JUnitReport.Timestamp(now)
    }

    static var hostname: String {
        ProcessInfo.processInfo.environment["JOBRUN_HOSTNAME"] ?? ProcessInfo.processInfo.hostName
    }
}
