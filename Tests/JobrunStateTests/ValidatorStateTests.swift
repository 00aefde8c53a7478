import Foundation
import JobrunCore
import JobrunSystem
import JobrunTestSupport
import Testing
@testable import JobrunState

/// Schema 5: what the origin said identifies each file's version, and when it last vouched for
/// the bytes; kept by a proof that is not the origin's only while the file is exactly as recorded.
@Suite struct ValidatorStateTests {
    static let validators = OriginValidators(etag: "\"v1\"", lastModified: "Tue, 01 Dec 2026 10:00:00 GMT")

    static func fetched(_ path: String, inode: UInt64 = 7, ctime: Int64 = 5, at: Int64 = 1_000) -> ProvenSlice {
        var slice = ProvenSlice(
            path: path, resource: "r", digests: [],
            file: FileIdentity(device: 1, inode: inode, size: 10, mtimeNanoseconds: 4, ctimeNanoseconds: ctime),
            seenAtNanoseconds: 1_000_000_000_000, provenAtMilliseconds: at, fetchedAtMilliseconds: at)
        slice.validators = validators
        slice.confirmedAtMilliseconds = at
        return slice
    }

    /// A proof by a look (no fetch, no confirmation), as `plan` records a file without a digest.
    static func looked(_ fetched: ProvenSlice, ctime: Int64) -> ProvenSlice {
        var slice = fetched
        slice.file.ctimeNanoseconds = ctime
        slice.fetchedAtMilliseconds = nil
        slice.validators = OriginValidators()
        slice.confirmedAtMilliseconds = nil
        slice.provenAtMilliseconds = 2_000
        return slice
    }

    @Test func aFetchRecordsItsValidatorsAndALookKeepsThemOnlyForTheSameFile() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let store = try StateStore(root: try dir.makeDirectory("mirror"))
        let a = Self.fetched("a"), b = Self.fetched("b", inode: 8)
        try store.record([a, b])
        #expect(try store.proven(path: "a")?.validators == Self.validators && store.proven(path: "a")?.confirmedAtMilliseconds == 1_000)
        // The same identity: the origin's word stands. Another change time: a file changed in
        // place is not the version the origin vouched for.
        try store.record([Self.looked(a, ctime: 5), Self.looked(b, ctime: 6)])
        #expect(try store.proven(path: "a")?.validators == Self.validators && store.proven(path: "a")?.confirmedAtMilliseconds == 1_000)
        #expect(try store.proven(path: "b")?.validators.isEmpty == true && store.proven(path: "b")?.confirmedAtMilliseconds == nil)
        #expect(try store.provenFiles()["a"]?.validators == Self.validators)
    }

    @Test func aConfirmationRenewsOnlyARecordThatStillHasItsIdentity() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let store = try StateStore(root: try dir.makeDirectory("mirror"))
        let a = Self.fetched("a"), b = Self.fetched("b", inode: 8)
        try store.record([a, b])
        let newer = OriginValidators(etag: "\"v1-gz\"")
        try store.confirm([
            StateStore.Confirmation(path: "a", file: a.file, validators: newer, atMilliseconds: 5_000),
            // Made for another identity than the record's: another file took the name since.
            StateStore.Confirmation(path: "b", file: a.file, validators: newer, atMilliseconds: 5_000),
            StateStore.Confirmation(path: "gone", file: a.file, validators: newer, atMilliseconds: 5_000),
        ])
        let renewed = try #require(try store.proven(path: "a"))
        // A 304 that names only an ETag keeps the recorded Last-Modified.
        #expect(
            renewed.confirmedAtMilliseconds == 5_000 && renewed.validators == OriginValidators(etag: "\"v1-gz\"", lastModified: Self.validators.lastModified))
        #expect(renewed.fetchedAtMilliseconds == 1_000)
        #expect(try store.proven(path: "b")?.confirmedAtMilliseconds == 1_000)
        #expect(try store.proven(path: "gone") == nil)
    }

    @Test func aVersionFourStoreGainsTheColumnsAndKeepsItsRecords() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let (root, raw) = try QuarantineStateTests.store(ofVersion: 4, in: dir)
        try raw.execute(
            """
            INSERT INTO slices (path, resource, size, digests, device, inode, mtime_ns, ctime_ns, seen_at_ns, proven_at_ms, fetched_at_ms, settled)
            VALUES ('r/a.bin', 'r', 1, x'', 1, 2, 3, 4, 5, 6, 6, 1);
            """)
        // Read only (as `status` opens it), the old schema stays and reads no validators.
        let reader = try StateStore(root: root, readOnly: true)
        #expect(try reader.schemaVersion() == 4 && reader.provenFiles()["r/a.bin"]?.validators.isEmpty == true)
        let store = try StateStore(root: root)
        #expect(try store.schemaVersion() == StateSchema.currentVersion && StateSchema.currentVersion >= StateSchema.validatorsVersion)
        let record = try #require(try store.proven(path: "r/a.bin"))
        #expect(record.fetchedAtMilliseconds == 6 && record.validators.isEmpty && record.confirmedAtMilliseconds == nil)
    }
}
