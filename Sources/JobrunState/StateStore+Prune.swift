extension StateStore {
    /// A file the store records, as pruning reads it.
    public struct RecordedFile: Sendable, Hashable {
        /// Relative to the output root.
        public var path: String
        public var resource: String
        /// jobrun fetched it (a record of a file proven by hashing only says it found the file).
        public var wasFetched: Bool

        public init(path: String, resource: String, wasFetched: Bool) {
            self.path = path
            self.resource = resource
            self.wasFetched = wasFetched
        }
    }

    /// Every file recorded, sorted by path.
    public func recordedFiles() throws(StateError) -> [RecordedFile] {
        let statement = try SQLiteDatabase.Statement("SELECT path, resource, fetched_at_ms IS NOT NULL FROM slices ORDER BY path", in: db)
        var found: [RecordedFile] = []
        try statement.forEachRow { row in found.append(RecordedFile(path: row.text(0), resource: row.text(1), wasFetched: row.integer(2) != 0)) }
        return found
    }
}
