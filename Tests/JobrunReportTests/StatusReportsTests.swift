import Foundation
import JobrunCore
import JobrunManifest
@testable import JobrunPlan
import JobrunState
import JobrunTestSupport
import JobrunFiles
import Testing
@testable import JobrunReport
import JobrunSystem

/// `jobrun status` as people and programs read it, on a fixed clock: a line per resource with
/// its counts and times, the runs, the stable summary line, and the versioned JSON document.
@Suite struct StatusReportsTests {
    /// 2026-11-25T12:00:00Z.
    static let now: Int64 = 1_795_608_000_000
    static let nineOClock: Int64 = 1_795_597_200_000  // 2026-11-25T09:00:00Z
    static let fiveDaysAgo: Int64 = 1_795_156_200_000  // 2026-11-20T06:30:00Z
    static let file = FileIdentity(device: 1, inode: 2, size: 3, mtimeNanoseconds: 4, ctimeNanoseconds: 5)
    static let sha = Digest(algorithm: .sha256, hex: String(repeating: "ab", count: 32))!

    static let runs = [
        StateStore.Run(
            runID: "r2", command: "apply", startedAtMilliseconds: 1_795_607_880_000, endedAtMilliseconds: 1_795_607_958_500, exitStatus: 0,
            counts: [.init(name: "fetched", value: 2), .init(name: "up_to_date", value: 3), .init(name: "failed", value: 0)]),
        StateStore.Run(runID: "r1", command: "apply", startedAtMilliseconds: nineOClock),
    ]

    /// `media` (declared first): proven, changed, missing with a partial to resume; `docs`: both
    /// proven, one five days ago.
    static func status(in dir: TemporaryDirectory, maxAge: Int64? = nil, runs: [StateStore.Run] = runs) throws -> MirrorStatus {
        _ = try dir.write(
            file: "m.yaml",
            contents: """
                version: 1
                defaults:
                  output: ./mirror
                resources:
                  - id: media
                    base_url: https://h/m/
                    slices:
                      - {path: a.ts, size: 3, sha256: \(sha.hex)}
                      - {path: b.ts, size: 3, sha256: \(sha.hex)}
                      - {path: c.ts, size: 2000000}
                  - id: docs
                    base_url: https://h/d/
                    slices:
                      - {path: x.txt, size: 3}
                      - {path: y.txt, size: 3}

                """)
        var options = ManifestLoader.Options()
        options.currentDirectory = dir.path
        let manifest = try #require(ManifestLoader.load(paths: [dir.path("m.yaml")], options: options).manifest)
        let root = try #require(manifest.resources.first?.outputRoot)
        // Written in place since its proof, its modification time put back.
        let changed = FileIdentity(device: 1, inode: 2, size: 3, mtimeNanoseconds: 4, ctimeNanoseconds: 6)
        let ok = FileCheck.ok(size: 3, digests: [])
        func proof(_ at: Int64, fetched: Int64?, digests: [Digest]) -> ProvenFile {
            ProvenFile(file: file, digests: digests, seenAtNanoseconds: file.settlesAt, provenAtMilliseconds: at, fetchedAtMilliseconds: fetched)
        }
        let records = [
            root: [
                "media/a.ts": proof(nineOClock, fetched: nineOClock, digests: [sha]),
                "media/b.ts": proof(nineOClock, fetched: nil, digests: [sha]),
                "docs/x.txt": proof(fiveDaysAgo, fetched: fiveDaysAgo, digests: []),
                "docs/y.txt": proof(nineOClock, fetched: nineOClock, digests: []),
            ]
        ]
        let metadata = PartialDownload.Metadata(identity: "https://h/m/c.ts", validator: .init(value: "\"v\"", kind: .etag), totalSize: 2_000_000)
        let partials = [root: ["media/c.ts": PartialDownload.Found(size: 10, metadata: metadata)]]
        return MirrorStatus(
            manifest: manifest, checks: [ok, ok, .missing, ok, ok], identities: [file, changed, nil, file, file], records: records,
            partials: partials, roots: [MirrorStatus.Root(path: root, store: .inUse)], runs: runs, nowMilliseconds: now,
            maxAgeMilliseconds: maxAge)
    }

    @Test func textHasALinePerResourceTheRunsAndTheSummary() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        // Paths as the manifests give them, relative to the scratch folder.
        func text(_ status: MirrorStatus) -> String { StatusReports.text(status).replacingOccurrences(of: dir.path + "/", with: "") }
        #expect(
            try text(Self.status(in: dir)) == """
                = docs -> mirror/docs/: 2 proven; fully proven 2026-11-20T06:30:00Z (5d ago); last fetched 2026-11-25T09:00:00Z (3h ago)
                ~ media -> mirror/media/: 1 proven, 1 changed, 1 missing (1 to resume); last fetched 2026-11-25T09:00:00Z (3h ago)
                Last runs, newest first:
                  r2 apply: started 2026-11-25T11:58:00Z (2m ago), took 1m18s, exit 0; fetched=2 up_to_date=3
                  r1 apply: started 2026-11-25T09:00:00Z (3h ago), not ended (killed, or still running)
                Status: 3 of 5 slices proven (1 changed, 1 missing), oldest proof 2026-11-20T06:30:00Z.

                """)
        // With a maximum age, the resource holding an older proof is not `=`, and the summary
        // says how many are older; without runs there is no runs section.
        #expect(
            try text(Self.status(in: dir, maxAge: 86_400_000, runs: [])) == """
                ~ docs -> mirror/docs/: 2 proven (1 older than 1d); fully proven 2026-11-20T06:30:00Z (5d ago); last fetched 2026-11-25T09:00:00Z (3h ago)
                ~ media -> mirror/media/: 1 proven, 1 changed, 1 missing (1 to resume); last fetched 2026-11-25T09:00:00Z (3h ago)
                Status: 3 of 5 slices proven (1 changed, 1 missing), 1 older than 1d, oldest proof 2026-11-20T06:30:00Z.

                """)
    }

    /// The summary line's clauses, each present exactly when it has something to say.
    @Test func summaryLineRules() {
        func line(_ counts: StatusCounts, maxAge: Int64? = nil, oldest: Int64? = nil) -> String {
            StatusReports.summaryLine(counts: counts, maxAgeMilliseconds: maxAge, oldestProofAtMilliseconds: oldest)
        }
        var c = StatusCounts()
        #expect(line(c) == "Status: 0 of 0 slices proven.")
        c.proven = 1
        #expect(line(c, oldest: Self.nineOClock) == "Status: 1 of 1 slice proven, oldest proof 2026-11-25T09:00:00Z.")
        #expect(line(c, maxAge: 43_200_000, oldest: Self.nineOClock) == "Status: 1 of 1 slice proven, 0 older than 12h, oldest proof 2026-11-25T09:00:00Z.")
        c = StatusCounts()
        c.unproven = 4
        c.errors = 1
        #expect(line(c) == "Status: 0 of 5 slices proven (4 unproven, 1 error).")
        c.errors = 2
        c.changed = 3
        c.missing = 1
        c.resumable = 1
        #expect(line(c) == "Status: 0 of 10 slices proven (3 changed, 4 unproven, 1 missing, 2 errors).")
        c.moved = 5
        #expect(line(c) == "Status: 0 of 15 slices proven (3 changed, 5 moved or restored, 4 unproven, 1 missing, 2 errors).")
    }

    @Test func agesAndDurationsAreInTheirLargestWholeUnit() {
        let now = Self.now
        #expect(StatusReports.age(of: now, now: now) == "0s ago")
        #expect(StatusReports.age(of: now - 59_999, now: now) == "59s ago")
        #expect(StatusReports.age(of: now - 60_000, now: now) == "1m ago")
        #expect(StatusReports.age(of: now - 3_599_999, now: now) == "59m ago")
        #expect(StatusReports.age(of: now - 3_600_000, now: now) == "1h ago")
        #expect(StatusReports.age(of: now - 172_799_999, now: now) == "47h ago")
        #expect(StatusReports.age(of: now - 172_800_000, now: now) == "2d ago")
        #expect(StatusReports.age(of: now + 1, now: now) == "in the future")
        #expect(StatusReports.duration(milliseconds: -5) == "0ms")
        #expect(StatusReports.duration(milliseconds: 850) == "850ms")
        #expect(StatusReports.duration(milliseconds: 12_345) == "12.3s")
        #expect(StatusReports.duration(milliseconds: 245_000) == "4m05s")
        #expect(StatusReports.duration(milliseconds: 7_620_000) == "2h07m")
        #expect(StatusReports.timestamp(-1) == "1969-12-31T23:59:59Z")
    }

    @Test func jsonIsVersionedCompleteAndDeterministic() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let status = try Self.status(in: dir, maxAge: 86_400_000)
        let bytes = StatusReports.json(status, runID: "status-run")
        #expect(bytes == StatusReports.json(status, runID: "status-run"))
        let document = try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
        #expect(document["format_version"] as? Int == 2)
        #expect(document["jobrun_version"] as? String == JobrunVersion.current)
        #expect(document["run_id"] as? String == "status-run")
        #expect(document["checked_at"] as? String == "2026-11-25T12:00:00.000Z")
        #expect(document["checked_at_ms"] as? Int64 == Self.now)
        #expect(document["max_age"] as? String == "1d" && document["max_age_ms"] as? Int == 86_400_000)

        let summary = try #require(document["summary"] as? [String: Any])
        for (key, value) in [
            "slices": 5, "proven": 3, "changed": 1, "moved": 0, "unproven": 0, "missing": 1, "resumable": 1, "errors": 0, "older_than_max_age": 1,
        ] {
            #expect(summary[key] as? Int == value, "summary.\(key)")
        }
        #expect(summary["oldest_proof"] as? String == "2026-11-20T06:30:00.000Z")
        #expect(summary["oldest_proof_ms"] as? Int64 == Self.fiveDaysAgo)
        #expect(summary["all_proven"] as? Bool == false && summary["ok"] as? Bool == false)

        let roots = try #require(document["roots"] as? [[String: Any]])
        #expect(roots.count == 1 && roots[0]["store"] as? String == "in_use")

        let resources = try #require(document["resources"] as? [[String: Any]])
        #expect(resources.map { $0["id"] as? String } == ["docs", "media"])
        let docs = resources[0]
        #expect(docs["folder"] as? String == dir.path("mirror/docs") && docs["output_root"] as? String == dir.path("mirror"))
        #expect(docs["fully_proven_ms"] as? Int64 == Self.fiveDaysAgo && docs["older_than_max_age"] as? Int == 1)
        #expect(docs["last_fetched"] as? String == "2026-11-25T09:00:00.000Z")
        #expect((docs["not_proven"] as? [Any])?.isEmpty == true)
        let media = resources[1]
        #expect(media["fully_proven"] is NSNull && media["fully_proven_ms"] is NSNull)
        #expect(media["oldest_proof_ms"] as? Int64 == Self.nineOClock && media["ok"] as? Bool == false)
        let notProven = try #require(media["not_proven"] as? [[String: String]])
        #expect(
            notProven == [
                ["path": "b.ts", "file": dir.path("mirror/media/b.ts"), "status": "changed"],
                ["path": "c.ts", "file": dir.path("mirror/media/c.ts"), "status": "missing"],
            ])

        let runs = try #require(document["runs"] as? [[String: Any]])
        #expect(runs.map { $0["run_id"] as? String } == ["r2", "r1"])
        #expect(runs[0]["duration_ms"] as? Int == 78_500 && runs[0]["exit_status"] as? Int == 0 && runs[0]["stop_reason"] is NSNull)
        #expect(runs[0]["started"] as? String == "2026-11-25T11:58:00.000Z" && runs[0]["ended_ms"] as? Int64 == 1_795_607_958_500)
        #expect((runs[0]["counts"] as? [String: Int]) == ["fetched": 2, "up_to_date": 3, "failed": 0])
        #expect(runs[1]["ended"] is NSNull && runs[1]["duration_ms"] is NSNull && runs[1]["exit_status"] is NSNull)

        // Without a maximum age, its fields are null.
        let plain = try #require(try JSONSerialization.jsonObject(with: Data(StatusReports.json(Self.status(in: dir)))) as? [String: Any])
        #expect(plain["max_age"] is NSNull && plain["run_id"] == nil)
        #expect((plain["summary"] as? [String: Any])?["older_than_max_age"] is NSNull)
    }
}
