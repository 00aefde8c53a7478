/// The state database's schema, by version (`PRAGMA user_version`). A database made by this
/// version opens in every later one (each migration is applied once, in order, in one
/// transaction); one made by a later version is refused, never rewritten.
enum StateSchema {
    /// Migration `k` takes a database from version `k` to `k + 1`.
    static let migrations: [String] = [
        // 1: slices proven (the file's identity at that moment, for quick checks), runs, and
        // room for the network policy's deferrals and the completion hooks' outbox.
        """
        CREATE TABLE slices (
            path TEXT PRIMARY KEY,          -- relative to the output root
            resource TEXT NOT NULL,
            size INTEGER NOT NULL,
            digests BLOB NOT NULL,          -- as proven: per digest its algorithm's code, then its bytes (ProvenDigests)
            device INTEGER NOT NULL,        -- the file's identity when it was proven
            inode INTEGER NOT NULL,
            mtime_ns INTEGER NOT NULL,
            ctime_ns INTEGER NOT NULL,
            seen_at_ns INTEGER NOT NULL,    -- when that identity was taken (wall clock)
            proven_at_ms INTEGER NOT NULL,  -- when its bytes were last proven: hashed, or fetched and verified
            fetched_at_ms INTEGER           -- when it was last fetched, if jobrun fetched it
        ) WITHOUT ROWID;
        CREATE TABLE runs (
            run_id TEXT PRIMARY KEY,
            command TEXT NOT NULL,
            started_at_ms INTEGER NOT NULL,
            ended_at_ms INTEGER,
            stop_reason TEXT,
            exit_status INTEGER,
            counts TEXT                     -- 'name=value' separated by spaces
        );
        CREATE TABLE deferrals (
            resource TEXT PRIMARY KEY,
            first_deferred_at_ms INTEGER NOT NULL,
            reason TEXT NOT NULL
        );
        CREATE TABLE hook_outbox (
            id INTEGER PRIMARY KEY,
            run_id TEXT NOT NULL,
            event TEXT NOT NULL,            -- the event as one JSON line
            created_at_ms INTEGER NOT NULL,
            delivered_at_ms INTEGER
        );
        """,
        // 2: what a due hook runs, so that a hook due when jobrun died runs on the next apply.
        """
        ALTER TABLE hook_outbox ADD COLUMN argv TEXT NOT NULL DEFAULT '[]';     -- the program and its arguments, a JSON array
        ALTER TABLE hook_outbox ADD COLUMN timeout_ms INTEGER NOT NULL DEFAULT 60000;
        ALTER TABLE hook_outbox ADD COLUMN on_hook_failure TEXT NOT NULL DEFAULT 'warn';
        CREATE INDEX hook_outbox_due ON hook_outbox (id) WHERE delivered_at_ms IS NULL;
        """,
        // 3: whether each identity was settled when it was seen, judged then by the clock the
        // file's times come from; NULL in the rows before, which the wall clock's 50 ms step judges.
        """
        ALTER TABLE slices ADD COLUMN settled INTEGER;   -- 1: a later write would have changed the identity
        """,
        // 4: origins quarantined for wrong bytes, passed over by slices with another URL until then.
        """
        CREATE TABLE origin_quarantine (
            origin TEXT PRIMARY KEY,        -- scheme://host[:port]
            until_ms INTEGER NOT NULL,      -- wall clock, milliseconds since the epoch
            reason TEXT NOT NULL            -- the last wrong answer
        );
        """,
        // 5: what the origin said identifies each fetched file's version, and when it last vouched
        // for the bytes, for `refresh:` (NULL in the rows before: such a file is revalidated whole).
        """
        ALTER TABLE slices ADD COLUMN etag TEXT;
        ALTER TABLE slices ADD COLUMN last_modified TEXT;
        ALTER TABLE slices ADD COLUMN validator_origin TEXT;   -- scheme://host[:port] that sent them
        ALTER TABLE slices ADD COLUMN confirmed_at_ms INTEGER;
        """,
        // 6: the stages of resources published atomically, so that a stopped run's stage is
        // continued and a switch a kill interrupted is finished.
        """
        CREATE TABLE publications (
            resource TEXT PRIMARY KEY,
            dest TEXT NOT NULL,             -- the published folder, relative to the output root
            stage_inode INTEGER NOT NULL,   -- the stage folder's: the published folder has it once switched
            filled INTEGER NOT NULL DEFAULT 0   -- 1: every published file is linked into the stage
        );
        """,
    ]

    static var currentVersion: Int { migrations.count }
    /// The first version whose `slices` have `settled`.
    static let settledVersion = 3
    /// The first version with `origin_quarantine`.
    static let quarantineVersion = 4
    /// The first version whose `slices` have `etag`, `last_modified`, `validator_origin` and `confirmed_at_ms`.
    static let validatorsVersion = 5
    /// The first version with `publications`.
    static let publicationsVersion = 6

    /// Each version's ``objectsByVersion``, fingerprinted (``fingerprint(_:)``): what a store
    /// opened is compared with, so that no command builds the schemas in memory at each start.
    /// `StateStoreTests` checks them against the migrations.
    static let fingerprints: [UInt64] = [
        0xCBF2_9CE4_8422_2325, 0x35D4_27AE_7142_3371, 0x77AF_3A9C_4D44_7B5E, 0xFC70_9B88_6D2C_CAEB, 0xA387_DC30_1D46_85CD, 0x1954_220E_6522_AE9A,
        0x5721_08BA_F5DD_05C6,
    ]

    /// FNV-1a over the objects' descriptions, each followed by a zero byte: it tells one version's
    /// schema from another's and from a damaged one (nobody crafts a collision in their own store).
    static func fingerprint(_ objects: [String]) -> UInt64 {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for object in objects {
            for byte in object.utf8 { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
            hash = (hash ^ 0) &* 0x0000_0100_0000_01B3
        }
        return hash
    }

    /// The objects (tables, indexes, …) of each version's schema, as SQLite describes them in
    /// `sqlite_master` (`type name table sql`, sorted), made by applying the migrations to an
    /// empty database in memory; `nil` if that failed.
    static func objectsByVersion() -> [[String]]? {
        guard let memory = try? SQLiteDatabase(path: ":memory:") else { return nil }
        var versions: [[String]] = []
        for version in 0...currentVersion {
            if version > 0 { guard (try? memory.execute(migrations[version - 1])) != nil else { return nil } }
            guard let found = try? objects(of: memory) else { return nil }
            versions.append(found)
        }
        return versions
    }

    /// `db`'s own objects (SQLite's internal ones aside), as ``objectsByVersion`` lists them.
    private static func objects(of db: SQLiteDatabase) throws(StateError) -> [String] {
        try db.query("SELECT type, name, tbl_name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite\\_%' ESCAPE '\\'").map { row in
            row.map { value in
                switch value {
                case .integer(let n): String(n)
                case .text(let text): normalized(text)
                case .null: ""
                }
            }.joined(separator: " ")
        }.sorted()
    }

    /// SQL as SQLite reads it: `sqlite_master` keeps each statement's text as it was written, so a
    /// store made by a build whose migrations were laid out otherwise must still compare equal.
    /// Comments go, whitespace runs become one space (none beside punctuation), and words outside
    /// quotes are lowercased (SQL keywords and identifiers ignore case); quoted text is kept.
    static func normalized(_ sql: String) -> String {
        var out: [UInt8] = []
        let bytes = Array(sql.utf8)
        var i = 0
        var pendingSpace = false
        func isPunctuation(_ c: UInt8) -> Bool { "(),;=<>+-*/|".utf8.contains(c) }
        while i < bytes.count {
            let c = bytes[i]
            if c == UInt8(ascii: "-"), i + 1 < bytes.count, bytes[i + 1] == UInt8(ascii: "-") {
                while i < bytes.count, bytes[i] != UInt8(ascii: "\n") { i += 1 }
                pendingSpace = true
                continue
            }
            if c == UInt8(ascii: "/"), i + 1 < bytes.count, bytes[i + 1] == UInt8(ascii: "*") {
                i += 2
                while i + 1 < bytes.count, !(bytes[i] == UInt8(ascii: "*") && bytes[i + 1] == UInt8(ascii: "/")) { i += 1 }
                i += 2
                pendingSpace = true
                continue
            }
            if c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D || c == 0x0C {
                pendingSpace = true
                i += 1
                continue
            }
            if pendingSpace, let last = out.last, !isPunctuation(last), !isPunctuation(c) { out.append(0x20) }
            pendingSpace = false
            if let close: UInt8 =
                switch c {
                case UInt8(ascii: "'"), UInt8(ascii: "\""), UInt8(ascii: "`"): c
                case UInt8(ascii: "["): UInt8(ascii: "]")
                default: nil
                }
            {
                // A quoted string or name, doubled quotes included, as it is.
                out.append(c)
                i += 1
                while i < bytes.count {
                    out.append(bytes[i])
                    i += 1
                    if bytes[i - 1] == close {
                        guard close != UInt8(ascii: "]"), i < bytes.count, bytes[i] == close else { break }
                        out.append(bytes[i])
                        i += 1
                    }
                }
                continue
            }
            out.append(c >= UInt8(ascii: "A") && c <= UInt8(ascii: "Z") ? c + 32 : c)
            i += 1
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The schema version of `db`, once its objects are found to be exactly that version's: a
    /// table dropped, one no version has, or a version that does not match the tables makes a
    /// database jobrun cannot use, however sound its bytes. `known` are the fingerprints compared
    /// with first (tests give others).
    /// - Throws: ``StateError/newerSchema(path:found:supported:)`` for a database of a later
    ///   version; ``StateError/corrupt(path:detail:)`` for one that is no version's.
    static func check(_ db: SQLiteDatabase, fingerprints known: [UInt64] = fingerprints) throws(StateError) -> Int {
        let found = try db.integer("PRAGMA user_version") ?? 0
        guard found <= Int64(currentVersion) else {
            throw .newerSchema(path: db.path, found: Int(found), supported: currentVersion)
        }
        guard found >= 0 else { throw .corrupt(path: db.path, detail: "state schema \(found) is no version") }
        let version = Int(found)
        guard version < known.count else { return version }
        let actual = try objects(of: db)
        guard fingerprint(actual) != known[version] else { return version }
        // The fingerprints were taken from one SQLite's text for the migrated tables: before
        // calling a store damaged, compare it with the schema this SQLite makes.
        guard let expected = objectsByVersion() else {
            throw .failed(path: db.path, operation: "check the schema", detail: "the migrations could not be applied in memory")
        }
        guard actual == expected[version] else { throw .corrupt(path: db.path, detail: "its tables are not those of state schema \(version)") }
        return version
    }

    /// Brings `db`, found at version `found` by ``check(_:)``, to ``currentVersion``.
    /// - Throws: what ``check(_:)`` throws; whatever SQLite reports otherwise (a failed migration
    ///   changes nothing).
    static func migrate(_ db: SQLiteDatabase, from found: Int) throws(StateError) {
        guard found < currentVersion else { return }
        try db.transaction { () throws(StateError) in
            // Checked again inside the write lock: another process may have migrated meanwhile.
            let now = try check(db)
            for version in now..<currentVersion { try db.execute(migrations[version]) }
            try db.execute("PRAGMA user_version = \(currentVersion)")
        }
    }
}
