import JobrunCore

/// The state of one output root: a SQLite database in a folder jobrun owns there
/// (`.jobrun/state.sqlite`, WAL mode), with a versioned schema (``StateSchema``). Used from one
/// thread at a time.
public final class StateStore {
    /// The folder below the output root that jobrun owns (plans and `verify --extra` leave it out).
    public static let folderName = ".jobrun"
    public static let fileName = "state.sqlite"

    let db: SQLiteDatabase
    public var path: String { db.path }

    /// The database's path for the output root `root`.
    public static func path(forRoot root: String) -> String {
        (root.hasSuffix("/") ? root : root + "/") + folderName + "/" + fileName
    }

    /// Opens the state of the output root `root`, creating its folder and database as needed and
    /// bringing an older schema up to date.
    /// - Throws: a ``StateError``; the caller goes on without the store.
    public init(root: String) throws(StateError) {
        let folder = (root.hasSuffix("/") ? root : root + "/") + Self.folderName
        if mkdir(folder, 0o755) != 0, errno != EEXIST {
            throw .failed(path: folder, operation: "create the folder", detail: systemErrorText(errno))
        }
        db = try SQLiteDatabase(path: Self.path(forRoot: root))
        // WAL: readers (status, plan) never wait for a run that writes.
        guard try db.text("PRAGMA journal_mode = WAL")?.lowercased() == "wal" else {
            throw .failed(path: db.path, operation: "use write-ahead logging", detail: "the journal mode stayed another")
        }
        try StateSchema.migrate(db)
    }

    /// The schema version the database has now.
    public func schemaVersion() throws(StateError) -> Int {
        Int(try db.integer("PRAGMA user_version") ?? 0)
    }

    // MARK: Slices

    /// Records `slices` as proven, replacing what was recorded for their paths, in one
    /// transaction: all or none.
    public func record(_ slices: [ProvenSlice]) throws(StateError) {
        try transaction { () throws(StateError) in
            for s in slices {
                try db.query(
                    """
                    INSERT OR REPLACE INTO slices (path, identity, resource, size, digests, device, inode, mtime_ns, ctime_ns,
                        proven_at_ms, fetched, run_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                    [.text(s.path), .text(s.identity), .text(s.resource), .integer(s.size), .text(s.digests.joined(separator: " ")),
                     .integer(Int64(bitPattern: s.device)), .integer(Int64(bitPattern: s.inode)), .integer(s.mtimeNanoseconds),
                     .integer(s.ctimeNanoseconds), .integer(s.provenAtMilliseconds), .integer(s.fetched ? 1 : 0), .text(s.runID)])
            }
        }
    }

    /// What was recorded for `path`, if anything.
    public func proven(path: String) throws(StateError) -> ProvenSlice? {
        let rows = try db.query(
            "SELECT path, identity, resource, size, digests, device, inode, mtime_ns, ctime_ns, proven_at_ms, fetched, run_id FROM slices WHERE path = ?",
            [.text(path)])
        guard let row = rows.first, row.count == 12,
            case .text(let p) = row[0], case .text(let identity) = row[1], case .text(let resource) = row[2],
            case .integer(let size) = row[3], case .text(let digests) = row[4], case .integer(let device) = row[5],
            case .integer(let inode) = row[6], case .integer(let mtime) = row[7], case .integer(let ctime) = row[8],
            case .integer(let proven) = row[9], case .integer(let fetched) = row[10], case .text(let runID) = row[11]
        else { return nil }
        return ProvenSlice(
            path: p, identity: identity, resource: resource, size: size, digests: digests.split(separator: " ").map(String.init),
            device: UInt64(bitPattern: device), inode: UInt64(bitPattern: inode), mtimeNanoseconds: mtime, ctimeNanoseconds: ctime,
            provenAtMilliseconds: proven, fetched: fetched != 0, runID: runID)
    }

    /// Forgets what was recorded for `paths` (their files changed or went).
    public func forget(paths: [String]) throws(StateError) {
        try transaction { () throws(StateError) in
            for p in paths { try db.query("DELETE FROM slices WHERE path = ?", [.text(p)]) }
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
            [.integer(endedAtMilliseconds), stopReason.map { .text($0) } ?? .null, .integer(Int64(exitStatus)),
             .text(counts.map { "\($0.name)=\($0.value)" }.joined(separator: " ")), .text(runID)])
    }

    /// A run as recorded.
    public struct Run: Sendable, Hashable {
        public var runID: String
        public var command: String
        public var startedAtMilliseconds: Int64
        public var endedAtMilliseconds: Int64?
        public var stopReason: String?
        public var exitStatus: Int32?
    }

    /// The last `limit` runs, newest first.
    public func lastRuns(limit: Int) throws(StateError) -> [Run] {
        try db.query(
            "SELECT run_id, command, started_at_ms, ended_at_ms, stop_reason, exit_status FROM runs ORDER BY started_at_ms DESC, run_id DESC LIMIT ?",
            [.integer(Int64(limit))]
        ).compactMap { row in
            guard row.count == 6, case .text(let id) = row[0], case .text(let command) = row[1], case .integer(let started) = row[2]
            else { return nil }
            var run = Run(runID: id, command: command, startedAtMilliseconds: started)
            if case .integer(let ended) = row[3] { run.endedAtMilliseconds = ended }
            if case .text(let reason) = row[4] { run.stopReason = reason }
            if case .integer(let status) = row[5] { run.exitStatus = Int32(truncatingIfNeeded: status) }
            return run
        }
    }

    private func transaction(_ body: () throws(StateError) -> Void) throws(StateError) {
        try db.execute("BEGIN IMMEDIATE")
        do throws(StateError) {
            try body()
            try db.execute("COMMIT")
        } catch {
            try? db.execute("ROLLBACK")
            throw error
        }
    }
}

extension StateStore.Run {
    init(runID: String, command: String, startedAtMilliseconds: Int64) {
        self.init(runID: runID, command: command, startedAtMilliseconds: startedAtMilliseconds, endedAtMilliseconds: nil, stopReason: nil, exitStatus: nil)
    }
}
