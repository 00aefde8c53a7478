import JobrunCore
import JobrunManifest
import JobrunState
import JobrunSystem
import Testing
@testable import JobrunPlan

/// When a slice in place is asked of its origin again, and how: a pure rule over its `refresh:`,
/// the file as it is and its record, at made-up instants.
@Suite struct RevalidationTests {
    static let file = FileIdentity(device: 1, inode: 2, size: 10, mtimeNanoseconds: 3, ctimeNanoseconds: 4)
    static let hour: Int64 = 3_600_000

    static func record(confirmedAt: Int64?, validators: OriginValidators = OriginValidators(etag: "\"e\"")) -> ProvenFile {
        var record = ProvenFile(file: file, digests: [Digest](), seenAtNanoseconds: 0, settled: true, provenAtMilliseconds: 0, fetchedAtMilliseconds: 0)
        record.validators = validators
        record.confirmedAtMilliseconds = confirmedAt
        return record
    }

    @Test func theRule() {
        let now: Int64 = 100 * Self.hour
        let sixHours = RefreshPolicy(mode: .conditional, maxAge: .seconds(6 * 3_600))
        // never: nothing.
        #expect(Revalidation.due(.never, identity: Self.file, record: Self.record(confirmedAt: 0), now: now) == nil)
        // Confirmed within max_age: fresh; at max_age or past it: due, with the validators.
        #expect(Revalidation.due(sixHours, identity: Self.file, record: Self.record(confirmedAt: now - 5 * Self.hour), now: now) == nil)
        let due = Revalidation.due(sixHours, identity: Self.file, record: Self.record(confirmedAt: now - 6 * Self.hour), now: now)
        #expect(due?.validators == OriginValidators(etag: "\"e\"") && due?.isConditional == true && due?.file == Self.file)
        // A confirmation in the future (a clock set back) proves nothing.
        #expect(Revalidation.due(sixHours, identity: Self.file, record: Self.record(confirmedAt: now + Self.hour), now: now) != nil)
        // Without max_age: at every run.
        #expect(Revalidation.due(RefreshPolicy(mode: .conditional), identity: Self.file, record: Self.record(confirmedAt: now), now: now) != nil)
        // always: a whole GET, whatever the record says.
        let always = Revalidation.due(RefreshPolicy(mode: .always), identity: Self.file, record: Self.record(confirmedAt: 0), now: now)
        #expect(always?.isConditional == false && always?.mode == .always)
        // No record, or a file changed since its record: a whole GET, due whatever max_age says.
        #expect(Revalidation.due(sixHours, identity: Self.file, record: nil, now: now).map { !$0.isConditional && $0.file == nil } == true)
        var changed = Self.file
        changed.ctimeNanoseconds += 1
        #expect(Revalidation.due(sixHours, identity: changed, record: Self.record(confirmedAt: now), now: now).map { !$0.isConditional } == true)
        // A record without validators (an origin that sent none): a whole GET, its bytes compared.
        #expect(
            Revalidation.due(sixHours, identity: Self.file, record: Self.record(confirmedAt: nil, validators: OriginValidators()), now: now)?.isConditional
                == false)
    }

    @Test func aSliceWithADigestIsNeverRevalidatedAndASliceOverridesItsResource() throws {
        var settings = ResourceSettings()
        settings.refresh = RefreshPolicy(mode: .conditional)
        let here = SourceLocation(file: "m.yaml", line: 1, column: 1)
        let r = Resource(
            id: "r", location: here, manifestFile: "m.yaml", baseURL: "https://a.example/", outputRoot: "o", dest: "", dependsOn: [], checksum: nil,
            settings: settings,
            slices: [
                Slice(path: "a", location: here),
                Slice(path: "b", digests: [try #require(Digest(algorithm: .md5, hex: String(repeating: "0", count: 32)))], location: here),
                Slice(path: "c", refresh: RefreshPolicy(mode: .always), location: here),
                Slice(path: "d", refresh: .never, location: here),
            ])
        #expect(r.slices.map { r.refresh(of: $0).mode } == [.conditional, .never, .always, .never])
    }

    /// `status` counts a slice with `refresh` and a `max_age` proven only while its origin's last
    /// word on it is younger than that.
    @Test func statusCountsARefreshedSliceProvenOnlyWithinItsMaxAge() {
        let now: Int64 = 100 * Self.hour
        let policy = RefreshPolicy(mode: .conditional, maxAge: .seconds(3_600))
        func status(_ record: ProvenFile, _ refresh: RefreshPolicy = policy) -> SliceStatus {
            SliceStatus.classify(.ok(size: 10, digests: []), identity: Self.file, record: record, size: nil, digests: [], refresh: refresh, now: now)
        }
        #expect(status(Self.record(confirmedAt: now - Self.hour + 1)) == .proven)
        #expect(status(Self.record(confirmedAt: now - Self.hour)) == .stale)
        #expect(status(Self.record(confirmedAt: nil)) == .stale)
        // Without a max_age (asked at every run) or without refresh, the record alone proves it.
        #expect(status(Self.record(confirmedAt: nil), RefreshPolicy(mode: .conditional)) == .proven)
        #expect(status(Self.record(confirmedAt: nil), .never) == .proven)
    }
}
