public import ArgumentParser
import JobrunCore

/// The `jobrun` command: mirror and verify content declared in YAML manifests.
public struct Jobrun: ParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "jobrun",
        abstract: "Mirror and verify content declared in YAML manifests.",
        discussion: """
            Manifests declare resources made of slices (files), each with an optional size and digests.
            'plan' shows what a mirror is missing, 'verify' proves a mirror on disk is intact.

            Exit statuses: 0 ok or nothing to do; 1 failures (mismatch, missing, failed slices);
            2 the plan has changes (only with --detailed-exitcode); 64 usage; 65 manifest invalid;
            66 manifest not found or unreadable; 74 I/O error; 130/143 interrupted.
            """,
        version: JobrunVersion.current,
        subcommands: [
            ValidateCommand.self, PlanCommand.self, VerifyCommand.self, GraphCommand.self, VersionCommand.self,
        ]
    )

    public init() {}
}
