import JobrunCore
import Testing
@testable import JobrunManifest
@testable import JobrunOutcome

/// What a run's result says about itself: the counts of the summary line, success (exit 0) and
/// whether a resource is complete — every status counted once.
@Suite struct ApplyResultTests {
    static let digest = Digest(algorithm: .md5, bytes: Array(repeating: 7, count: 16))

    /// Resource `id` with a slice per status; each declares a digest unless `integrities` says
    /// otherwise (one per slice).
    static func entry(_ id: String, _ statuses: [(SliceOutcome.Status, Int64)], integrities: [SliceIntegrity]? = nil) -> ApplyResult.Entry {
        let here = SourceLocation(file: "m.yaml", line: 1, column: 1)
        let resource = Resource(
            id: id, location: here, manifestFile: "m.yaml", baseURL: "http://h/", outputRoot: "mirror", dest: id,
            dependsOn: [], checksum: nil, settings: ResourceSettings(),
            slices: statuses.indices.map { i in
                switch integrities?[i] ?? .digest {
                case .digest: Slice(path: "s\(i)", digests: [digest], location: here)
                case .sizeOnly: Slice(path: "s\(i)", size: 10, location: here)
                case .unverified: Slice(path: "s\(i)", location: here)
                }
            })
        return ApplyResult.Entry(
            resource: resource,
            outcomes: statuses.map { SliceOutcome(status: $0.0, bytesTransferred: $0.1, displayURL: "http://h/s") })
    }

    @Test func countsEveryStatusAndOnlyFetchedAndResumedBytes() {
        let result = ApplyResult(
            entries: [
                Self.entry("a", [(.fetched, 100), (.resumed, 50), (.upToDate, 0), (.fetched, 1_000)]),
                Self.entry("b", [(.failed, 7), (.skipped, 0), (.deferred, 0), (.upToDate, 0)]),
            ],
            stopReason: nil, elapsed: .seconds(1))
        var expected = ApplyResult.Counts()
        expected.fetched = 2
        expected.fetchedBytes = 1_150  // a failed slice's 7 bytes are not "fetched"
        expected.resumed = 1
        expected.upToDate = 2
        expected.failed = 1
        expected.skipped = 1
        expected.deferred = 1
        #expect(result.counts == expected)
        #expect(result.summaryLine == "Apply failed! Slices: 2 fetched (1.1 KiB), 1 resumed, 2 up to date, 1 failed, 1 deferred.")
        #expect(result.entries[0].isComplete)
        #expect(!result.entries[1].isComplete)
        #expect(!result.isSuccess)
    }

    /// Slices in place (fetched, resumed, up to date) without a digest are counted by kind and
    /// add the clause; failed, skipped and deferred ones without a digest are not in place.
    @Test func countsPassedSlicesWithoutDigests() {
        let result = ApplyResult(
            entries: [
                Self.entry("a", [(.fetched, 1), (.resumed, 2), (.upToDate, 0), (.fetched, 4)], integrities: [.sizeOnly, .unverified, .unverified, .digest]),
                Self.entry("b", [(.failed, 0), (.skipped, 0), (.deferred, 0), (.upToDate, 0)], integrities: [.unverified, .sizeOnly, .unverified, .sizeOnly]),
            ],
            stopReason: nil, elapsed: .zero)
        #expect(result.counts.withoutDigests.sizeOnly == 2 && result.counts.withoutDigests.unverified == 2)
        #expect(
            result.summaryLine
                == "Apply failed! Slices: 2 fetched (7 B), 1 resumed, 2 up to date, 1 failed, 1 deferred; 4 without digests (2 size only, 2 unverified).")
        // Every slice with a digest: the line is what it always was.
        let proven = ApplyResult(entries: [Self.entry("c", [(.fetched, 1)])], stopReason: nil, elapsed: .zero)
        #expect(proven.summaryLine == "Apply complete! Slices: 1 fetched (1 B), 0 resumed, 0 up to date, 0 failed, 0 deferred.")
    }

    @Test func successNeedsNoFailedOrSkippedSliceAndNoInterruption() {
        let clean = [Self.entry("a", [(.fetched, 1), (.upToDate, 0), (.resumed, 2)])]
        #expect(ApplyResult(entries: clean, stopReason: nil, elapsed: .zero).isSuccess)
        #expect(!ApplyResult(entries: clean, stopReason: .signal(2), elapsed: .zero).isSuccess)
        #expect(!ApplyResult(entries: clean + [Self.entry("b", [(.upToDate, 0), (.skipped, 0)])], stopReason: nil, elapsed: .zero).isSuccess)
        #expect(!ApplyResult(entries: clean + [Self.entry("c", [(.failed, 0)])], stopReason: nil, elapsed: .zero).isSuccess)
        // Deferred slices are held back by policy, not failures: the run succeeds, the resource is not complete.
        let deferred = ApplyResult(entries: [Self.entry("d", [(.deferred, 0), (.fetched, 1)])], stopReason: nil, elapsed: .zero)
        #expect(deferred.isSuccess)
        #expect(!deferred.entries[0].isComplete)
        #expect(ApplyResult(entries: [], stopReason: nil, elapsed: .zero).isSuccess)
    }

    /// The last line's first word follows the exit status: `complete` exactly when the run
    /// succeeds, `interrupted` whenever a signal stopped it (failures or not), `failed` otherwise.
    @Test(
        arguments: [
            ([SliceOutcome.Status.fetched, .upToDate, .resumed], nil, "complete"),
            ([.fetched, .deferred], nil, "complete"),
            ([], nil, "complete"),
            ([.fetched, .failed], nil, "failed"),
            ([.failed, .skipped], nil, "failed"),
            ([.upToDate, .skipped], nil, "failed"),
            ([.fetched, .upToDate], 2, "interrupted"),
            ([.fetched, .skipped], 15, "interrupted"),
            ([.failed, .skipped], 2, "interrupted"),
        ] as [([SliceOutcome.Status], Int32?, String)])
    func theLastLineSaysHowTheRunEnded(statuses: [SliceOutcome.Status], signal: Int32?, word: String) {
        let result = ApplyResult(entries: [Self.entry("a", statuses.map { ($0, 0) })], stopReason: signal.map(StopReason.signal), elapsed: .zero)
        var c = ApplyResult.Counts()
        for s in statuses { s.count(into: &c, bytes: 0) }
        let counts = "Slices: \(c.fetched) fetched (0 B), \(c.resumed) resumed, \(c.upToDate) up to date, \(c.failed) failed, \(c.deferred) deferred."
        #expect(result.summaryLine == "Apply \(word)! \(counts)")
        #expect((word == "complete") == result.isSuccess)
        switch result.ending {
        case .complete: #expect(word == "complete")
        case .failed: #expect(word == "failed")
        case .stopped(let reason): #expect(word == "interrupted" && reason == .signal(signal ?? 0))
        }
    }
}
