import JobrunCore
import JobrunTestSupport
import Testing
@testable import JobrunState

/// Origins quarantined for wrong bytes, remembered in the mirror state: schema 4's table, added
/// to a store of schema 3 with its records kept.
@Suite struct QuarantineStateTests {
    /// A store as the version before made it (schema 3), with a slice and a deferral.
    /// A store in `dir`'s `mirror` made by the migrations up to `version`, and its database.
    static func store(ofVersion version: Int, in dir: TemporaryDirectory) throws -> (root: String, db: SQLiteDatabase) {
        let root = try dir.makeDirectory("mirror")
        _ = try dir.makeDirectory("mirror/.jobrun")
        let raw = try SQLiteDatabase(path: StateStore.path(forRoot: root))
        for migration in StateSchema.migrations.prefix(version) { try raw.execute(migration) }
        try raw.execute("PRAGMA user_version = \(version)")
        return (root, raw)
    }

    static func versionThreeStore(in dir: TemporaryDirectory) throws -> String {
        let (root, raw) = try store(ofVersion: 3, in: dir)
        try raw.execute(
            """
            INSERT INTO slices (path, resource, size, digests, device, inode, mtime_ns, ctime_ns, seen_at_ns, proven_at_ms, settled)
            VALUES ('r/a.bin', 'r', 1, x'', 1, 2, 3, 4, 5, 6, 1);
            INSERT INTO deferrals (resource, first_deferred_at_ms, reason) VALUES ('r', 7, 'metered');
            """)
        return root
    }

    @Test func aVersionThreeStoreGainsTheTableAndKeepsItsRecords() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let root = try Self.versionThreeStore(in: dir)
        // Read only (as `status` opens it), the old schema stays and has no quarantine to read.
        let reader = try StateStore(root: root, readOnly: true)
        #expect(try reader.schemaVersion() == 3 && reader.quarantinedOrigins(atMilliseconds: 0).isEmpty)
        let store = try StateStore(root: root)
        #expect(try store.schemaVersion() == StateSchema.currentVersion && StateSchema.currentVersion >= StateSchema.quarantineVersion)
        #expect(try store.proven(path: "r/a.bin")?.isSettled == true)
        #expect(try store.deferredResources()["r"]?.reason == "metered")
        #expect(try store.quarantinedOrigins(atMilliseconds: 0).isEmpty)
    }

    @Test func aQuarantineIsRememberedUntilItsEndAndTheLatestEndWins() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let store = try StateStore(root: try dir.makeDirectory("mirror"))
        try store.recordQuarantined(.init(origin: "http://a", untilMilliseconds: 2_000, reason: "ChecksumMismatch: one"), atMilliseconds: 1_000)
        try store.recordQuarantined(.init(origin: "http://b", untilMilliseconds: 1_500, reason: "SizeMismatch: two"), atMilliseconds: 1_000)
        // An earlier end does not shorten it; the reason is the latest.
        try store.recordQuarantined(.init(origin: "http://a", untilMilliseconds: 1_800, reason: "ChecksumMismatch: three"), atMilliseconds: 1_100)
        #expect(
            try store.quarantinedOrigins(atMilliseconds: 1_200)
                == [
                    "http://a": .init(origin: "http://a", untilMilliseconds: 2_000, reason: "ChecksumMismatch: three"),
                    "http://b": .init(origin: "http://b", untilMilliseconds: 1_500, reason: "SizeMismatch: two"),
                ])
        #expect(try store.quarantinedOrigins(atMilliseconds: 1_500).keys.sorted() == ["http://a"], "past its end it is not read")
        // A later record drops those past.
        try store.recordQuarantined(.init(origin: "http://c", untilMilliseconds: 9_000, reason: "x"), atMilliseconds: 1_600)
        #expect(try store.db.integer("SELECT count(*) FROM origin_quarantine") == 2)
    }
}
