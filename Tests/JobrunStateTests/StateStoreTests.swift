import Foundation
import JobrunTestSupport
import Testing
@testable import JobrunState

/// The mirror state's database: created in its own folder, in WAL mode, at the current schema;
/// what it records survives reopening; a newer schema is refused and left as it was; a file that
/// is not a database (or was cut short) is reported, never rewritten behind the user's back.
@Suite struct StateStoreTests {
    static func slice(_ path: String, inode: UInt64 = 7, run: String = "run-1") -> ProvenSlice {
        ProvenSlice(
            path: path, identity: "http://h/\(path)", resource: "r", size: 1_234, digests: ["sha256:ab12", "md5:cd34"],
            device: UInt64.max - 1, inode: inode, mtimeNanoseconds: 1_764_060_000_123_456_789, ctimeNanoseconds: -5,
            provenAtMilliseconds: 1_764_060_000_123, fetched: true, runID: run)
    }

    @Test func aNewStoreIsCreatedInItsFolderAtTheCurrentSchema() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        // The output root itself is not the store's to create.
        #expect(throws: StateError.self) { _ = try StateStore(root: dir.path("no-such-root")) }
        #expect(!dir.exists("no-such-root"))
        let root = try dir.makeDirectory("mirror")
        let opened = try StateStore(root: root)
        #expect(opened.path == root + "/.jobrun/state.sqlite")
        #expect(dir.exists("mirror/.jobrun/state.sqlite"))
        #expect(try opened.schemaVersion() == StateSchema.currentVersion)
        #expect(try opened.db.text("PRAGMA journal_mode") == "wal")
    }

    @Test func whatIsRecordedSurvivesReopening() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let root = try dir.makeDirectory("mirror")
        do {
            let store = try StateStore(root: root)
            try store.record([Self.slice("a/1.ts"), Self.slice("a/2.ts", inode: 8)])
            try store.record([Self.slice("a/1.ts", inode: 9, run: "run-2")])  // replaces
            try store.recordRunStart(runID: "run-1", command: "apply", startedAtMilliseconds: 10)
            try store.recordRunEnd(runID: "run-1", endedAtMilliseconds: 20, stopReason: "deadline", exitStatus: 75, counts: [("fetched", 3)])
            try store.recordRunStart(runID: "run-2", command: "verify", startedAtMilliseconds: 30)
        }
        let store = try StateStore(root: root)
        #expect(try store.proven(path: "a/1.ts") == Self.slice("a/1.ts", inode: 9, run: "run-2"))
        #expect(try store.proven(path: "a/2.ts") == Self.slice("a/2.ts", inode: 8))
        #expect(try store.proven(path: "a/3.ts") == nil)
        try store.forget(paths: ["a/2.ts"])
        #expect(try store.proven(path: "a/2.ts") == nil)
        let runs = try store.lastRuns(limit: 5)
        #expect(runs.map(\.runID) == ["run-2", "run-1"])
        #expect(runs[1].exitStatus == 75 && runs[1].stopReason == "deadline" && runs[1].endedAtMilliseconds == 20)
        #expect(runs[0].exitStatus == nil && runs[0].endedAtMilliseconds == nil)
    }

    /// A database a later jobrun made is refused, and stays exactly as it was.
    @Test func aNewerSchemaIsRefusedAndLeftUntouched() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let root = try dir.makeDirectory("mirror")
        do {
            let store = try StateStore(root: root)
            try store.db.execute("PRAGMA user_version = 99")
            try store.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        }
        let before = try Data(contentsOf: URL(fileURLWithPath: StateStore.path(forRoot: root)))
        #expect(throws: StateError.newerSchema(path: StateStore.path(forRoot: root), found: 99, supported: StateSchema.currentVersion)) {
            _ = try StateStore(root: root)
        }
        let after = try Data(contentsOf: URL(fileURLWithPath: StateStore.path(forRoot: root)))
        #expect(before == after)
    }

    /// Not a database, or one cut short: reported as damaged, and the bytes stay as they were.
    @Test(arguments: ["garbage", "truncated"])
    func aDamagedFileIsReported(kind: String) throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let root = try dir.makeDirectory("mirror")
        let path = StateStore.path(forRoot: root)
        if kind == "garbage" {
            _ = try dir.makeDirectory("mirror/.jobrun")
            _ = try dir.write(file: "mirror/.jobrun/state.sqlite", contents: String(repeating: "not a database at all ", count: 400))
        } else {
            do {
                let store = try StateStore(root: root)
                try store.record((0..<2_000).map { Self.slice("s/\($0).ts") })
                try store.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            }
            let whole = try Data(contentsOf: URL(fileURLWithPath: path))
            try whole.prefix(whole.count / 3).write(to: URL(fileURLWithPath: path))
        }
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        var failure: StateError?
        do {
            let store = try StateStore(root: root)
            for k in stride(from: 0, to: 2_000, by: 97) { _ = try store.proven(path: "s/\(k).ts") }
            _ = try store.lastRuns(limit: 1)
        } catch {
            failure = error
        }
        guard case .corrupt? = failure else {
            Issue.record("\(kind): expected a damaged-file error, got \(String(describing: failure))")
            return
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
    }

    /// An older database is brought up to date once; opening it again changes nothing.
    @Test func anEmptyDatabaseIsMigratedOnce() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let root = try dir.makeDirectory("mirror")
        _ = try dir.makeDirectory("mirror/.jobrun")
        do {
            let raw = try SQLiteDatabase(path: StateStore.path(forRoot: root))
            #expect(try raw.integer("PRAGMA user_version") == 0)
        }
        let store = try StateStore(root: root)
        #expect(try store.schemaVersion() == StateSchema.currentVersion)
        #expect(try store.db.integer("SELECT count(*) FROM sqlite_master WHERE type = 'table'") == 4)
        let again = try StateStore(root: root)
        #expect(try again.db.integer("SELECT count(*) FROM sqlite_master WHERE type = 'table'") == 4)
    }
}
