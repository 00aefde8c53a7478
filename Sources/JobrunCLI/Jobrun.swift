public import ArgumentParser
import JobrunCore

/// The `jobrun` command: mirror and verify content declared in YAML manifests.
public struct Jobrun: ParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "jobrun",
        abstract: "Mirror and verify content declared in YAML manifests.",
        discussion: """
            Manifests declare resources made of slices (files), each with an
            optional size and digests. 'plan' shows what a mirror is missing;
            'verify' proves that a mirror on disk is intact; 'status' says
            what the mirror state last proved, without reading a file. Exit
            statuses and every command's whole reference: man jobrun.
            """,
        version: JobrunVersion.current,
        subcommands: [
            ValidateCommand.self, PlanCommand.self, ApplyCommand.self, VerifyCommand.self, StatusCommand.self, ConditionsCommand.self, GraphCommand.self,
            ReportCommand.self, VersionCommand.self,
            ManualCommand.self,
        ]
    )

    /// The manual's EXIT STATUS section: what each status means, for every command.
    static let exitStatuses = """
        0    ok, or nothing to do
        1    failures: a mismatch, a missing file, a failed slice, a failed hook
             (on_hook_failure: fail), a file without a digest with verify
             --require-digests; 'status': a slice not proven, or a proof older
             than --max-age; with plan --detailed-exitcode, any error but a
             usage error
        2    the plan has changes (only with --detailed-exitcode)
        64   usage error
        65   a manifest is invalid, or declares no digest with --require-digests
        66   a manifest is missing or unreadable, or none was found
        74   I/O error: a report that could not be written completely (it
             replaces the run's status, a signal's aside), or too little free
             space for apply to start
        75   another apply holds an output root (apply --lock-timeout waits);
             the deadline came, the network stayed gone (--offline-wait), or
             work was deferred with --require-complete; 'conditions':
             discretionary work would be deferred now
        130  interrupted (SIGINT), 143 terminated (SIGTERM)
        """

    public init() {}
}

extension Jobrun: DocumentedCommand {
    /// The manual's description: the discussion, less its pointer to the manual.
    static let reference = """
        Manifests declare resources made of slices (files), each with an
        optional size and digests. 'plan' shows what a mirror is missing;
        'verify' proves that a mirror on disk is intact; 'status' says
        what the mirror state last proved, without reading a file.
        """
}
