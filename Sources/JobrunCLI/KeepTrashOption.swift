import ArgumentParser
import JobrunCore
import JobrunFiles
import JobrunManifest

/// `apply --keep-trash`: how long the trash keeps what a prune moved there.
struct KeepTrashOption: ParsableArguments {
    @Option(
        name: .customLong("keep-trash"),
        help: ArgumentHelp(
            "How long pruned files stay in the trash before a later apply removes them (default 7d; 0: at the next apply).", valueName: "duration"))
    var keepTrash: String?

    static let defaultKeep: Duration = .seconds(7 * 86_400)

    var keep: Duration {
        if keepTrash == "0" { return .zero }
        return keepTrash.flatMap { try? DurationParser.milliseconds($0).get() }.map { .milliseconds($0) } ?? Self.defaultKeep
    }

    func validate() throws {
        if let keepTrash, keepTrash != "0", (try? DurationParser.milliseconds(keepTrash).get()) == nil {
            throw ValidationError("--keep-trash: '\(keepTrash)' is not a duration (for example 12h, 7d; 0 empties the trash at the next apply)")
        }
    }

    /// Removes the trash folders of `manifest`'s roots older than `--keep-trash`.
    func expireTrash(of manifest: Manifest, now: Int64) {
        for root in Set(manifest.resources.map(\.outputRoot)).sorted() {
            Trash.expire(root: root, keptFor: keep.wholeMilliseconds, now: now)
        }
    }
}
