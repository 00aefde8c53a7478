import JobrunOutcome

extension HumanLog {
    /// `- mirror/r/old.bin: pruned, to mirror/.jobrun/trash/…` per file (foreign ones said so), a line for a
    /// file that could not be moved, or why nothing was pruned.
    func pruneLines(_ prune: PruneReport) {
        switch prune.state {
        case .pruned:
            for file in prune.files {
                let name = file.planned.file
                let foreign = file.planned.isForeign ? " (not jobrun's: --prune-foreign)" : ""
                if let error = file.error {
                    results("! \(name): not pruned: \(error)\n")
                } else if let trash = file.trashPath, detail != .quiet {
                    results("- \(name): pruned\(foreign), to \(file.planned.shown(trash))\n")
                }
            }
        case .refused(let reason):
            guard !prune.files.isEmpty else { return }
            let advice = reason.contains("--max-delete") ? "; run with a higher --max-delete to allow it" : ""
            results("! prune refused: \(reason)\(advice)\n")
        case .notRun(let reason):
            guard !prune.files.isEmpty, detail != .quiet else { return }
            results("- prune: \(prune.files.count) file\(prune.files.count == 1 ? "" : "s") no slice names stay: \(reason)\n")
        }
    }
}
