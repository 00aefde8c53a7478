import JobrunCore
import JobrunSystem

/// The state of one output root: a SQLite database in a folder jobrun owns there
/// (`.jobrun/state.sqlite`, WAL mode), with a versioned schema (``StateSchema``). Used from one
/// thread at a time.
public final class StateStore {
    /// The folder below the output root that jobrun owns (plans and `verify --extra` leave it out).
    public static let fileName = "state.sqlite"

    let db: SQLiteDatabase
    /// What the records' ``provenColumns`` read for `settled`: the column, or `NULL` in a store
    /// of an older schema opened to read only (its rows are judged by the old rule).
    private let settledColumn: String
    /// `etag, last_modified, validator_origin, confirmed_at_ms`, or NULLs in a store of an older schema opened read-only.
    private let validatorColumns: String
    /// The schema has `origin_quarantine` (a store of an older one opened read-only has not).
    let hasQuarantine: Bool
    /// Whether the schema has `publications` (a read-only store of an older schema has none).
    let hasPublications: Bool
    /// Only readable: opened so, or on a file this process may not write.
    public var isReadOnly: Bool { db.isReadOnly }
    public var path: String { db.path }

    /// The database's path for the output root `root`.
    public static func path(forRoot root: String) -> String {
        (root.hasSuffix("/") ? root : root + "/") + MirrorStateFolder.name + "/" + fileName
    }

    /// Opens the state of the output root `root`, creating its folder and database as needed and
    /// bringing an older schema up to date; `readOnly` opens an existing database only, and
    /// changes nothing (an older schema is read as it is).
    /// - Throws: a ``StateError``; the caller goes on without the store.
    public init(root: String, readOnly: Bool = false) throws(StateError) {
        let folder = (root.hasSuffix("/") ? root : root + "/") + MirrorStateFolder.name
        // Links above the root, and the root itself, are the user's to make; SQLite's no-follow
        // rule, which refuses a link anywhere in a path, then guards only the names below it.
        guard let resolved = realpath(root, nil) else {
            throw .failed(path: root, operation: "use the output root", detail: systemErrorText(errno))
        }
        let realRoot = String(cString: resolved)
        free(resolved)
        let realFolder = (realRoot.hasSuffix("/") ? realRoot : realRoot + "/") + MirrorStateFolder.name
        if !readOnly, mkdir(realFolder, 0o755) != 0, errno != EEXIST {
            throw .failed(path: folder, operation: "create the folder", detail: systemErrorText(errno))
        }
        // A symbolic link in its place would take jobrun's writes out of the output root.
        var status = stat()
        guard lstat(realFolder, &status) == 0, FileStatus.isDirectory(mode: status.st_mode) else {
            throw .failed(path: folder, operation: "use the folder", detail: "it is not a directory (a symbolic link is not followed)")
        }
        let realPath = Self.path(forRoot: realRoot)
        // A folder (or anything else) in the database's place is a store that cannot be used.
        if lstat(realPath, &status) == 0, !FileStatus.isRegularFile(mode: status.st_mode) {
            throw .corrupt(path: Self.path(forRoot: root), detail: "it is not a regular file")
        }
        db = try SQLiteDatabase(path: realPath, readOnly: readOnly, reportedAs: Self.path(forRoot: root))
        // Checked before anything is written: a database jobrun cannot use is left as it is.
        let version = try StateSchema.check(db)
        settledColumn = readOnly && version < StateSchema.settledVersion ? "NULL" : "settled"
        validatorColumns =
            readOnly && version < StateSchema.validatorsVersion
            ? Array(repeating: "NULL", count: Self.wordColumns.count).joined(separator: ", ") : Self.wordColumns.joined(separator: ", ")
        hasQuarantine = !readOnly || version >= StateSchema.quarantineVersion
        hasPublications = !readOnly || version >= StateSchema.publicationsVersion
        if readOnly { return }
        // WAL: readers (status, plan) never wait for a run that writes.
        guard try db.text("PRAGMA journal_mode = WAL")?.lowercased() == "wal" else {
            throw .failed(path: db.path, operation: "use write-ahead logging", detail: "the journal mode stayed another")
        }
        // Consistent after a crash in WAL mode; the last transactions may be lost, which only
        // costs hashing those files again.
        try db.execute("PRAGMA synchronous = NORMAL")
        // The log kept at close (for read-only readers) is emptied by each checkpoint: no old
        // frames outlive what they were copied into.
        try db.execute("PRAGMA journal_size_limit = 0")
        try StateSchema.migrate(db, from: version)
    }

    /// The schema version the database has now.
    public func schemaVersion() throws(StateError) -> Int {
        Int(try db.integer("PRAGMA user_version") ?? 0)
    }

    // MARK: Slices

    /// Upserts of ``rowsPerStatement`` rows and of one (for the rest), with the origin's word and
    /// without it (most files have a digest, which never needs it), once prepared.
    private var upserts: [UpsertKind: SQLiteDatabase.Statement] = [:]

    private struct UpsertKind: Hashable {
        var rows: Int
        var withWord: Bool
    }
    private var deletion: SQLiteDatabase.Statement?

    /// Rows written per transaction: a writer never holds the database for long, so another
    /// (a `plan` recording what it hashed beside an `apply`) waits briefly, not past its timeout.
    static let rowsPerTransaction = 4_096
    /// Rows per statement: one statement's step costs SQLite about as much as its rows.
    static let rowsPerStatement = 32
    /// The columns a row is written with, path first, and of those the origin's word (validators
    /// and confirmation time), last.
    static let rowColumns =
        [
            "path", "resource", "size", "digests", "device", "inode", "mtime_ns", "ctime_ns", "seen_at_ns", "proven_at_ms", "fetched_at_ms", "settled",
        ] + wordColumns
    static let wordColumns = ["etag", "last_modified", "validator_origin", "confirmed_at_ms"]
    static let columns = Int32(rowColumns.count)
    /// The columns of a row without the origin's word.
    static let columnsWithoutWord = columns - Int32(wordColumns.count)

    /// Records `slices` as proven, replacing what was recorded for their paths, in transactions of
    /// ``rowsPerTransaction``: each all or none.
    public func record(_ slices: [ProvenSlice]) throws(StateError) {
        guard !slices.isEmpty else { return }
        for start in stride(from: 0, to: slices.count, by: Self.rowsPerTransaction) {
            try record(slices[start..<min(start + Self.rowsPerTransaction, slices.count)])
        }
    }

    private func record(_ slices: ArraySlice<ProvenSlice>) throws(StateError) {
        let withWord = slices.contains { !$0.validators.isEmpty || $0.confirmedAtMilliseconds != nil }
        let columns = withWord ? Self.columns : Self.columnsWithoutWord
        let many = try upsert(UpsertKind(rows: Self.rowsPerStatement, withWord: withWord))
        try db.transaction { () throws(StateError) in
            var k = slices.startIndex
            while slices.endIndex - k >= Self.rowsPerStatement {
                for row in 0..<Self.rowsPerStatement { Self.bind(slices[k + row], row: Int32(row), columns: columns, to: many) }
                try many.run()
                k += Self.rowsPerStatement
            }
            guard k < slices.endIndex else { return }
            let one = try upsert(UpsertKind(rows: 1, withWord: withWord))
            for s in slices[k...] {
                Self.bind(s, row: 0, columns: columns, to: one)
                try one.run()
            }
        }
    }

    private func upsert(_ kind: UpsertKind) throws(StateError) -> SQLiteDatabase.Statement {
        if let prepared = upserts[kind] { return prepared }
        let statement = try Self.upsert(rows: kind.rows, withWord: kind.withWord, in: db)
        upserts[kind] = statement
        return statement
    }

    private static func bind(_ s: ProvenSlice, row: Int32, columns: Int32, to statement: SQLiteDatabase.Statement) {
        let first = row * columns
        statement.bind(first + 1, s.path)
        statement.bind(first + 2, s.resource)
        statement.bind(first + 3, s.file.size)
        statement.bind(first + 4, ProvenDigests(s.digests).packed)
        statement.bind(first + 5, Int64(bitPattern: s.file.device))
        statement.bind(first + 6, Int64(bitPattern: s.file.inode))
        statement.bind(first + 7, s.file.mtimeNanoseconds)
        statement.bind(first + 8, s.file.ctimeNanoseconds)
        statement.bind(first + 9, s.seenAtNanoseconds)
        statement.bind(first + 10, s.provenAtMilliseconds)
        statement.bind(first + 11, s.fetchedAtMilliseconds)
        statement.bind(first + 12, s.isSettled ? Int64(1) : Int64(0))
        guard columns > columnsWithoutWord else { return }
        statement.bind(first + 13, s.validators.etag)
        statement.bind(first + 14, s.validators.lastModified)
        statement.bind(first + 15, s.validators.origin)
        statement.bind(first + 16, s.confirmedAtMilliseconds)
    }

    /// An upsert of `rows` rows. A proof by hashing (no fetch time) keeps the fetch time of the
    /// same file (device and inode), or of the same bytes (size and digests) in another file, as
    /// a copy or a restore makes; a path listed twice ends as its last row. The origin's word
    /// (validators, confirmation time) is kept by a proof that is not the origin's only while the
    /// file's identity is exactly the recorded one: a file changed in place is no longer the
    /// version the origin vouched for.
    /// Without the word (`withWord` false), the new row's are NULL, as the columns' default.
    private static func upsert(rows: Int, withWord: Bool, in db: SQLiteDatabase) throws(StateError) -> SQLiteDatabase.Statement {
        let row = "(" + Array(repeating: "?", count: Int(withWord ? columns : columnsWithoutWord)).joined(separator: ", ") + ")"
        let named = rowColumns.prefix(Int(withWord ? columns : columnsWithoutWord)).joined(separator: ", ")
        return try SQLiteDatabase.Statement(
            """
            INSERT INTO slices (\(named)) VALUES \(Array(repeating: row, count: rows).joined(separator: ", "))
            ON CONFLICT (path) DO UPDATE SET resource = excluded.resource, size = excluded.size, digests = excluded.digests,
                device = excluded.device, inode = excluded.inode, mtime_ns = excluded.mtime_ns, ctime_ns = excluded.ctime_ns,
                seen_at_ns = excluded.seen_at_ns, settled = excluded.settled, proven_at_ms = excluded.proven_at_ms,
                fetched_at_ms = CASE WHEN excluded.fetched_at_ms IS NOT NULL THEN excluded.fetched_at_ms
                    WHEN device = excluded.device AND inode = excluded.inode THEN fetched_at_ms
                    WHEN size = excluded.size AND digests = excluded.digests AND length(digests) > 0 THEN fetched_at_ms END,
                etag = CASE WHEN excluded.confirmed_at_ms IS NOT NULL THEN excluded.etag WHEN \(sameFile) THEN etag END,
                last_modified = CASE WHEN excluded.confirmed_at_ms IS NOT NULL THEN excluded.last_modified WHEN \(sameFile) THEN last_modified END,
                validator_origin = CASE WHEN excluded.confirmed_at_ms IS NOT NULL THEN excluded.validator_origin WHEN \(sameFile) THEN validator_origin END,
                confirmed_at_ms = CASE WHEN excluded.confirmed_at_ms IS NOT NULL THEN excluded.confirmed_at_ms WHEN \(sameFile) THEN confirmed_at_ms END
            """, in: db)
    }

    /// A row's file is the one `excluded` describes, as it was (in an upsert's conflict clause;
    /// the columns are those of the existing row).
    private static let sameFile =
        "device = excluded.device AND inode = excluded.inode AND size = excluded.size AND mtime_ns = excluded.mtime_ns AND ctime_ns = excluded.ctime_ns"

    /// The columns ``provenFile(in:)`` reads, path first.
    private var provenColumns: String {
        "path, size, digests, device, inode, mtime_ns, ctime_ns, seen_at_ns, proven_at_ms, fetched_at_ms, \(settledColumn), \(validatorColumns)"
    }

    /// The record in a row of ``provenColumns``.
    private static func provenFile(in row: SQLiteDatabase.Statement) -> ProvenFile {
        let file = FileIdentity(
            device: UInt64(bitPattern: row.integer(3)), inode: UInt64(bitPattern: row.integer(4)), size: row.integer(1),
            mtimeNanoseconds: row.integer(5), ctimeNanoseconds: row.integer(6))
        var proven = ProvenFile(
            file: file, digests: ProvenDigests(packed: row.blob(2)), seenAtNanoseconds: row.integer(7), settled: row.optionalInteger(10).map { $0 != 0 },
            provenAtMilliseconds: row.integer(8), fetchedAtMilliseconds: row.optionalInteger(9))
        // Sent back to a server as they are: what a store holds is held to what a response may carry.
        proven.validators = OriginValidators(
            etag: OriginValidators.sendable(row.optionalText(11)), lastModified: OriginValidators.sendable(row.optionalText(12)),
            origin: row.optionalText(13))
        proven.confirmedAtMilliseconds = row.optionalInteger(14)
        return proven
    }

    /// Every file recorded, by path relative to the output root.
    public func provenFiles() throws(StateError) -> [String: ProvenFile] {
        var files: [String: ProvenFile] = [:]
        files.reserveCapacity(Int(try db.integer("SELECT count(*) FROM slices") ?? 0))
        let statement = try SQLiteDatabase.Statement("SELECT \(provenColumns) FROM slices", in: db)
        try statement.forEachRow { row in files[row.text(0)] = Self.provenFile(in: row) }
        return files
    }

    /// What was recorded for `path`, if anything.
    func proven(path: String) throws(StateError) -> ProvenSlice? {
        let statement = try SQLiteDatabase.Statement("SELECT \(provenColumns), resource FROM slices WHERE path = ?1", in: db)
        let resourceColumn: Int32 = 15
        statement.bind(1, path)
        var found: ProvenSlice?
        try statement.forEachRow { row in
            let record = Self.provenFile(in: row)
            var slice = ProvenSlice(
                path: row.text(0), resource: row.text(resourceColumn), digests: record.digests.all, file: record.file,
                seenAtNanoseconds: record.seenAtNanoseconds, settled: record.isSettled, provenAtMilliseconds: record.provenAtMilliseconds,
                fetchedAtMilliseconds: record.fetchedAtMilliseconds)
            slice.validators = record.validators
            slice.confirmedAtMilliseconds = record.confirmedAtMilliseconds
            found = slice
        }
        return found
    }

    /// Forgets what was recorded for `paths` (their files are about to change, or went).
    public func forget(paths: [String]) throws(StateError) {
        guard !paths.isEmpty else { return }
        let statement: SQLiteDatabase.Statement
        if let deletion { statement = deletion } else { statement = try SQLiteDatabase.Statement("DELETE FROM slices WHERE path = ?1", in: db) }
        deletion = statement
        for start in stride(from: 0, to: paths.count, by: Self.rowsPerTransaction) {
            try db.transaction { () throws(StateError) in
                for p in paths[start..<min(start + Self.rowsPerTransaction, paths.count)] {
                    statement.bind(1, p)
                    try statement.run()
                }
            }
        }
    }

    // MARK: Runs

    public func recordRunStart(runID: String, command: String, startedAtMilliseconds: Int64) throws(StateError) {
        try db.query(
            "INSERT OR REPLACE INTO runs (run_id, command, started_at_ms) VALUES (?, ?, ?)",
            [.text(runID), .text(command), .integer(startedAtMilliseconds)])
    }

    public func recordRunEnd(
        runID: String, endedAtMilliseconds: Int64, stopReason: String?, exitStatus: Int32, counts: [(name: String, value: Int64)]
    ) throws(StateError) {
        try db.query(
            "UPDATE runs SET ended_at_ms = ?, stop_reason = ?, exit_status = ?, counts = ? WHERE run_id = ?",
            [
                .integer(endedAtMilliseconds), stopReason.map { .text($0) } ?? .null, .integer(Int64(exitStatus)),
                .text(counts.map { "\($0.name)=\($0.value)" }.joined(separator: " ")), .text(runID),
            ])
    }

    /// A run as recorded.
    public struct Run: Sendable, Hashable {
        public var runID: String
        public var command: String
        public var startedAtMilliseconds: Int64
        /// `nil` while the run goes on, or when it never ended (killed).
        public var endedAtMilliseconds: Int64?
        public var stopReason: String?
        public var exitStatus: Int32?
        /// The counts of its summary, in the order recorded.
        public var counts: [Count]

        /// One named count of a run's summary.
        public struct Count: Sendable, Hashable {
            public var name: String
            public var value: Int64

            public init(name: String, value: Int64) {
                self.name = name
                self.value = value
            }
        }

        public init(
            runID: String, command: String, startedAtMilliseconds: Int64, endedAtMilliseconds: Int64? = nil, stopReason: String? = nil,
            exitStatus: Int32? = nil, counts: [Count] = []
        ) {
            self.runID = runID
            self.command = command
            self.startedAtMilliseconds = startedAtMilliseconds
            self.endedAtMilliseconds = endedAtMilliseconds
            self.stopReason = stopReason
            self.exitStatus = exitStatus
            self.counts = counts
        }
    }

    /// The last `limit` runs, newest first.
    public func lastRuns(limit: Int) throws(StateError) -> [Run] {
        try db.query(
            """
            SELECT run_id, command, started_at_ms, ended_at_ms, stop_reason, exit_status, counts FROM runs
                ORDER BY started_at_ms DESC, run_id DESC LIMIT ?
            """,
            [.integer(Int64(max(0, limit)))]
        ).compactMap { row in
            guard row.count == 7, case .text(let id) = row[0], case .text(let command) = row[1], case .integer(let started) = row[2]
            else { return nil }
            var run = Run(runID: id, command: command, startedAtMilliseconds: started)
            if case .integer(let ended) = row[3] { run.endedAtMilliseconds = ended }
            if case .text(let reason) = row[4] { run.stopReason = reason }
            if case .integer(let status) = row[5] { run.exitStatus = Int32(truncatingIfNeeded: status) }
            if case .text(let counts) = row[6] { run.counts = Self.counts(counts) }
            return run
        }
    }

    /// `name=value` words; a word that is not one is left out.
    static func counts(_ text: String) -> [Run.Count] {
        text.split(separator: " ").compactMap { word in
            guard let equals = word.firstIndex(of: "="), let value = Int64(word[word.index(after: equals)...]) else { return nil }
            return Run.Count(name: String(word[..<equals]), value: value)
        }
    }
}
