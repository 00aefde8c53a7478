import Foundation
import JobrunCore
import JobrunManifest
import JobrunOutcome
import JobrunPlan
import JobrunState
import JobrunTestSupport
import Synchronization
import Testing
@testable import JobrunReport
import JobrunSystem

/// What the run records in the mirror state, and when: a fetched file only once a sync made its
/// rename durable (so a crash can never leave a record of a file that is not on disk), only if
/// it is still the file the fetch put there, and the run with its end.
@Suite struct StateRecorderTests {
    static func plan(root: String, names: [String], in dir: TemporaryDirectory) throws -> Plan {
        let yaml = """
            version: 1
            defaults: {output: \(root)}
            resources:
              - id: r
                base_url: http://127.0.0.1:9/
                slices:
            \(names.map { "      - {path: \($0), size: 5}" }.joined(separator: "\n"))

            """
        var options = ManifestLoader.Options()
        options.environment = [:]
        options.currentDirectory = dir.path
        let loaded = ManifestLoader.load(paths: [try dir.write(file: "m.yaml", contents: yaml)], options: options)
        let manifest = try #require(loaded.manifest, "\(loaded.diagnostics)")
        return Planner.plan(for: manifest)
    }

    static func settled(_ name: String, index: Int, file: FileIdentity?) -> RunEvent {
        let digest = Digest(algorithm: .sha256, hex: String(repeating: "0a", count: 32))
        return .sliceSettled(
            SettledSlice(
                slice: SliceRef(resource: "r", path: name, url: "http://127.0.0.1:9/\(name)"),
                outcome: SliceOutcome(status: .fetched, size: 5, digests: digest.map { [$0] } ?? [], displayURL: "http://127.0.0.1:9/\(name)"),
                integrity: .sizeOnly, isBulk: false, index: index, file: file))
    }

    static func identity(_ path: String) throws -> FileIdentity { try .ofFile(atPath: path) }

    @Test func aFetchedFileIsRecordedOnlyAfterTheSyncAndOnlyIfUnchanged() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let root = try dir.makeDirectory("mirror")
        let names = ["a.bin", "b.bin", "c.bin"]
        for name in names { _ = try dir.write(file: "mirror/r/\(name)", contents: "12345") }
        let plan = try Self.plan(root: root, names: names, in: dir)
        let warnings = Mutex<[String]>([])
        let states = MirrorStates(roots: [root], access: .create) { line in warnings.withLock { $0.append(line) } }
        let recorder = StateRecorder(states: states, plan: plan, runID: "run-7", command: "apply")
        let events = RunEvents([recorder])

        events.emit(Self.settled("a.bin", index: 0, file: try Self.identity(root + "/r/a.bin")))
        events.emit(Self.settled("b.bin", index: 1, file: try Self.identity(root + "/r/b.bin")))
        // Until the root is synced, nothing is written: a crash now leaves no record (and no store).
        #expect(!dir.exists("mirror/.jobrun"))
        // b.bin changes after its fetch, before the sync: it is no longer what was proven.
        let before = try Self.identity(root + "/r/b.bin")
        _ = try dir.write(file: "mirror/r/b.bin.new", contents: "54321")
        try #require(rename(root + "/r/b.bin.new", root + "/r/b.bin") == 0)
        #expect(try Self.identity(root + "/r/b.bin") != before)
        events.emit(.synced(root: root))
        // Settled after the sync: waits for the next one, which never comes.
        events.emit(Self.settled("c.bin", index: 2, file: try Self.identity(root + "/r/c.bin")))
        events.emit(.runEnded(RunEnd(exitStatus: 75, stopReason: .deadline, counts: [("fetched", 3)], summaryLine: nil, elapsed: .seconds(1))))

        let store = try StateStore(root: root)
        let files = try store.provenFiles()
        #expect(Set(files.keys) == ["r/a.bin"])
        let a = try #require(files["r/a.bin"])
        #expect(a.file == (try Self.identity(root + "/r/a.bin")) && a.fetchedAtMilliseconds != nil)
        // Recorded once settled: a later check may trust it. Where the file system stamps from the
        // coarse clock, that took its next tick, not the wall clock's 50 ms step.
        if a.file.ctimeNanoseconds % 1_000_000_000 != 0 { #expect(a.isSettled) }
        let runs = try store.lastRuns(limit: 5)
        #expect(runs.map(\.runID) == ["run-7"] && runs[0].command == "apply" && runs[0].exitStatus == 75 && runs[0].stopReason == "deadline")
        #expect(warnings.withLock { $0 }.isEmpty)
    }

    /// A file changed after its rename is not recorded, also when the change put its size and
    /// modification time back: its change time is no longer the one taken just after the rename.
    @Test func aFileChangedAfterItsRenameIsNotRecordedEvenWithItsTimesPutBack() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let root = try dir.makeDirectory("mirror")
        let path = try dir.write(file: "mirror/r/a.bin", contents: "12345")
        let plan = try Self.plan(root: root, names: ["a.bin"], in: dir)
        var renamed = try Self.identity(path)
        // The rename came before the change below (within one clock step the two could not be
        // told apart, which docs/state.md says).
        renamed.ctimeNanoseconds -= 1
        let fd = open(path, O_WRONLY | O_CLOEXEC)
        try #require(fd >= 0)
        #expect(pwrite(fd, "54321", 5, 0) == 5)
        close(fd)
        let mtime = timespec(tv_sec: Int(renamed.mtimeNanoseconds / 1_000_000_000), tv_nsec: Int(renamed.mtimeNanoseconds % 1_000_000_000))
        var times = [mtime, mtime]
        try #require(utimensat(AT_FDCWD, path, &times, AT_SYMLINK_NOFOLLOW) == 0)
        let changed = try Self.identity(path)
        #expect(changed.size == renamed.size && changed.mtimeNanoseconds == renamed.mtimeNanoseconds && changed.inode == renamed.inode)

        let states = MirrorStates(roots: [root], access: .create) { _ in }
        let events = RunEvents([StateRecorder(states: states, plan: plan, runID: "run-8", command: "apply")])
        events.emit(Self.settled("a.bin", index: 0, file: renamed))
        events.emit(.synced(root: root))
        events.emit(.runEnded(RunEnd(exitStatus: 0, stopReason: nil, counts: [], summaryLine: nil, elapsed: .seconds(1))))
        #expect(try StateStore(root: root).provenFiles().isEmpty)
    }
}
