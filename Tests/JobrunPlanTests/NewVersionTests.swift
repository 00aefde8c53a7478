import JobrunCore
import JobrunFiles
import JobrunState
import JobrunSystem
import Testing

@testable import JobrunPlan

/// A file that differs from its slice because the slice lists another version is fetched as
/// new; one that changed on disk is repaired.
@Suite struct NewVersionTests {
    static let file = FileIdentity(device: 1, inode: 2, size: 10, mtimeNanoseconds: 3, ctimeNanoseconds: 4)
    static let listed = Digest(algorithm: .sha256, bytes: Array(repeating: 0xAA, count: 32))

    static let inPlace = Digest(algorithm: .sha256, bytes: Array(repeating: 0xBB, count: 32))

    static func record(fetched: Bool) -> ProvenFile {
        ProvenFile(file: file, digests: [inPlace], seenAtNanoseconds: 0, settled: true, provenAtMilliseconds: 0, fetchedAtMilliseconds: fetched ? 0 : nil)
    }

    static func seen(_ identity: FileIdentity?) -> FileObservation { FileObservation(identity: identity) }

    @Test func theFileJobrunFetchedAndRecordedIsAnOlderVersion() {
        let check = FileCheck.digestMismatch(expected: Self.listed, actual: [Self.inPlace], size: 10)
        let decision = Planner.newVersion(check, observed: Self.seen(Self.file), record: Self.record(fetched: true))
        #expect(decision?.action == .fetch)
        #expect(decision?.reason == "another version is listed: sha256 \(String(repeating: "aa", count: 32))")
        #expect(
            Planner.newVersion(.sizeMismatch(expected: 12, actual: 10), observed: Self.seen(Self.file), record: Self.record(fetched: true))?.action == .fetch)
    }

    @Test func aFileChangedOnDiskOrNeverFetchedIsRepaired() {
        let check = FileCheck.digestMismatch(expected: Self.listed, actual: [Self.inPlace], size: 10)
        var changed = Self.file
        changed.mtimeNanoseconds += 1
        #expect(Planner.newVersion(check, observed: Self.seen(changed), record: Self.record(fetched: true)) == nil)
        #expect(Planner.newVersion(check, observed: Self.seen(Self.file), record: Self.record(fetched: false)) == nil)
        #expect(Planner.newVersion(check, observed: Self.seen(Self.file), record: nil) == nil)
        #expect(Planner.newVersion(check, observed: Self.seen(nil), record: Self.record(fetched: true)) == nil)
        // Its metadata as recorded, its bytes not: rotted in place.
        let rotted = FileCheck.digestMismatch(expected: Self.listed, actual: [Self.listed], size: 10)
        #expect(Planner.newVersion(rotted, observed: Self.seen(Self.file), record: Self.record(fetched: true)) == nil)
    }
}
