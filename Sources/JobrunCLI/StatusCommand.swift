import ArgumentParser
import JobrunCore
import JobrunManifest
import JobrunOutcome
import JobrunPlan
import JobrunReport
import JobrunState

struct StatusCommand: DocumentedCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Say what the mirror state proves of a mirror, per resource, and how the last runs ended.",
        discussion: """
            Cheap: one stat per slice, no file's bytes read. Exit status 0 when
            every slice is proven (and with --max-age, none longer ago than
            that), 1 otherwise: a monitoring check can call it. The whole
            reference: man jobrun.
            """)

    static let reference = """
        Cheap: one stat per slice, and what 'apply', 'plan' and 'verify'
        recorded in each output root's mirror state (.jobrun/state.sqlite);
        no file's bytes are read, nothing is fetched, the mirror is not
        written to (a resource's catalog is read from the copy the last
        apply kept: its signature verified, a Debian index decompressed).
        A slice is
          proven    its file is what the state recorded when its bytes
                    were last proven (hashed, or fetched and verified)
                    against the digests the manifest expects now
          changed   there, but not what was proven: changed since, not
                    of the declared size, or expected with other digests
          moved     another file with the proven size and modification
                    time (copied, restored, moved): 'moved or restored',
                    not re-proven until 'jobrun verify' or 'plan' reads it
          unproven  there, with nothing recorded ('jobrun verify'
                    proves it)
          stale     proven, but its 'refresh' has a 'max_age' and its
                    origin last vouched for it longer ago than that
          missing   not there; 'to resume': a partial download that
                    'apply' continues
          error     a symbolic link or other non-file, or unreadable
        One line per resource, with its counts, when it was last fully
        proven and last fetched:
          = id -> folder/: every slice proven (and with --max-age, none
                           longer ago than that)
          ~ id -> folder/: not so
        then the last runs, newest first (a run without an end was killed
        or is still running), then the summary:
          Status: 13 of 16 slices proven (2 changed, 1 missing), oldest
          proof 2026-11-25T09:00:00Z.
        Exit status 0 when every slice is proven (and with --max-age, none
        longer ago than that), 1 otherwise: a monitoring check can call it.
        --metrics-file FILE writes the same in the Prometheus text format,
        for node_exporter's textfile collector (docs/monitoring.md).
        """

    @OptionGroup(title: "Manifests") var manifestOptions: ManifestOptions

    @OptionGroup(title: "Selection and shards") var resourceOptions: ResourceOptions
    @OptionGroup(title: "Selection and shards") var shardOptions: ShardOptions

    @Flag(name: .long, help: "Write the status as a versioned JSON document to stdout instead of text.")
    var json = false

    @OptionGroup var quietOption: QuietOption
    @OptionGroup var metricsOption: MetricsOption

    @Option(
        name: .customLong("max-age"),
        help: ArgumentHelp(
            "Exit 1 when a proof is older than this (for example 12h, 7d, 1h30m).", valueName: "duration"))
    var maxAge: String?

    @Option(name: .long, help: ArgumentHelp("How many of the last runs to show.", valueName: "n"))
    var runs = 5

    /// `--max-age` in milliseconds (checked by ``validate()``).
    var maxAgeMilliseconds: Int64? {
        maxAge.flatMap { try? DurationParser.milliseconds($0).get() }
    }

    func validate() throws {
        if let maxAge {
            guard let ms = try? DurationParser.milliseconds(maxAge).get() else {
                throw ValidationError("--max-age: '\(maxAge)' is not a duration (for example 12h, 7d, 1h30m)")
            }
            if ms <= 0 { throw ValidationError("--max-age must be longer than 0") }
        }
        if runs < 0 { throw ValidationError("--runs must be 0 or more") }
    }

    func run() throws {
        let runID = try RunIdentity.resolve()
        let started = ContinuousClock.now
        var metrics = metricsOption.metrics(command: "status", runID: runID)
        // Written whichever way the command ends, with the status it exits with.
        do {
            try survey(into: &metrics)
        } catch {
            metricsOption.write(metrics, exitStatus: Reports.status(after: Self.exitCode(for: error).rawValue), started: started)
            throw error
        }
        metricsOption.write(metrics, exitStatus: Reports.status(after: ExitStatus.ok.rawValue), started: started)
    }

    /// The status of the mirror on stdout, and in `metrics`.
    /// - Throws: `ExitCode` 1 when a slice is not proven (or too long ago), or a catalog was refused.
    private func survey(into metrics: inout RunMetrics) throws {
        let runID = metrics.runID
        let catalogs = Catalogs.read(
            try shardOptions.narrow(resourceOptions.select(from: manifestOptions.load())), mode: .kept, allowingFileURLs: manifestOptions.allowFileURLs)
        let manifest = catalogs.manifest
        let states = MirrorStateOptions.open(for: manifest, access: .reading)
        let status = MirrorStatus.survey(manifest, states: states, runLimit: runs, maxAgeMilliseconds: maxAgeMilliseconds)
        metrics.resources = RunMetrics.Resource.of(status)
        metrics.refusedCatalogs = catalogs.refusedResources
        // A store that is there but unusable was reported when it was opened.
        for root in status.roots where root.store == .none {
            StandardError.write("jobrun: warning: no mirror state in '\(root.path)': run 'jobrun apply' to record one\n")
        }
        if json {
            StandardOutput.write(bytes: StatusReports.json(status, runID: runID), what: "the JSON report to stdout")
        } else {
            StandardOutput.write(StatusReports.text(status, problemsOnly: quietOption.quiet))
        }
        if !status.isOK || catalogs.refusedCount > 0 { throw ExitCode(ExitStatus.failure.rawValue) }
    }
}
