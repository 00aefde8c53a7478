import Foundation
import JobrunTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Plan for space: `plan` shows the bytes to fetch next to each output file system's free space,
/// and `apply` refuses to start, before any request, when the known sizes do not fit (unless
/// `--no-space-check`). Declared sizes larger than any disk make this real without filling one.
@Suite struct ApplySpaceTests {
    static let petabyte: Int64 = 1 << 50

    /// This machine's figures for the file system of `path`: free bytes and the margin the rule
    /// gives (1%, at least 64 MiB, at most a tenth).
    static func room(of path: String) throws -> (free: Int64, margin: Int64) {
        var vfs = statvfs()
        try #require(statvfs(path, &vfs) == 0, "statvfs \(path)")
        let unit = Int64(vfs.f_frsize)
        let size = Int64(vfs.f_blocks) * unit
        return (Int64(vfs.f_bavail) * unit, min(max(64 << 20, size / 100), size / 10))
    }

    func hugeManifest(_ fixture: ApplyFixture, output: String = "mirror", hugeURL: String = "/gen/10/huge.bin") -> String {
        """
        version: 1
        defaults: {output: \(output)}
        resources:
          - id: small
            slices:
              - {path: a.bin, url: "\(fixture.url("/gen/100/a.bin"))", size: 100}
              - {path: b.bin, url: "\(fixture.url("/gen/50/b.bin"))"}
          - id: huge
            slices:
              - {path: huge.bin, url: "\(fixture.url(hugeURL))", size: \(Self.petabyte)}

        """
    }

    @Test func applyRefusesBeforeAnyRequestWhenTheKnownSizesDoNotFit() async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        try fixture.write(manifest: hugeManifest(fixture))
        let result = try await fixture.apply(["--junit", "junit.xml", "--json"])
        #expect(result.status == 74, "\(result)")
        let (free, margin) = try Self.room(of: fixture.directory.path)
        let expected = try #require(
            result.stderr.firstMatch(
                of:
                    #/jobrun: error: not enough space for 'mirror': 1\.0 PiB to fetch, ([0-9.]+ [KMGTPE]iB|[0-9]+ B) free less a ([0-9.]+ [KMGTPE]iB) margin; nothing was requested [(]--no-space-check skips this check[)]\n/#
            ), "\(result)")
        #expect(Self.renders(expected.2, margin), "\(expected.2) is not the margin of this disk: \(margin) bytes")
        #expect(Self.renders(expected.1, free, slack: Self.freeSlack(free)), "\(expected.1) is not this disk's \(free) free bytes")
        #expect(result.stdout.isEmpty, "\(result)")
        try await fixture.expectNothingRequested()
        // Nothing written but the output root the lock created (no partial, no report).
        #expect(DirectoryTree.entries(under: fixture.directory.path) == ["mirror/", "site.yaml"])
    }

    @Test func noSpaceCheckStartsTheRunAnyway() async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        // The huge slice's URL answers 404: the run starts, sends it, and fails it.
        try fixture.write(manifest: hugeManifest(fixture, hugeURL: "/status/404"))
        let result = try await fixture.apply(["--no-space-check"])
        #expect(result.status == 1, "\(result)")
        #expect(!result.stderr.contains("not enough space"), "\(result)")
        #expect(
            result.stdout.hasSuffix(
                "Apply failed! Slices: 2 fetched (150 B), 0 resumed, 0 up to date, 1 failed, 0 deferred; 2 without digests (1 size only, 1 unverified).\n"),
            "\(result)")
        #expect(try fixture.server.requests(path: "/status/404").count == 1)
        #expect(fixture.size(of: "mirror/small/a.bin") == 100)
    }

    /// `plan` says the same as `apply` will: the figures, "does not fit", and a warning; the plan
    /// itself still succeeds. JSON carries the exact bytes.
    @Test func planShowsTheBytesNextToTheFreeSpaceAndWarns() async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        try fixture.write(manifest: hugeManifest(fixture))
        let (free, margin) = try Self.room(of: fixture.directory.path)

        let text = try await fixture.run(["plan", "site.yaml", "--detailed-exitcode"])
        #expect(text.status == 2, "\(text)")
        let lines = text.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 4 && lines[3].hasPrefix("Plan: 3 to fetch, 0 to resume, 0 to refetch (1.0 PiB + 1 of unknown size)"), "\(text)")
        let space = try #require(
            lines[2].wholeMatch(of: #/Space: mirror: 1\.0 PiB plus 1 slice of unknown size to fetch, (.+) free [(]less a (.+) margin[)]: does not fit\./#),
            "\(text)")
        #expect(Self.renders(space.2, margin) && Self.renders(space.1, free, slack: Self.freeSlack(free)), "\(lines[2])")
        #expect(text.stderr.contains("jobrun: warning: not enough space for 'mirror': 1.0 PiB to fetch, "), "\(text)")
        #expect(text.stderr.contains("; apply will refuse to start (unless --no-space-check)\n"), "\(text)")

        let json = try await fixture.run(["plan", "site.yaml", "--json"])
        #expect(json.status == 0, "\(json)")
        let document = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        let needs = try #require(document?["space"] as? [[String: Any]], "\(json.stdout)")
        try #require(needs.count == 1, "\(needs)")
        let need = needs[0]
        #expect(need["roots"] as? [String] == ["mirror"])
        #expect((need["bytes_to_transfer"] as? NSNumber)?.int64Value == Self.petabyte + 100)
        #expect((need["unsized_to_transfer"] as? NSNumber)?.intValue == 1)
        #expect((need["margin_bytes"] as? NSNumber)?.int64Value == margin)
        let reported = try #require((need["free_bytes"] as? NSNumber)?.int64Value)
        #expect(abs(reported - free) <= Self.freeSlack(free), "\(reported) vs \(free)")
        #expect(need["fits"] as? Bool == false && need["error"] is NSNull, "\(need)")
        #expect(try fixture.server.requests().isEmpty)
    }

    /// Output roots on one file system share one figure and their bytes add up: each half fits
    /// alone, both together do not. A root that does not exist yet counts on its nearest
    /// existing ancestor's file system.
    @Test func rootsOnOneFileSystemAddUp() async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        let (free, margin) = try Self.room(of: fixture.directory.path)
        try #require(free > margin + (1 << 20), "too little free space here to test")
        // 60% of the room each: one fits with a wide margin for other writers, two do not.
        let share = (free - margin) / 10 * 6
        func manifest(_ id: String, output: String) -> String {
            """
            version: 1
            defaults: {output: \(output)}
            resources:
              - id: \(id)
                slices:
                  - {path: part.bin, url: "\(fixture.url("/gen/10/\(id).bin"))", size: \(share)}

            """
        }
        try fixture.write(manifest: manifest("one", output: "mirror-a"), to: "one.yaml")
        try fixture.write(manifest: manifest("two", output: "not/yet/mirror-b"), to: "two.yaml")

        for alone in ["one.yaml", "two.yaml"] {
            let plan = try await fixture.run(["plan", alone])
            #expect(plan.status == 0 && !plan.stdout.contains("does not fit") && plan.stderr.isEmpty, "\(plan)")
        }
        let plan = try await fixture.run(["plan", "one.yaml", "two.yaml"])
        let spaceLines = plan.stdout.split(separator: "\n").filter { $0.hasPrefix("Space: ") }
        #expect(spaceLines.count == 1, "one line for one file system: \(plan)")
        let line = try #require(
            String(spaceLines.first ?? "").wholeMatch(
                of: #/Space: mirror-a, not\/yet\/mirror-b: (.+) to fetch, .+ free [(]less a .+ margin[)]: does not fit\./#),
            "\(plan)")
        #expect(Self.renders(line.1, 2 * share), "\(line.1) is not the sum \(2 * share)")

        let apply = try await fixture.run(["apply", "one.yaml", "two.yaml"])
        #expect(apply.status == 74, "\(apply)")
        #expect(apply.stderr.hasPrefix("jobrun: error: not enough space for 'mirror-a' and 'not/yet/mirror-b' (one file system): "), "\(apply)")
        #expect(!fixture.directory.exists("mirror-a/one") && !fixture.directory.exists("not/yet/mirror-b/two"))
        try await fixture.expectNothingRequested()
    }

    /// On a real 1 MiB file system (a tmpfs, where mounting is allowed) the margin is a tenth of
    /// it: 1000 KiB are refused before any request, 900 KiB fit and are fetched.
    @Test(.enabled(if: DiskFull.canMount, "cannot mount a tmpfs here (needs root)"))
    func aSmallFileSystemKeepsATenthAsMargin() async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        let mirror = try fixture.directory.makeDirectory("mirror")
        try #require(DiskFull.mount(at: mirror), "mount -t tmpfs failed")
        defer { DiskFull.unmount(mirror) }
        let (free, margin) = try Self.room(of: mirror)
        try #require(free == 1 << 20 && margin == (1 << 20) / 10, "an empty 1 MiB tmpfs: \(free) free, margin \(margin)")
        func manifest(_ size: Int) -> String {
            """
            version: 1
            resources:
              - id: r
                slices:
                  - {path: f.bin, url: "\(fixture.url("/gen/\(size)/f.bin"))", size: \(size)}

            """
        }
        try fixture.write(manifest: manifest(1000 << 10))
        let refused = try await fixture.apply()
        #expect(refused.status == 74, "\(refused)")
        #expect(
            refused.stderr.hasPrefix("jobrun: error: not enough space for 'mirror': 1000.0 KiB to fetch, 1.0 MiB free less a 102.4 KiB margin; "), "\(refused)")
        try await fixture.expectNothingRequested()

        try fixture.write(manifest: manifest(900 << 10))
        let applied = try await fixture.apply()
        #expect(applied.status == 0, "\(applied)")
        #expect(fixture.size(of: "mirror/r/f.bin") == 900 << 10)
    }

    /// Whether a size as jobrun renders it (`512 B`, `64.0 MiB`: one decimal) stands for `bytes`,
    /// give or take `slack` bytes besides the rounding.
    static func renders(_ rendered: Substring, _ bytes: Int64, slack: Int64 = 0) -> Bool {
        let parts = rendered.split(separator: " ").map(String.init)
        let factors: [String: Double] = ["B": 1, "KiB": 0x1p10, "MiB": 0x1p20, "GiB": 0x1p30, "TiB": 0x1p40, "PiB": 0x1p50]
        guard parts.count == 2, let number = Double(parts[0]), let factor = factors[parts[1]] else { return false }
        let error = abs(number * factor - Double(bytes))
        let allowed = factor * 0.05 + Double(slack)
        return error <= allowed
    }

    /// Free space moves while other processes write: a fifth of it, or 64 MiB.
    static func freeSlack(_ free: Int64) -> Int64 { max(free / 5, 64 << 20) }
}

extension ApplyFixture {
    /// Asks the server for a sentinel and waits for it in the log, so that whatever jobrun sent
    /// before is logged too; then the log must hold nothing else.
    func expectNothingRequested(sourceLocation: SourceLocation = #_sourceLocation) async throws {
        _ = try HTTPGet.body(port: server.port, target: "/gen/1/sentinel")
        let log = try await server.waitForRequests { $0.contains { $0.pathWithoutQuery == "/gen/1/sentinel" } }
        #expect(log.map(\.path) == ["/gen/1/sentinel"], "jobrun sent requests: \(log)", sourceLocation: sourceLocation)
    }
}
