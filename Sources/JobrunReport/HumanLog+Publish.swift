import JobrunOutcome

extension HumanLog {
    /// A line for each resource published atomically: switched in (with where the replaced
    /// version is kept), left for the next run, or failed (nothing when the run changed nothing of it).
    func publishLine(_ p: PublishReport) {
        switch p.state {
        case .published:
            guard detail != .quiet else { return }
            let kept = p.retired.map { "; the replaced version stays in \($0) for its grace period" } ?? ""
            results("= \(p.resource): published \(p.folder)\(kept)\n")
            if let warning = p.warning { results("! \(p.resource): \(warning)\n") }
        case .unchanged:
            return  // nothing happened that a reader could see
        case .notPublished(let reason):
            guard detail != .quiet else { return }
            results("- \(p.resource): not published: \(reason)\n")
        case .failed(let error):
            results("! \(p.resource): not published: \(error)\n")
        }
    }
}
