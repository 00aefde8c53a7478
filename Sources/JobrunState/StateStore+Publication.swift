public import JobrunSystem

extension StateStore {
    /// A resource's stage as the store remembers it (`publish: atomic`).
    public struct Stage: Sendable, Hashable {
        public var resource: String
        /// The published folder it was made for, relative to the output root.
        public var dest: String
        /// The stage folder's inode: the published folder has it once the switch happened.
        public var inode: UInt64
        /// Every file of the published version is linked into it.
        public var isFilled: Bool

        public init(resource: String, dest: String, inode: UInt64, isFilled: Bool) {
            self.resource = resource
            self.dest = dest
            self.inode = inode
            self.isFilled = isFilled
        }
    }

    /// A file whose link count changed (linked into a stage, or a link to it removed), as
    /// ``adoptLinks(_:of:dest:stage:)`` and ``retime(_:dest:)`` take it.
    public struct StageLink: Sendable, Hashable {
        /// Below the published folder (and the stage).
        public var path: String
        public var before: FileIdentity
        public var after: FileIdentity

        public init(path: String, before: FileIdentity, after: FileIdentity) {
            self.path = path
            self.before = before
            self.after = after
        }
    }

    /// Every stage remembered, by resource.
    public func stages() throws(StateError) -> [String: Stage] {
        var found: [String: Stage] = [:]
        guard hasPublications else { return found }
        for row in try db.query("SELECT resource, dest, stage_inode, filled FROM publications") {
            guard row.count == 4, case .text(let resource) = row[0], case .text(let dest) = row[1], case .integer(let inode) = row[2],
                case .integer(let filled) = row[3]
            else { continue }
            found[resource] = Stage(resource: resource, dest: dest, inode: UInt64(bitPattern: inode), isFilled: filled != 0)
        }
        return found
    }

    /// Remembers `stage` (made, not yet filled), replacing what was remembered for its resource.
    public func remember(_ stage: Stage) throws(StateError) {
        try db.query(
            "INSERT OR REPLACE INTO publications (resource, dest, stage_inode, filled) VALUES (?, ?, ?, ?)",
            [.text(stage.resource), .text(stage.dest), .integer(Int64(bitPattern: stage.inode)), .integer(stage.isFilled ? 1 : 0)])
    }

    /// After the published folder `dest`'s files were linked into `stage` (both relative to the
    /// root), in one transaction: each record of a linked file that proved it as it was before
    /// its link takes its new change time (nothing else of it changed), every record below `dest`
    /// is copied below `stage`, and the stage of `resource` is remembered as filled.
    public func adoptLinks(_ links: [StageLink], of resource: String, dest: String, stage: String) throws(StateError) {
        try db.transaction { () throws(StateError) in
            try retimeRows(links, dest: dest)
            let columns = Self.rowColumns.dropFirst().joined(separator: ", ")
            // substr counts characters: the prefix's length is SQLite's, whatever the encoding.
            try db.query(
                """
                INSERT OR REPLACE INTO slices (path, \(columns))
                SELECT ?1 || substr(path, length(?2) + 1), \(columns) FROM slices WHERE path >= ?2 AND path < ?3
                """,
                [.text(stage + "/"), .text(dest + "/"), .text(dest + "0")])
            try db.query("UPDATE publications SET filled = 1 WHERE resource = ?", [.text(resource)])
        }
    }

    /// After links to files of the published folder `dest` were removed (a replaced version or a
    /// stage gone), each record of such a file that still proves it as it was takes the change
    /// time the removal gave it: nothing else of it changed.
    public func retime(_ links: [StageLink], dest: String) throws(StateError) {
        guard !links.isEmpty else { return }
        try db.transaction { () throws(StateError) in try retimeRows(links, dest: dest) }
    }

    private func retimeRows(_ links: [StageLink], dest: String) throws(StateError) {
        let update = try SQLiteDatabase.Statement(
            """
            UPDATE slices SET ctime_ns = ?1 WHERE path = ?2 AND device = ?3 AND inode = ?4 AND size = ?5 AND mtime_ns = ?6 AND ctime_ns = ?7
            """, in: db)
        for link in links where link.after.isSameWrite(as: link.before) {
            update.bind(1, link.after.ctimeNanoseconds)
            update.bind(2, dest + "/" + link.path)
            update.bind(3, Int64(bitPattern: link.before.device))
            update.bind(4, Int64(bitPattern: link.before.inode))
            update.bind(5, link.before.size)
            update.bind(6, link.before.mtimeNanoseconds)
            update.bind(7, link.before.ctimeNanoseconds)
            try update.run()
        }
    }

    /// The identities recorded below the folder `dest`, by path below it.
    public func identities(under dest: String) throws(StateError) -> [String: FileIdentity] {
        let statement = try SQLiteDatabase.Statement(
            "SELECT substr(path, length(?1) + 1), device, inode, size, mtime_ns, ctime_ns FROM slices WHERE path >= ?1 AND path < ?2", in: db)
        statement.bind(1, dest + "/")
        statement.bind(2, dest + "0")
        var found: [String: FileIdentity] = [:]
        try statement.forEachRow { row in
            found[row.text(0)] = FileIdentity(
                device: UInt64(bitPattern: row.integer(1)), inode: UInt64(bitPattern: row.integer(2)), size: row.integer(3),
                mtimeNanoseconds: row.integer(4), ctimeNanoseconds: row.integer(5))
        }
        return found
    }

    /// After `stage` took `dest`'s place, in one transaction: the records below `dest` (the
    /// replaced version's) go, those below `stage` move below `dest`, and the stage of
    /// `resource` is forgotten.
    public func finishPublication(of resource: String, dest: String, stage: String) throws(StateError) {
        try db.transaction { () throws(StateError) in
            try db.query("DELETE FROM slices WHERE path >= ? AND path < ?", [.text(dest + "/"), .text(dest + "0")])
            try db.query(
                "UPDATE slices SET path = ?1 || substr(path, length(?2) + 1) WHERE path >= ?2 AND path < ?3",
                [.text(dest + "/"), .text(stage + "/"), .text(stage + "0")])
            try db.query("DELETE FROM publications WHERE resource = ?", [.text(resource)])
        }
    }

    /// Forgets the stage of `resource` and the records below `stage` (a stage removed unpublished).
    public func forgetStage(of resource: String, stage: String) throws(StateError) {
        try db.transaction { () throws(StateError) in
            try db.query("DELETE FROM slices WHERE path >= ? AND path < ?", [.text(stage + "/"), .text(stage + "0")])
            try db.query("DELETE FROM publications WHERE resource = ?", [.text(resource)])
        }
    }
}
