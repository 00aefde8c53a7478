import Foundation
import JobrunTestSupport
import Testing

/// A file on disk that was wrong and fetched again is "repaired", with what differed, in the
/// log, the summary, JSON and events; never a plain "fetched".
@Suite struct ApplyRepairTests {
    @Test func aWrongFileIsRepairedAndSaidSoEverywhere() async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        let sized = Generated.sha256Hex(size: 1_500, name: "a.bin")
        try fixture.write(
            manifest: """
                version: 1
                resources:
                  - id: r
                    slices:
                      - {path: a.bin, url: "\(fixture.url("/gen/1500/a.bin"))", size: 1500, sha256: \(sized)}
                      - {path: b.bin, url: "\(fixture.url("/gen/900/b.bin"))", size: 900}
                      - {path: c.bin, url: "\(fixture.url("/gen/300/c.bin"))"}

                """)
        let first = try await fixture.apply()
        #expect(first.status == 0, "\(first)")
        // Same size, another byte; a short file; the third stays right.
        var bytes = Generated.bytes(size: 1_500, name: "a.bin")
        bytes[7] ^= 0xFF
        _ = try fixture.directory.write(file: "mirror/r/a.bin", bytes: bytes)
        _ = try fixture.directory.write(file: "mirror/r/b.bin", contents: "short")

        let text = try await fixture.apply(["--events", "events.ndjson"])
        #expect(text.status == 0, "\(text)")
        #expect(text.stdout.contains("* r/a.bin: repaired: the file on disk was wrong (sha256 differs: expected \(sized), actual "), "\(text)")
        #expect(text.stdout.contains("* r/b.bin: repaired: the file on disk was wrong (size is 5 bytes, expected 900) (900 B, "), "\(text)")
        #expect(text.stdout.contains("+ r: 2 repaired, 1 up to date (2.3 KiB), 1 size only, 1 unverified\n"), "\(text)")
        #expect(
            text.stdout.hasSuffix(
                "\nApply complete! Slices: 0 fetched (2.3 KiB), 2 repaired, 0 resumed, 1 up to date, 0 failed, 0 deferred; 2 without digests (1 size only, 1 unverified).\n"
            ), "\(text)")
        let events = (fixture.directory.contents(of: "events.ndjson") ?? "").split(separator: "\n")
        let repairs = events.filter { $0.contains("\"type\":\"slice_done\"") && $0.contains("\"status\":\"repaired\"") }
        #expect(repairs.count == 2 && repairs.allSatisfy { $0.contains("\"repaired_because\":") }, "\(events)")
        let validation = EventSchemaCheck.validate([fixture.directory.path("events.ndjson")])
        #expect(validation.ok, "\(validation.output)")

        _ = try fixture.directory.write(file: "mirror/r/b.bin", contents: "short")
        let (json, report) = try await fixture.applyJSON()
        #expect(json.status == 0 && report.formatVersion == 2, "\(json)")
        #expect(report.summary.repaired == 1 && report.summary.fetched == 0 && report.summary.upToDate == 2, "\(json)")
        let b = try report.slice("r", "b.bin")
        #expect(b.status == "repaired" && b.repairedBecause == "size is 5 bytes, expected 900", "\(json)")
        #expect(try report.slice("r", "a.bin").status == "up_to_date", "\(json)")
    }
}
