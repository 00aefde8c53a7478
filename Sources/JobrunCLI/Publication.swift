import ArgumentParser
import JobrunCore
import JobrunManifest
import JobrunOutcome
import JobrunPlan
import JobrunRun
import JobrunState
import JobrunSystem

/// `apply`'s side of atomic publication (``Publisher``): its failures as exit statuses, and
/// which resources need a stage.
enum Publication {
    /// ``Publisher/prepare(_:states:runID:now:)``, its notes on stderr.
    /// - Throws: `ExitCode` 74 when publication cannot go ahead (nothing was fetched).
    static func prepare(_ manifest: Manifest, states: MirrorStates, runID: String) throws -> Publisher {
        do {
            let publisher = try Publisher.prepare(manifest, states: states, runID: runID, now: RunID.milliseconds())
            for note in publisher.notes { StandardError.write("jobrun: note: \(note)\n") }
            return publisher
        } catch {
            StandardError.write("jobrun: error: \(error.message)\n")
            throw ExitCode(ExitStatus.ioError.rawValue)
        }
    }

    /// Makes a stage for every resource published atomically that has none and that `plan`
    /// changes (a slice to fetch or revalidate, a file to prune); whether it made any. What the
    /// plan proved by hashing is recorded first, so that the stage's records carry it; `pruning`
    /// is asked only when a resource could need a stage.
    /// - Throws: `ExitCode` 74 when a stage cannot be made (nothing was fetched).
    static func begin(_ publisher: inout Publisher, for plan: Plan, pruning: () -> PrunePlan?, states: MirrorStates) throws -> Bool {
        let unstaged = publisher.unstaged(in: plan.manifest)
        guard !unstaged.isEmpty else { return false }
        let pruned = Set(pruning()?.files.map(\.resource) ?? [])
        let changing = Set(plan.entries.filter { $0.counts.hasChanges || pruned.contains($0.resource.id) }.map(\.resource.id))
        let starting = unstaged.filter { changing.contains($0.id) }
        guard !starting.isEmpty else { return false }
        states.learn(plan.proofs)
        do {
            try publisher.begin(starting)
        } catch {
            StandardError.write("jobrun: error: \(error.message)\n")
            throw ExitCode(ExitStatus.ioError.rawValue)
        }
        return true
    }
}
