import JobrunCore
import JobrunManifest
import JobrunOutcome
import JobrunPlan
import JobrunTestSupport
import Testing
@testable import JobrunRun
import JobrunSystem

/// Every file the driver settles as fetched is followed by a sync of its root
/// (``RunEvent/synced(root:)``) before the run ends, also in a resource that failed, and is then
/// still as it was just after its rename: what lets the mirror state record a file only once its
/// rename is durable. Run in process against the fault server.
@Suite struct SyncedEventTests {
    /// Watches the order: at each sync of a root, every file settled as fetched there since the
    /// last one must be in place, as it was just after its rename.
    final class SyncWatcher: RunObserver {
        let plan: Plan
        var waiting: [String: [(path: String, file: FileIdentity)]] = [:]
        var synced: [String: Int] = [:]
        var fetched = 0
        var problems: [String] = []

        init(plan: Plan) { self.plan = plan }

        func observe(_ event: RunEvent) {
            switch event {
            case .sliceSettled(let settled):
                guard settled.outcome.status == .fetched else { return }
                guard let file = settled.file, let index = settled.index,
                    let resource = plan.entries.first(where: { $0.resource.id == settled.slice.resource })?.resource
                else {
                    problems.append("\(settled.slice.path): settled as fetched without its file")
                    return
                }
                fetched += 1
                waiting[resource.outputRoot, default: []].append((resource.filePath(of: resource.slices[index]), file))
            case .synced(let root):
                synced[root, default: 0] += 1
                for (path, file) in waiting.removeValue(forKey: root) ?? [] {
                    guard let now = try? FileIdentity.ofFile(atPath: path), now == file else {
                        problems.append("\(path): not in place when '\(root)' was said synced")
                        continue
                    }
                }
            default:
                break
            }
        }
    }

    @Test func everyFetchedFileIsFollowedByASyncOfItsRoot() throws {
        let server = try FaultServer()
        defer { server.stop() }
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        // More slices in one root than one commit batch takes, and `bad`, which fails (one slice
        // is not found).
        func slices(_ prefix: String, count: Int, in folder: String = "") -> String {
            (0..<count).map { "      - {path: \(folder)\(100 + $0)/\(prefix)\($0).bin, size: \(100 + $0)}" }.joined(separator: "\n")
        }
        func manifest(root: String, _ resources: [(id: String, baseURL: String, slices: String)]) -> String {
            """
            version: 1
            defaults: {output: \(dir.path(root))}
            resources:
            \(resources.map { "  - id: \($0.id)\n    base_url: \($0.baseURL)\n    slices:\n\($0.slices)" }.joined(separator: "\n"))

            """
        }
        let first = manifest(root: "root-1", [("one", server.url("/gen/"), slices("one-", count: CommitQueue.batchSize + 44))])
        let second = manifest(root: "root-2", [("two", server.url("/gen/"), slices("two-", count: 40))])
        // Alone in its root: only the run's last sync covers its renames.
        let third = manifest(
            root: "root-3",
            [
                ("bad", server.url("/"), slices("bad-", count: 30, in: "gen/") + "\n      - {path: status/404}")
            ])
        var options = ManifestLoader.Options()
        options.environment = [:]
        options.currentDirectory = dir.path
        var paths: [String] = []
        for (name, yaml) in [("one", first), ("two", second), ("three", third)] { paths.append(try dir.write(file: "\(name).yaml", contents: yaml)) }
        let loaded = ManifestLoader.load(paths: paths, options: options)
        let manifest = try #require(loaded.manifest, "\(loaded.diagnostics)")
        let plan = Planner.plan(for: manifest)
        let watcher = SyncWatcher(plan: plan)
        let result = try ApplyRun(plan: plan, options: ApplyOptions()).run(events: RunEvents([watcher]))

        #expect(result.counts.failed == 1 && result.counts.fetched == CommitQueue.batchSize + 44 + 40 + 30)
        #expect(watcher.fetched == result.counts.fetched)
        #expect(watcher.problems.isEmpty, "\(watcher.problems.prefix(5))")
        #expect(watcher.waiting.values.allSatisfy { $0.isEmpty }, "fetched files never followed by a sync of their root")
        let roots = Set(plan.entries.map { $0.resource.outputRoot })
        #expect(roots.count == 3 && roots.allSatisfy { watcher.synced[$0] ?? 0 >= 1 })
    }
}
