public import JobrunSystem

extension StateStore {
    /// A file the store records, as pruning reads it.
    public struct RecordedFile: Sendable, Hashable {
        /// Relative to the output root.
        public var path: String
        public var resource: String
        /// jobrun fetched it (a record of a file proven by hashing only says it found the file).
        public var wasFetched: Bool
        /// The file as it was recorded: one that is no longer that file is not the one jobrun wrote.
        public var file: FileIdentity

        public init(path: String, resource: String, wasFetched: Bool, file: FileIdentity) {
            self.path = path
            self.resource = resource
            self.wasFetched = wasFetched
            self.file = file
        }
    }

    /// Every file recorded, sorted by path.
    public func recordedFiles() throws(StateError) -> [RecordedFile] {
        let statement = try SQLiteDatabase.Statement(
            "SELECT path, resource, fetched_at_ms IS NOT NULL, device, inode, size, mtime_ns, ctime_ns FROM slices ORDER BY path", in: db)
        var found: [RecordedFile] = []
        try statement.forEachRow { row in
            let file = FileIdentity(
                device: UInt64(bitPattern: row.integer(3)), inode: UInt64(bitPattern: row.integer(4)), size: row.integer(5), mtimeNanoseconds: row.integer(6),
                ctimeNanoseconds: row.integer(7))
            found.append(RecordedFile(path: row.text(0), resource: row.text(1), wasFetched: row.integer(2) != 0, file: file))
        }
        return found
    }
}
