import ArgumentParser
import JobrunCore
import JobrunFiles
import JobrunManifest
import JobrunPlan
import JobrunState
import JobrunSystem

/// `--prune`, `--prune-foreign`, `--max-delete` and `--keep-trash` (`apply`; `plan` shows what
/// would go): files no slice names any more, removed to the trash after a complete run
/// (docs/apply.md, "Pruning").
struct PruneOptions: ParsableArguments {
    @Flag(
        name: .long,
        help:
            "After a run that completed every selected resource, move the files in their folders that no slice names and that jobrun fetched to the trash (.jobrun/trash); a resource's 'prune: true' does so without it."
    )
    var prune = false

    @Flag(
        name: .customLong("prune-foreign"),
        help: "Prune files no record says jobrun fetched too (another program's, or put there by hand); they are listed first.")
    var pruneForeign = false

    @Option(
        name: .customLong("max-delete"),
        help: ArgumentHelp(
            "Prune nothing at all when more files than this would go: a count (100) or a share of the pruned resources' files (25%). Default 50%.",
            valueName: "n|p%"))
    var maxDelete: String?

    var limit: DeleteLimit { maxDelete.flatMap { DeleteLimit(parsing: $0) } ?? .standard }

    var options: PrunePlan.Options { PrunePlan.Options(all: prune, foreign: pruneForeign, limit: limit) }

    func validate() throws {
        if let maxDelete, DeleteLimit(parsing: maxDelete) == nil {
            throw ValidationError("--max-delete: '\(maxDelete)' is neither a count (100) nor a percentage from 0% to 100% (25%)")
        }
    }

    /// What a prune of `manifest` would remove (`nil` when no selected resource prunes), from
    /// the records of `states`, the files of staged resources in their stages (`stages`); `quietly` says nothing of options that prune nothing.
    func plan(for manifest: Manifest, states: MirrorStates, stages: StageMap = StageMap(), quietly: Bool = false) -> PrunePlan? {
        let options = options
        guard manifest.resources.contains(where: { options.all || $0.settings.prune }) else {
            if pruneForeign || maxDelete != nil, !quietly {
                StandardError.write(
                    "jobrun: warning: --prune-foreign and --max-delete prune nothing without --prune or a selected resource with 'prune: true'\n")
            }
            return nil
        }
        return PrunePlan.make(
            manifest, options: options, recorded: { states.recordedFiles(root: $0) },
            identity: { root, path in
                var status = stat()
                guard lstat(root == "." ? path : root + "/" + path, &status) == 0, !FileStatus.isDirectory(mode: status.st_mode) else { return nil }
                return FileIdentity(status)
            },
            foreign: { root, directories, expected in ExtraFileScanner().scan(root: root, directories: directories, expected: expected).extraPaths },
            stages: stages)
    }
}
