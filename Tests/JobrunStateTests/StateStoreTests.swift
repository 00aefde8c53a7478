import Foundation
import JobrunCore
import JobrunTestSupport
import Synchronization
import Testing
@testable import JobrunState
import JobrunSystem

/// The mirror state's database: created in its own folder, in WAL mode, at the current schema;
/// what it records survives reopening; a newer schema is refused and left as it was; a file that
/// is not a database (or was cut short) is reported, never rewritten behind the user's back.
@Suite struct StateStoreTests {
    static let sha = Digest(algorithm: .sha256, hex: String(repeating: "ab", count: 32))!
    static let md5 = Digest(algorithm: .md5, hex: String(repeating: "cd", count: 16))!

    static func slice(_ path: String, inode: UInt64 = 7, fetchedAt: Int64? = 1_764_060_000_100) -> ProvenSlice {
        ProvenSlice(
            path: path, resource: "r", digests: [sha, md5],
            file: FileIdentity(device: UInt64.max - 1, inode: inode, size: 1_234, mtimeNanoseconds: 1_764_060_000_123_456_789, ctimeNanoseconds: -5),
            seenAtNanoseconds: 1_764_060_000_200_000_000, provenAtMilliseconds: 1_764_060_000_123, fetchedAtMilliseconds: fetchedAt)
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
            try store.record([Self.slice("a/1.ts", inode: 9)])  // replaces
            try store.recordRunStart(runID: "run-1", command: "apply", startedAtMilliseconds: 10)
            try store.recordRunEnd(runID: "run-1", endedAtMilliseconds: 20, stopReason: "deadline", exitStatus: 75, counts: [("fetched", 3)])
            try store.recordRunStart(runID: "run-2", command: "verify", startedAtMilliseconds: 30)
        }
        let store = try StateStore(root: root)
        #expect(try store.proven(path: "a/1.ts") == Self.slice("a/1.ts", inode: 9))
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

    /// Sound bytes but no store jobrun can use: a table dropped, one of no jobrun schema, a
    /// version that does not match the tables, a folder in the database's place. Each is damaged:
    /// `plan` and `verify` say so and leave it as it is, `apply` sets it aside and starts anew,
    /// and does so again over what an earlier one set aside.
    @Test(arguments: ["dropped table", "extra table", "foreign database", "older version", "negative version", "folder"])
    func aStoreOfNoKnownSchemaIsDamaged(kind: String) throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let root = try dir.makeDirectory("mirror")
        let path = StateStore.path(forRoot: root)
        if kind == "folder" {
            _ = try dir.makeDirectory("mirror/.jobrun")
            _ = try dir.makeDirectory("mirror/.jobrun/state.sqlite")
            _ = try dir.write(file: "mirror/.jobrun/state.sqlite/inside", contents: "x")
        } else if kind == "foreign database" {
            _ = try dir.makeDirectory("mirror/.jobrun")
            try SQLiteDatabase(path: path).execute("CREATE TABLE photos (id INTEGER PRIMARY KEY, taken TEXT)")
        } else {
            let store = try StateStore(root: root)
            try store.record([Self.slice("x")])
            switch kind {
            case "dropped table": try store.db.execute("DROP TABLE deferrals")
            case "extra table": try store.db.execute("CREATE TABLE notes (text TEXT)")
            case "older version": try store.db.execute("PRAGMA user_version = 1")
            default: try store.db.execute("PRAGMA user_version = -3")
            }
            try store.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        }
        let before = DirectoryTree.entries(under: root)
        let bytes = try? Data(contentsOf: URL(fileURLWithPath: path))
        for readOnly in [false, true] {
            #expect {
                _ = try StateStore(root: root, readOnly: readOnly)
            } throws: { error in
                guard case .corrupt(let named, _)? = error as? StateError else { return false }
                return named == path
            }
        }
        let warnings = WarningLog()
        #expect(MirrorStates(roots: [root], access: .existing, warn: warnings.add).roots.isEmpty)
        #expect(warnings.lines.count == 1 && warnings.lines[0].contains("is damaged ("), "\(warnings.lines)")
        #expect(DirectoryTree.entries(under: root) == before)
        #expect((try? Data(contentsOf: URL(fileURLWithPath: path))) == bytes)

        // Damaged again and again: each is set aside over the one set aside before, whatever it
        // was (this kind, then folders with something in them, one holding a link).
        try dir.write(file: "elsewhere/kept", contents: "k")
        for round in 0..<3 {
            let created = MirrorStates(roots: [root], access: .create, warn: warnings.add)
            #expect(created.roots == [root])
            #expect(warnings.lines.last?.contains("moved to '\(path).damaged'") == true, "\(warnings.lines)")
            created.record([Self.slice("y")], root: root)
            #expect(created.provenFiles()[root]?.keys.sorted() == ["y"])
            for name in [path, path + "-wal", path + "-shm"] { unlink(name) }
            _ = try dir.makeDirectory("mirror/.jobrun/state.sqlite/sub")
            try dir.write(file: "mirror/.jobrun/state.sqlite/sub/\(round)", contents: "x")
            #expect(symlink(dir.path("elsewhere"), path + "/link") == 0)
        }
        #expect(warnings.lines.count == 4, "\(warnings.lines)")
        #expect(dir.exists("elsewhere/kept"), "a link in what was set aside was followed")
    }

    /// A store is judged by what its schema says, not by how its statements were laid out: one
    /// made by migrations written with other spacing, comments and case is jobrun's; one whose
    /// column has another type, or whose index covers another condition, is not.
    @Test(arguments: [
        ("laid out otherwise", true),
        ("another column type", false),
        ("another index condition", false),
    ])
    func aStoreIsJudgedByItsSchemaNotItsLayout(change: String, isKnown: Bool) throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let root = try dir.makeDirectory("mirror")
        _ = try dir.makeDirectory("mirror/.jobrun")
        let db = try SQLiteDatabase(path: StateStore.path(forRoot: root))
        for migration in StateSchema.migrations {
            var text = migration.replacingOccurrences(of: "\n", with: "\n    -- a note\n\t").replacingOccurrences(of: ", ", with: " ,  ")
            text = text.replacingOccurrences(of: "CREATE TABLE", with: "create   table").replacingOccurrences(of: "(", with: " ( ")
            switch change {
            case "another column type": text = text.replacingOccurrences(of: "INTEGER", with: "REAL")
            case "another index condition": text = text.replacingOccurrences(of: "IS NULL", with: "IS NOT NULL")
            default: break
            }
            try db.execute(text)
        }
        try db.execute("PRAGMA user_version = \(StateSchema.currentVersion)")
        #expect(StateSchema.normalized("CREATE  TABLE t(a TEXT DEFAULT 'A  b' , \"B\" INT) -- x") == "create table t(a text default 'A  b',\"B\" int)")
        // Fingerprints that match nothing (another SQLite's text): judged by the schema this
        // SQLite makes from the migrations.
        let others = StateSchema.fingerprints.map { $0 ^ 1 }
        if isKnown {
            #expect(try StateSchema.check(db) == StateSchema.currentVersion)
            #expect(try StateSchema.check(db, fingerprints: others) == StateSchema.currentVersion)
        } else {
            #expect(throws: StateError.self) { _ = try StateSchema.check(db) }
            #expect(throws: StateError.self) { _ = try StateSchema.check(db, fingerprints: others) }
        }
    }

    /// The fingerprints a store is judged by are those of the schemas the migrations make.
    @Test func theFingerprintsAreTheMigrations() throws {
        let versions = try #require(StateSchema.objectsByVersion())
        let fingerprints = versions.map(StateSchema.fingerprint)
        #expect(
            fingerprints == StateSchema.fingerprints,
            "\(fingerprints.map { "0x" + String($0, radix: 16, uppercase: true) })")
        #expect(Set(fingerprints).count == versions.count)
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
        #expect(try store.db.integer("SELECT count(*) FROM sqlite_master WHERE type = 'table'") == 6)
        let again = try StateStore(root: root)
        #expect(try again.db.integer("SELECT count(*) FROM sqlite_master WHERE type = 'table'") == 6)
    }

    /// A later proof by hashing keeps the time of the fetch while the file is the same one, or
    /// holds the same bytes (size and digests) in another file, as a copy or a restore does; it
    /// drops it for other bytes at that path.
    @Test func aProofByHashingKeepsTheFetchTimeOfTheSameFileOrBytes() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let store = try StateStore(root: try dir.makeDirectory("mirror"))
        try store.record([Self.slice("a"), Self.slice("b"), Self.slice("c"), Self.slice("d")])
        var hashedA = Self.slice("a", fetchedAt: nil)
        hashedA.provenAtMilliseconds += 5_000
        var copiedB = Self.slice("b", inode: 99, fetchedAt: nil)
        copiedB.provenAtMilliseconds += 5_000
        var otherC = Self.slice("c", inode: 98, fetchedAt: nil)
        otherC.digests = [Self.sha]
        var grownD = Self.slice("d", inode: 97, fetchedAt: nil)
        grownD.file.size += 1
        try store.record([hashedA, copiedB, otherC, grownD])
        #expect(try store.proven(path: "a")?.fetchedAtMilliseconds == Self.slice("a").fetchedAtMilliseconds)
        #expect(try store.proven(path: "a")?.provenAtMilliseconds == hashedA.provenAtMilliseconds)
        #expect(try store.proven(path: "b")?.fetchedAtMilliseconds == Self.slice("b").fetchedAtMilliseconds)
        #expect(try store.proven(path: "b")?.file.inode == 99)
        #expect(try store.proven(path: "c")?.fetchedAtMilliseconds == nil)
        #expect(try store.proven(path: "d")?.fetchedAtMilliseconds == nil)
        try store.forget(paths: ["c", "d"])
        let files = try store.provenFiles()
        #expect(files.count == 2)
        #expect(files["a"]?.digests.all == [Self.sha, Self.md5] && files["a"]?.digests.contains(Self.md5) == true)
        #expect(files["b"]?.file.inode == 99)
    }

    /// Rows go in many to a statement and the rest one by one: every row is written, a path
    /// listed twice ends as its last row, and a proof by hashing keeps the fetch time of its file
    /// in either kind of statement.
    @Test func manyRowsAreRecordedAsOneByOne() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let store = try StateStore(root: try dir.makeDirectory("mirror"))
        let count = StateStore.rowsPerStatement * 2 + 7
        try store.record((0..<count).map { Self.slice("f/\($0)", inode: UInt64($0)) })
        var again = (0..<count).map { k in
            var s = Self.slice("f/\(k)", inode: UInt64(k), fetchedAt: nil)
            s.provenAtMilliseconds = 42
            return s
        }
        again[3] = Self.slice("f/twice", inode: 1_000)
        again[5] = Self.slice("f/twice", inode: 1_001)
        again[count - 1].file.inode = 5_000  // other bytes in another file at that path: its fetch time goes
        again[count - 1].digests = [Self.sha]
        try store.record(again)
        let files = try store.provenFiles()
        #expect(files.count == count + 1)
        #expect(files["f/twice"]?.file.inode == 1_001)
        #expect(files["f/3"]?.provenAtMilliseconds == Self.slice("f/3").provenAtMilliseconds, "not in the second list")
        for k in [0, 4, StateStore.rowsPerStatement, count - 2] {
            #expect(files["f/\(k)"]?.provenAtMilliseconds == 42 && files["f/\(k)"]?.fetchedAtMilliseconds == Self.slice("f").fetchedAtMilliseconds)
        }
        #expect(files["f/\(count - 1)"]?.file.inode == 5_000 && files["f/\(count - 1)"]?.fetchedAtMilliseconds == nil)
    }

    /// A store of schema 2 keeps what the wall clock's 50 ms step said of each row: settled
    /// once taken that long after the change (two seconds for whole-second times), and never
    /// for a change time 64 bits of nanoseconds cannot hold; so it reads, opened to read only
    /// (as `status` does), where it cannot be migrated.
    @Test func aVersionTwoStoreKeepsWhatTheStepSaid() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let root = try dir.makeDirectory("mirror")
        _ = try dir.makeDirectory("mirror/.jobrun")
        let rows: [(path: String, ctime: Int64, seenAt: Int64, settled: Bool)] = [
            ("settled", 5_000_000_123, 5_050_000_123, true), ("racy", 5_000_000_123, 5_050_000_122, false),
            ("seconds", 7_000_000_000, 8_999_999_999, false), ("seconds-later", 7_000_000_000, 9_000_000_000, true),
            ("unknown", FileIdentity.unknownTime, .max, false),
        ]
        do {
            let raw = try SQLiteDatabase(path: StateStore.path(forRoot: root))
            try raw.execute(StateSchema.migrations[0])
            try raw.execute(StateSchema.migrations[1])
            try raw.execute("PRAGMA user_version = 2")
            for row in rows {
                try raw.execute(
                    """
                    INSERT INTO slices (path, resource, size, digests, device, inode, mtime_ns, ctime_ns, seen_at_ns, proven_at_ms)
                    VALUES ('\(row.path)', 'r', 1, x'', 1, 2, 3, \(row.ctime), \(row.seenAt), 4)
                    """)
            }
        }
        let reader = try StateStore(root: root, readOnly: true)
        #expect(try reader.schemaVersion() == 2)
        let read = try reader.provenFiles()
        for row in rows { #expect(read[row.path]?.isSettled == row.settled, "\(row.path), read only") }
        let store = try StateStore(root: root)
        #expect(try store.schemaVersion() == StateSchema.currentVersion)
        let files = try store.provenFiles()
        for row in rows { #expect(files[row.path]?.isSettled == row.settled, "\(row.path)") }
        // A new row keeps the judgement made at its look.
        var early = Self.slice("early")
        early.isSettled = true
        try store.record([early])
        #expect(try store.proven(path: "early")?.isSettled == true && files["racy"]?.isSettled == false)
    }

    /// The quick check's rule, case by case (``ProvenFile/identity(provingSize:digests:)``).
    @Test func aRecordProvesOnlyWhatItHashedAndOnlyOnceSettled() {
        let file = FileIdentity(device: 1, inode: 2, size: 10, mtimeNanoseconds: 5_000_000_123, ctimeNanoseconds: 5_000_000_123)
        let settled = ProvenFile(
            file: file, digests: [Self.sha, Self.md5], seenAtNanoseconds: file.settlesAt, provenAtMilliseconds: 0, fetchedAtMilliseconds: nil)
        #expect(settled.identity(provingSize: 10, digests: [Self.sha]) == file)
        #expect(settled.identity(provingSize: nil, digests: [Self.md5, Self.sha]) == file)
        #expect(settled.identity(provingSize: 11, digests: [Self.sha]) == nil)  // another size
        #expect(settled.identity(provingSize: 10, digests: []) == nil)  // nothing to prove
        let sha512 = Digest(algorithm: .sha512, hex: String(repeating: "01", count: 64))!
        #expect(settled.identity(provingSize: 10, digests: [Self.sha, sha512]) == nil)  // asks for more
        let other = Digest(algorithm: .sha256, hex: String(repeating: "ef", count: 32))!
        #expect(settled.identity(provingSize: 10, digests: [other]) == nil)  // another value
        let racy = ProvenFile(
            file: file, digests: [Self.sha, Self.md5], seenAtNanoseconds: file.settlesAt - 1, provenAtMilliseconds: 0, fetchedAtMilliseconds: nil)
        #expect(racy.identity(provingSize: 10, digests: [Self.sha]) == nil)
        // Judged at the look by the coarse clock: settled once it passed the change time.
        let early = ProvenFile(
            file: file, digests: [Self.sha], seenAtNanoseconds: file.ctimeNanoseconds + 1, settled: true, provenAtMilliseconds: 0,
            fetchedAtMilliseconds: nil)
        #expect(early.identity(provingSize: 10, digests: [Self.sha]) == file)
        // A change time without nanoseconds: a file system that counts whole seconds.
        let coarse = FileIdentity(device: 1, inode: 2, size: 10, mtimeNanoseconds: 0, ctimeNanoseconds: 7_000_000_000)
        #expect(coarse.settlesAt == 9_000_000_000)
        #expect(!coarse.isSettled(at: 8_999_999_999) && coarse.isSettled(at: 9_000_000_000))
        #expect(file.settlesAt == file.ctimeNanoseconds + 50_000_000)
    }

    /// The states of several roots: each root has its own store; a damaged one is set aside and
    /// started anew by `apply` (create), left alone by `plan` and `verify` (existing); a root
    /// that did not exist gets its store when something is first recorded there.
    @Test func storesOfSeveralRootsAndTheirFailures() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let one = try dir.makeDirectory("one")
        let two = try dir.makeDirectory("two")
        let later = dir.path("later")
        let warnings = WarningLog()
        do {
            let states = MirrorStates(roots: [one, two, one, later], access: .create, warn: warnings.add)
            #expect(states.roots.isEmpty)  // a store is created by the first record, not before
            #expect(!dir.exists("one/.jobrun"))
            states.record([Self.slice("x")], root: one)
            states.record([Self.slice("y")], root: two)
            try FileManager.default.createDirectory(atPath: later, withIntermediateDirectories: false)
            states.record([Self.slice("z")], root: later)
            #expect(states.roots == [one, two, later].sorted())
        }
        #expect(warnings.lines.isEmpty)
        let known = MirrorStates(roots: [one, two, later], access: .existing, warn: warnings.add).provenFiles()
        #expect(known[one].map { Array($0.keys) } == ["x"])
        #expect(known[two].map { Array($0.keys) } == ["y"])
        #expect(known[later].map { Array($0.keys) } == ["z"])

        // Damaged: plan and verify say so and leave it; apply sets it aside and starts anew.
        _ = try dir.write(file: "two/.jobrun/state.sqlite", contents: String(repeating: "not a database ", count: 300))
        let existing = MirrorStates(roots: [one, two], access: .existing, warn: warnings.add)
        #expect(existing.roots == [one])
        #expect(warnings.lines.count == 1 && warnings.lines[0].contains("is damaged") && warnings.lines[0].contains("going on without it"))
        #expect(!dir.exists("two/.jobrun/state.sqlite.damaged"))
        let created = MirrorStates(roots: [one, two], access: .create, warn: warnings.add)
        #expect(created.roots == [one, two].sorted())
        #expect(warnings.lines.count == 2 && warnings.lines[1].contains("moved to"))
        #expect(dir.exists("two/.jobrun/state.sqlite.damaged"))
        #expect(created.provenFiles()[two]?.isEmpty == true)

        // Deleted: plan and verify go on without one, apply creates it again when it records.
        try FileManager.default.removeItem(atPath: one + "/.jobrun")
        let withoutStore = MirrorStates(roots: [one], access: .existing, warn: warnings.add)
        withoutStore.record([Self.slice("x")], root: one)
        #expect(withoutStore.roots.isEmpty && !dir.exists("one/.jobrun"))
        let recreated = MirrorStates(roots: [one], access: .create, warn: warnings.add)
        recreated.record([Self.slice("x")], root: one)
        #expect(recreated.roots == [one] && dir.exists("one/.jobrun/state.sqlite"))
        #expect(warnings.lines.count == 2)
    }

    /// What a recorder asks before it looks at a root's files: only a store that can take them.
    @Test func whetherARootMayRecord() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let fresh = try dir.makeDirectory("fresh")
        let blocked = try dir.makeDirectory("blocked")
        _ = try dir.write(file: "blocked/.jobrun", contents: "a file where the folder goes")
        let warnings = WarningLog()
        let created = MirrorStates(roots: [fresh, blocked], access: .create, warn: warnings.add)
        #expect(created.mayRecord(root: fresh) && created.mayRecord(root: blocked), "not tried yet: apply creates the store")
        created.record([Self.slice("x")], root: fresh)
        created.record([Self.slice("x")], root: blocked)
        #expect(created.mayRecord(root: fresh))
        #expect(!created.mayRecord(root: blocked) && warnings.lines.count == 1)
        #expect(!MirrorStates(roots: [blocked], access: .existing, warn: warnings.add).mayRecord(root: blocked))
        #expect(MirrorStates(roots: [fresh], access: .existing, warn: warnings.add).mayRecord(root: fresh))
        #expect(!MirrorStates(roots: [fresh], access: .reading, warn: warnings.add).mayRecord(root: fresh))
    }

    /// Another process holding the database: reported once, then left alone; the command goes on.
    @Test func aStoreLockedByAnotherProcessIsReportedOnceAndLeftAlone() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let root = try dir.makeDirectory("mirror")
        try StateStore(root: root).record([Self.slice("x")])
        // Another connection in exclusive locking mode with a write under way: nobody else may
        // read or write until it lets go.
        let other = try SQLiteDatabase(path: StateStore.path(forRoot: root))
        try other.execute("PRAGMA locking_mode = EXCLUSIVE")
        try other.execute("BEGIN EXCLUSIVE")
        try other.execute("DELETE FROM runs")
        let warnings = WarningLog()
        let states = MirrorStates(roots: [root], access: .create, warn: warnings.add)
        let known = states.provenFiles()
        states.record([Self.slice("y")], root: root)
        #expect(known.isEmpty)
        #expect(warnings.lines.count == 1 && warnings.lines[0].contains("is locked by another process"), "\(warnings.lines)")
        try other.execute("ROLLBACK")
    }

    /// `status` reads: a store opened read-only, never written, never created or set aside; a
    /// damaged one is reported with what `status` does instead.
    @Test func readingAccessNeverWrites() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let root = try dir.makeDirectory("mirror")
        let none = try dir.makeDirectory("none")
        do { try StateStore(root: root).record([Self.slice("x")]) }
        let path = StateStore.path(forRoot: root)
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let warnings = WarningLog()
        let states = MirrorStates(roots: [root, none], access: .reading, warn: warnings.add)
        #expect(states.roots == [root])
        #expect(states.provenFiles()[root].map { Array($0.keys) } == ["x"])
        states.record([Self.slice("y")], root: root)
        states.record([Self.slice("y")], root: none)
        states.forget(["x"], root: root)
        states.recordRunStart(runID: "r2", command: "status", atMilliseconds: 1)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
        #expect(!dir.exists("none/.jobrun") && warnings.lines.isEmpty)

        try Data(repeating: 0x5A, count: 20_000).write(to: URL(fileURLWithPath: path))
        #expect(MirrorStates(roots: [root], access: .reading, warn: warnings.add).roots.isEmpty)
        #expect(warnings.lines == ["the mirror state '\(path)' is damaged (file is not a database); going on without it (its files count as not proven)"])
        #expect(!dir.exists("mirror/.jobrun/state.sqlite.damaged"))
    }

    /// Links above the output root, and the root itself being one, are the user's: the store
    /// opens through them, under the name the manifests give it; below the root a link is still
    /// refused.
    @Test(arguments: ["above", "root"])
    func aRootReachedThroughALinkHasItsStore(link: String) throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        _ = try dir.makeDirectory("data")
        _ = try dir.makeDirectory("data/srv")
        _ = try dir.makeDirectory("data/srv/mirror")
        let root: String
        if link == "above" {
            try FileManager.default.createSymbolicLink(atPath: dir.path("srv"), withDestinationPath: dir.path("data/srv"))
            root = dir.path("srv/mirror")
        } else {
            try FileManager.default.createSymbolicLink(atPath: dir.path("mirror"), withDestinationPath: "data/srv/mirror")
            root = dir.path("mirror")
        }
        do {
            let store = try StateStore(root: root)
            #expect(store.path == root + "/.jobrun/state.sqlite")
            try store.record([Self.slice("x")])
        }
        #expect(dir.exists("data/srv/mirror/.jobrun/state.sqlite"))
        #expect(try StateStore(root: root, readOnly: true).proven(path: "x") == Self.slice("x"))
        let warnings = WarningLog()
        #expect(MirrorStates(roots: [root], access: .reading, warn: warnings.add).provenFiles()[root]?.keys.sorted() == ["x"])
        #expect(warnings.lines.isEmpty, "\(warnings.lines)")

        // Below the root, a link in the database's place is not followed.
        let elsewhere = try dir.makeDirectory("elsewhere")
        try FileManager.default.removeItem(atPath: dir.path("data/srv/mirror/.jobrun"))
        _ = try dir.makeDirectory("data/srv/mirror/.jobrun")
        try FileManager.default.createSymbolicLink(atPath: dir.path("data/srv/mirror/.jobrun/state.sqlite"), withDestinationPath: elsewhere + "/db")
        #expect(throws: StateError.self) { _ = try StateStore(root: root) }
        #expect(try FileManager.default.contentsOfDirectory(atPath: elsewhere).isEmpty)
    }

    /// A symbolic link in the state folder's place is refused, never followed.
    @Test func aLinkInPlaceOfTheFolderIsRefused() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let root = try dir.makeDirectory("mirror")
        let elsewhere = try dir.makeDirectory("elsewhere")
        try FileManager.default.createSymbolicLink(atPath: root + "/.jobrun", withDestinationPath: elsewhere)
        #expect(throws: StateError.self) { _ = try StateStore(root: root) }
        #expect(try FileManager.default.contentsOfDirectory(atPath: elsewhere).isEmpty)
    }
}

/// Warnings collected from any thread.
final class WarningLog: Sendable {
    private let storage = Mutex<[String]>([])
    var lines: [String] { storage.withLock { $0 } }
    var add: @Sendable (String) -> Void { { [self] line in self.storage.withLock { $0.append(line) } } }
}
