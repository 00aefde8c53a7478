public import JobrunCore
public import JobrunSystem

extension StateStore {
    /// An origin's word that a file in place is still its current version (a 304 to a
    /// conditional request): the file is the one recorded with `file`'s identity.
    public struct Confirmation: Sendable, Hashable {
        /// Relative to the output root.
        public var path: String
        /// The identity the record had when the request was made: a record that changed since
        /// (another file took the name) is left as it is.
        public var file: FileIdentity
        /// Validators the 304 carried; the recorded ones stay where it carried none.
        public var validators: OriginValidators
        public var atMilliseconds: Int64

        public init(path: String, file: FileIdentity, validators: OriginValidators, atMilliseconds: Int64) {
            self.path = path
            self.file = file
            self.validators = validators
            self.atMilliseconds = atMilliseconds
        }
    }

    /// Records `confirmations`, each only where its path's record still has its identity, in
    /// transactions of ``rowsPerTransaction``.
    public func confirm(_ confirmations: [Confirmation]) throws(StateError) {
        guard !confirmations.isEmpty else { return }
        let statement = try SQLiteDatabase.Statement(
            """
            UPDATE slices SET confirmed_at_ms = ?1, etag = coalesce(?2, etag), last_modified = coalesce(?3, last_modified),
                validator_origin = coalesce(?10, validator_origin)
            WHERE path = ?4 AND device = ?5 AND inode = ?6 AND size = ?7 AND mtime_ns = ?8 AND ctime_ns = ?9
            """, in: db)
        for start in stride(from: 0, to: confirmations.count, by: Self.rowsPerTransaction) {
            try db.transaction { () throws(StateError) in
                for c in confirmations[start..<min(start + Self.rowsPerTransaction, confirmations.count)] {
                    statement.bind(1, c.atMilliseconds)
                    statement.bind(2, c.validators.etag)
                    statement.bind(3, c.validators.lastModified)
                    statement.bind(4, c.path)
                    statement.bind(5, Int64(bitPattern: c.file.device))
                    statement.bind(6, Int64(bitPattern: c.file.inode))
                    statement.bind(7, c.file.size)
                    statement.bind(8, c.file.mtimeNanoseconds)
                    statement.bind(9, c.file.ctimeNanoseconds)
                    statement.bind(10, c.validators.origin)
                    try statement.run()
                }
            }
        }
    }
}
