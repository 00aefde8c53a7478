internal import CSQLite
import JobrunCore

/// One SQLite connection, used from one thread at a time. Only what the state needs: statements
/// with bound text and integers, rows read by column.
final class SQLiteDatabase {
    fileprivate var handle: OpaquePointer?
    let path: String

    /// Opens (creating, unless `readOnly`) `path`, which must hold no symbolic link, waiting up
    /// to `busyMilliseconds` when another connection holds it; messages name it `reportedAs`.
    init(path: String, readOnly: Bool = false, busyMilliseconds: Int32 = 1_000, reportedAs name: String? = nil) throws(StateError) {
        self.path = name ?? path
        var db: OpaquePointer?
        // NOFOLLOW (a link in any component is refused): a symbolic link planted in the mirror
        // must not redirect jobrun's writes.
        let access = readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE
        let flags = access | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_NOFOLLOW
        let rc = sqlite3_open_v2(path, &db, flags, nil)
        handle = db
        guard rc == SQLITE_OK else {
            let error = Self.error(rc, db, path: self.path, operation: "open")
            sqlite3_close_v2(db)
            handle = nil
            throw error
        }
        sqlite3_busy_timeout(db, busyMilliseconds)
        if !readOnly {
            // The log and its index stay when the last writer closes: a reader without write
            // access to the folder (`status` on a read-only mount) can only open them then.
            var persist: Int32 = 1
            sqlite3_file_control(db, "main", SQLITE_FCNTL_PERSIST_WAL, &persist)
        }
    }

    deinit { sqlite3_close_v2(handle) }

    /// Whether the database can only be read (opened so, or SQLite fell back to reading on a
    /// file it may not write).
    var isReadOnly: Bool { sqlite3_db_readonly(handle, "main") == 1 }

    /// Runs statements that return no rows.
    func execute(_ sql: String) throws(StateError) {
        var message: UnsafeMutablePointer<CChar>?
        let rc = sqlite3_exec(handle, sql, nil, nil, &message)
        defer { sqlite3_free(message) }
        guard rc == SQLITE_OK else {
            throw Self.error(rc, handle, path: path, operation: "run '\(sql.prefix(40))…'")
        }
    }

    /// Runs `body` in one write transaction (taken at once: `BEGIN IMMEDIATE`): all of it, or
    /// nothing when it throws.
    func transaction(_ body: () throws(StateError) -> Void) throws(StateError) {
        try execute("BEGIN IMMEDIATE")
        do throws(StateError) {
            try body()
            try execute("COMMIT")
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }

    /// A value bound to a statement's `?`.
    enum Value: Equatable {
        case integer(Int64)
        case text(String)
        case null
    }

    /// Runs one statement with `values` bound in order and returns its rows.
    @discardableResult
    func query(_ sql: String, _ values: [Value] = []) throws(StateError) -> [[Value]] {
        var statement: OpaquePointer?
        var rc = sqlite3_prepare_v2(handle, sql, -1, &statement, nil)
        guard rc == SQLITE_OK else { throw Self.error(rc, handle, path: path, operation: "prepare '\(sql.prefix(40))…'") }
        defer { sqlite3_finalize(statement) }
        for (i, value) in values.enumerated() {
            let index = Int32(i + 1)
            switch value {
            case .integer(let n): rc = sqlite3_bind_int64(statement, index, n)
            case .text(let s): rc = sqlite3_bind_text(statement, index, s, -1, Self.transient)
            case .null: rc = sqlite3_bind_null(statement, index)
            }
            guard rc == SQLITE_OK else { throw Self.error(rc, handle, path: path, operation: "bind") }
        }
        var rows: [[Value]] = []
        while true {
            rc = sqlite3_step(statement)
            if rc == SQLITE_DONE { return rows }
            guard rc == SQLITE_ROW else { throw Self.error(rc, handle, path: path, operation: "run '\(sql.prefix(40))…'") }
            var row: [Value] = []
            for c in 0..<sqlite3_column_count(statement) {
                switch sqlite3_column_type(statement, c) {
                case SQLITE_INTEGER: row.append(.integer(sqlite3_column_int64(statement, c)))
                case SQLITE_NULL: row.append(.null)
                default:
                    if let text = sqlite3_column_text(statement, c) {
                        row.append(.text(String(cString: text)))
                    } else {
                        row.append(.null)
                    }
                }
            }
            rows.append(row)
        }
    }

    /// A prepared statement, reused for many rows: bind, step, reset.
    final class Statement {
        private let handle: OpaquePointer?
        private unowned let db: SQLiteDatabase
        private let sql: String

        init(_ sql: String, in db: SQLiteDatabase) throws(StateError) {
            var statement: OpaquePointer?
            let rc = sqlite3_prepare_v3(db.handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
            guard rc == SQLITE_OK else {
                sqlite3_finalize(statement)
                throw SQLiteDatabase.error(rc, db.handle, path: db.path, operation: "prepare '\(sql.prefix(40))…'")
            }
            handle = statement
            self.db = db
            self.sql = sql
        }

        deinit { sqlite3_finalize(handle) }

        func bind(_ index: Int32, _ value: Int64) { sqlite3_bind_int64(handle, index, value) }
        func bind(_ index: Int32, _ value: Int64?) {
            if let value { sqlite3_bind_int64(handle, index, value) } else { sqlite3_bind_null(handle, index) }
        }
        func bind(_ index: Int32, _ value: String) {
            var value = value
            // The UTF-8 a native string holds, with its length: no C string made, no strlen.
            value.withUTF8 { bytes in
                bytes.withMemoryRebound(to: CChar.self) { chars in
                    guard let start = chars.baseAddress, !chars.isEmpty else {
                        _ = sqlite3_bind_text(handle, index, "", 0, SQLiteDatabase.transient)
                        return
                    }
                    _ = sqlite3_bind_text(handle, index, start, Int32(chars.count), SQLiteDatabase.transient)
                }
            }
        }
        func bind(_ index: Int32, _ value: String?) {
            if let value { bind(index, value) } else { sqlite3_bind_null(handle, index) }
        }
        func bind(_ index: Int32, _ value: [UInt8]) {
            value.withUnsafeBytes { bytes in
                // A zero-length blob, not NULL, for an empty array.
                _ = sqlite3_bind_blob(handle, index, bytes.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32(bytes.count), SQLiteDatabase.transient)
            }
        }

        /// Runs the bound statement to its end (rows, if any, are not read) and resets it.
        func run() throws(StateError) {
            try forEachRow { _ in }
        }

        /// Steps through the rows, handing each to `body` (read it with the column accessors
        /// meanwhile), then resets.
        func forEachRow(_ body: (Statement) -> Void) throws(StateError) {
            defer { sqlite3_reset(handle) }
            while true {
                let rc = sqlite3_step(handle)
                if rc == SQLITE_DONE { return }
                guard rc == SQLITE_ROW else {
                    throw SQLiteDatabase.error(rc, db.handle, path: db.path, operation: "run '\(sql.prefix(40))…'")
                }
                body(self)
            }
        }

        func integer(_ column: Int32) -> Int64 { sqlite3_column_int64(handle, column) }
        func optionalInteger(_ column: Int32) -> Int64? {
            sqlite3_column_type(handle, column) == SQLITE_NULL ? nil : sqlite3_column_int64(handle, column)
        }
        func blob(_ column: Int32) -> [UInt8] {
            let count = Int(sqlite3_column_bytes(handle, column))
            guard count > 0, let bytes = sqlite3_column_blob(handle, column) else { return [] }
            return Array(UnsafeRawBufferPointer(start: bytes, count: count))
        }
        func optionalText(_ column: Int32) -> String? {
            sqlite3_column_type(handle, column) == SQLITE_NULL ? nil : text(column)
        }
        func text(_ column: Int32) -> String {
            guard let bytes = sqlite3_column_text(handle, column) else { return "" }
            let count = Int(sqlite3_column_bytes(handle, column))
            return String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
        }
    }

    /// The one integer a query such as `PRAGMA user_version` returns.
    func integer(_ sql: String) throws(StateError) -> Int64? {
        if case .integer(let n)? = try query(sql).first?.first { return n }
        return nil
    }

    /// The one text a query such as `PRAGMA journal_mode` returns.
    func text(_ sql: String) throws(StateError) -> String? {
        if case .text(let s)? = try query(sql).first?.first { return s }
        return nil
    }

    /// SQLite copies bound text at once (SQLITE_TRANSIENT).
    fileprivate static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    static func error(_ rc: Int32, _ db: OpaquePointer?, path: String, operation: String) -> StateError {
        let detail = db.flatMap { sqlite3_errmsg($0) }.map { String(cString: $0) } ?? String(cString: sqlite3_errstr(rc))
        switch rc & 0xFF {
        case SQLITE_CORRUPT, SQLITE_NOTADB: return .corrupt(path: path, detail: detail)
        case SQLITE_BUSY, SQLITE_LOCKED: return .locked(path: path)
        default: return .failed(path: path, operation: operation, detail: detail)
        }
    }
}
