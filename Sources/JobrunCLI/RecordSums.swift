import ArgumentParser
import JobrunCore
import JobrunManifest
import JobrunReport

/// `--record-sums FILE` of `apply` and `verify`: a `sha256sum`-format list per resource, its
/// paths relative to the resource's folder, so each list is that resource's `slices_from` as it
/// stands and `sha256sum -c` checks it from that folder. `{id}` in FILE is the resource's id: a
/// list mixing resources would be neither, so with several resources FILE needs it.
struct RecordSums {
    static let placeholder = "{id}"
    let template: String

    /// The file resource `id`'s list goes to.
    func path(for id: String) -> String {
        template.replacing(Self.placeholder, with: id)
    }

    /// Refuses FILE when it cannot hold the manifests' resources apart; before anything is done.
    /// - Throws: `ExitCode` 64.
    func check(_ manifest: Manifest) throws {
        // The resources before sharding, not a shard's: every shard accepts or refuses the same FILE.
        let count = manifest.shard?.declared.count ?? manifest.resources.count
        guard !template.contains(Self.placeholder), count > 1 else { return }
        StandardError.write(
            "jobrun: error: --record-sums: the manifests have \(count) resources, and a list is one resource's (its paths are relative to the resource's folder); put \(Self.placeholder) in the file name, for example 'sums/\(Self.placeholder).sha256'; nothing was done\n"
        )
        throw ExitCode(ExitStatus.usage.rawValue)
    }

    /// Writes each list atomically, in the order given, and says so on stderr; a list that cannot
    /// be written is a failed report (``Reports``), and the others are still written.
    func write(_ lists: [(id: String, list: ChecksumList)]) {
        for (id, list) in lists {
            let path = path(for: id)
            OutputFiles.prepareParent(of: path)
            guard Reports.attempt("the sums of '\(id)' to '\(path)'", { try AtomicFile.write(list.rendered(), to: path) }) else { continue }
            let count = list.lines.count
            StandardError.write("Recorded the SHA-256 of \(count) file\(count == 1 ? "" : "s") of '\(id)' in \(path).\n")
        }
    }
}
