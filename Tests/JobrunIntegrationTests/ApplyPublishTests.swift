import Foundation
import JobrunTestSupport
import Synchronization
import Testing

/// `publish: atomic`: a resource's next version is built in a stage beside its folder (unchanged
/// files shared by hard link) and switched in whole once complete, so readers see one version or
/// the other; a failed or stopped run leaves the published version and the next run continues
/// the stage; a kill at any step leaves one version whole.
@Suite struct ApplyPublishTests {
    /// Version `version` of the resource: `names`, each with bytes of its own for that version.
    static func manifest(_ fixture: ApplyFixture, version: Int, names: [String] = ["a.bin", "b.bin", "sub/c.bin"], extra: String = "") -> String {
        """
        version: 1
        resources:
          - id: site
            publish: {mode: atomic, grace: 1h}
            slices:
        \(names.map { slice(fixture, $0, version: version) }.joined(separator: "\n"))
        \(extra)
        """
    }

    static func slice(_ fixture: ApplyFixture, _ name: String, version: Int) -> String {
        let generated = "v\(version)/\(name)"
        return
            "      - {path: \(name), url: \"\(fixture.url(Generated.path(size: 300, name: generated)))\", size: 300, sha256: \(Generated.sha256Hex(size: 300, name: generated))}"
    }

    /// Whether the published folder holds exactly `names` of `version`.
    static func holds(_ fixture: ApplyFixture, version: Int, names: [String] = ["a.bin", "b.bin", "sub/c.bin"]) -> Bool {
        names.allSatisfy { fixture.directory.bytes(of: "mirror/site/\($0)") == Generated.bytes(size: 300, name: "v\(version)/\($0)") }
            && files(below: fixture.directory.path("mirror/site")) == Set(names)
    }

    static func files(below folder: String) -> Set<String> {
        guard let walker = FileManager.default.enumerator(atPath: folder) else { return [] }
        var found = Set<String>()
        while let path = walker.nextObject() as? String {
            var isFolder: ObjCBool = false
            if FileManager.default.fileExists(atPath: folder + "/" + path, isDirectory: &isFolder), !isFolder.boolValue { found.insert(path) }
        }
        return found
    }

    static func inode(_ fixture: ApplyFixture, _ path: String) -> UInt64? {
        var status = stat()
        return lstat(fixture.directory.path(path), &status) == 0 ? UInt64(status.st_ino) : nil
    }

    @Test func theStageIsSwitchedInWholeAndTheReplacedVersionKeptForItsGrace() async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        try fixture.write(manifest: Self.manifest(fixture, version: 1))
        let (first, firstReport) = try await fixture.applyJSON()
        #expect(first.status == 0 && first.stderr.contains("; 1 published."), "\(first)")
        #expect(firstReport.publications.map(\.state) == ["published"] && firstReport.publications.first?.retired == nil)
        #expect(Self.holds(fixture, version: 1) && !fixture.directory.exists("mirror/.jobrun/publish/site/next"))

        // Version 2 changes a.bin, keeps b.bin, drops sub/c.bin and adds d.bin; the run prunes.
        var v2 = Self.manifest(fixture, version: 2, names: ["a.bin", "d.bin"])
        v2 += "\n" + Self.slice(fixture, "b.bin", version: 1)
        try fixture.write(manifest: v2)
        let b = Self.inode(fixture, "mirror/site/b.bin")
        let (second, report) = try await fixture.applyJSON(["--prune", "--events", "events.ndjson"])
        #expect(second.status == 0, "\(second)")
        let publication = try #require(report.publications.first)
        #expect(publication.state == "published" && publication.folder == "mirror/site" && publication.stage == "mirror/.jobrun/publish/site/next")
        let retired = try #require(publication.retired)
        #expect(retired.hasPrefix("mirror/.jobrun/publish/site/2") && publication.keptUntil != nil)
        #expect(report.summary.fetched + report.summary.repaired == 2 && report.summary.upToDate == 1 && report.summary.pruned == 1, "\(second)")
        // The reports show the files where they are now.
        #expect(report.resources.first?.slices.map(\.file).sorted() == ["mirror/site/a.bin", "mirror/site/b.bin", "mirror/site/d.bin"])
        #expect(report.prune?.files.map(\.file) == ["mirror/site/sub/c.bin"])
        #expect(fixture.directory.bytes(of: "mirror/site/a.bin") == Generated.bytes(size: 300, name: "v2/a.bin"))
        #expect(fixture.directory.bytes(of: "mirror/site/b.bin") == Generated.bytes(size: 300, name: "v1/b.bin"))
        #expect(Self.files(below: fixture.directory.path("mirror/site")) == ["a.bin", "b.bin", "d.bin"])
        // The replaced version is whole where the report says, sharing the unchanged file.
        #expect(fixture.directory.bytes(of: retired.dropFirst("mirror/".count) + "/a.bin" as String) == nil)
        #expect(fixture.directory.bytes(of: "\(retired)/a.bin") == Generated.bytes(size: 300, name: "v1/a.bin"))
        #expect(fixture.directory.bytes(of: "\(retired)/sub/c.bin") == Generated.bytes(size: 300, name: "v1/sub/c.bin"))
        #expect(Self.inode(fixture, "mirror/site/b.bin") == b && Self.inode(fixture, "\(retired)/b.bin") == b)
        #expect(fixture.directory.exists("mirror/.jobrun/trash/\(try #require(report.prune?.trash))/site/sub/c.bin"))
        let validation = EventSchemaCheck.validate([fixture.directory.path("events.ndjson")])
        #expect(validation.ok, "\(validation.output)")
        #expect(fixture.directory.contents(of: "events.ndjson")?.contains(#""type":"publish""#) == true)

        // The records followed: nothing is read again, and verify and status agree.
        let status = try await fixture.run(["status", "site.yaml"])
        #expect(status.status == 0 && status.stdout.contains("3 of 3 slices proven"), "\(status)")
        try await fixture.expectVerified()
        // Nothing to do: no stage, no switch, the replaced version left alone until its grace is over.
        let (third, unchanged) = try await fixture.applyJSON()
        #expect(third.status == 0 && !third.stdout.contains("published"), "\(third)")
        #expect(unchanged.publications.isEmpty && fixture.directory.exists("\(retired)/a.bin"))
        // With no grace, the next run removes it.
        try fixture.write(manifest: v2.replacingOccurrences(of: "grace: 1h", with: "grace: 0s"))
        let fourth = try await fixture.apply()
        #expect(fourth.status == 0 && !fixture.directory.exists(retired), "\(fourth)")
        #expect(Self.files(below: fixture.directory.path("mirror/.jobrun/publish/site")).isEmpty)
    }

    @Test func aFailedRunLeavesThePublishedVersionAndTheNextContinuesTheStage() async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        try fixture.write(manifest: Self.manifest(fixture, version: 1))
        #expect(try await fixture.apply().status == 0)
        let failing = "      - {path: e.bin, url: \"\(fixture.url("/status/404"))\"}"
        try fixture.write(manifest: Self.manifest(fixture, version: 2, extra: failing))
        let (failed, report) = try await fixture.applyJSON()
        #expect(failed.status == 1, "\(failed)")
        #expect(report.publications.first?.state == "not_published", "\(failed)")
        #expect(report.publications.first?.reason?.hasPrefix("1 of its 4 slices failed; 'mirror/site' stays as it was") == true)
        #expect(Self.holds(fixture, version: 1), "the published version changed")
        #expect(fixture.directory.bytes(of: "mirror/.jobrun/publish/site/next/a.bin") == Generated.bytes(size: 300, name: "v2/a.bin"))
        let text = try await fixture.apply()
        #expect(text.stdout.contains("- site: not published: 1 of its 4 slices failed"), "\(text)")

        // Fixed: only the slice that failed is asked for, and the stage goes in whole.
        try fixture.write(manifest: Self.manifest(fixture, version: 2, extra: Self.slice(fixture, "e.bin", version: 2)))
        let before = try await fixture.sentRequests().count
        let fixed = try await fixture.apply()
        #expect(fixed.status == 0 && fixed.stdout.contains("; 1 published."), "\(fixed)")
        let sent = try await fixture.sentRequests().dropFirst(before).map(\.path)
        #expect(sent == [Generated.path(size: 300, name: "v2/e.bin")], "\(sent)")
        #expect(Self.holds(fixture, version: 2, names: ["a.bin", "b.bin", "sub/c.bin", "e.bin"]))
        try await fixture.expectVerified()
    }

    /// Removing links to published files (a replaced version's grace over, an unchanged stage)
    /// moves their change time: their records follow, so nothing is read again; and a stage that
    /// only revalidated keeps the origin's word on the published files.
    @Test func nothingIsReadAgainAfterAStageOrAReplacedVersionGoes() async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        let manifest = { (version: Int) in
            Self.manifest(fixture, version: version).replacingOccurrences(of: "grace: 1h", with: "grace: 0s")
                + "\n      - {path: index.txt, url: \"\(fixture.url("/gen/400/index.txt"))\"}\n    refresh: {mode: conditional, max_age: 1h}"
        }
        try fixture.write(manifest: manifest(1))
        #expect(try await fixture.apply().status == 0)
        try fixture.write(manifest: manifest(2))
        #expect(try await fixture.apply().status == 0)
        // The replaced version goes at the next run: its links go, the published files' change time moves.
        try fixture.write(manifest: manifest(2).replacingOccurrences(of: "{mode: conditional, max_age: 1h}", with: "always"))
        let (revalidating, report) = try await fixture.applyJSON()
        #expect(revalidating.status == 0 && report.summary.unchanged == 1, "\(revalidating)")
        #expect(report.publications.map(\.state) == ["unchanged"], "\(revalidating)")
        #expect(Self.files(below: fixture.directory.path("mirror/.jobrun/publish/site")).isEmpty)
        let proofs = try await MirrorStateTests.planProofs(fixture)
        #expect(proofs.hashed == 0 && proofs.unchanged == 3, "\(proofs)")
        // The 304's confirmation stayed with the published file: not stale, at once or within its age.
        try fixture.write(manifest: manifest(2))
        let status = try await fixture.run(["status", "site.yaml"])
        #expect(status.status == 0 && status.stdout.contains("4 of 4 slices proven"), "\(status)")
    }

    @Test func aResourceIsPublishedOnlyAfterTheStagedOnesItDependsOn() async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        let manifest = { (version: Int, failing: Bool) in
            """
            version: 1
            resources:
              - id: index
                publish: atomic
                depends_on: [pool]
                slices:
            \(Self.slice(fixture, "a.bin", version: version))
              - id: pool
                publish: atomic
                slices:
            \(Self.slice(fixture, "b.bin", version: version))
            \(failing ? "      - {path: c.bin, url: \"\(fixture.url("/status/404"))\"}" : "")
            """
        }
        try fixture.write(manifest: manifest(1, false))
        let (first, report) = try await fixture.applyJSON()
        #expect(first.status == 0 && report.publications.map(\.resource) == ["pool", "index"], "\(first)")
        try fixture.write(manifest: manifest(2, true))
        let (second, held) = try await fixture.applyJSON()
        #expect(second.status == 1, "\(second)")
        // pool failed; index waits for it (its slice is not fetched): neither is published.
        #expect(held.publications.map(\.state) == ["not_published", "not_published"], "\(second)")
        #expect(held.publications.last?.reason?.hasPrefix("1 of its 1 slices was not fetched") == true, "\(second)")
        #expect(fixture.directory.bytes(of: "mirror/index/a.bin") == Generated.bytes(size: 300, name: "v1/a.bin"))
    }

    /// A reader that opens the published folder and reads every file through it sees one version
    /// whole each time, whatever the updates do meanwhile.
    @Test func aReaderSeesOneVersionWholeDuringAHundredUpdates() async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        let names = ["a.bin", "b.bin", "sub/c.bin", "sub/d.bin"]
        let updates = 100
        var versionOf: [[UInt8]: Int] = [:]
        for v in 0...updates { for name in names { versionOf[Generated.bytes(size: 300, name: "v\(v)/\(name)")] = v } }
        try fixture.write(manifest: Self.manifest(fixture, version: 0, names: names))
        #expect(try await fixture.apply().status == 0)

        let reader = FolderReader(folder: fixture.directory.path("mirror/site"), names: names, versionOf: versionOf)
        let thread = Thread { reader.loop() }
        thread.start()
        for v in 1...updates {
            try fixture.write(manifest: Self.manifest(fixture, version: v, names: names))
            let result = try await fixture.apply(["-q"])
            #expect(result.status == 0, "\(result)")
            if result.status != 0 { break }
        }
        let seen = reader.stop()
        #expect(seen.mixed.isEmpty, "a reader saw versions mixed: \(seen.mixed.prefix(5))")
        #expect(seen.whole > updates, "the reader read \(seen.whole) times")
        #expect(seen.versions.count > 1 && seen.versions.max() == updates, "versions seen: \(seen.versions.sorted())")
        #expect(Self.holds(fixture, version: updates, names: names))
    }

    /// Kills jobrun with SIGKILL at each call of each system call that writes the stage, the
    /// folders or the state (strace's fault injection): the published folder holds version 1 or
    /// version 2 whole, and the next run ends with version 2 published and nothing left over.
    @Test(.enabled(if: StraceInjection.isAvailable, "needs strace, and ptrace allowed"))
    func aKillAtEveryStepLeavesOneVersionWhole() async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        var kills = 0
        // Every call of those that make, fill, switch and retire a stage; every third of those that
        // mostly write files and the state (the run's commits make most of them).
        let calls = ["linkat", "mkdirat", "renameat2", "renameat", "syncfs", "unlinkat"].map { ($0, 1) } + [("fsync", 3), ("pwrite64", 3)]
        for (call, step) in calls {
            for n in stride(from: 1, through: 40, by: step) {
                try? FileManager.default.removeItem(atPath: fixture.directory.path("mirror"))
                try fixture.write(manifest: Self.manifest(fixture, version: 1))
                #expect(try await fixture.apply(["-q"]).status == 0)
                try fixture.write(
                    manifest: Self.manifest(fixture, version: 2, names: ["a.bin", "b.bin"]) + "\n" + Self.slice(fixture, "sub/c.bin", version: 1))
                let killed = try await StraceInjection.run(["apply", "site.yaml", "-q"], killingAt: call, call: n, in: fixture.directory.path)
                let v1 = Self.holds(fixture, version: 1)
                let v2 =
                    fixture.directory.bytes(of: "mirror/site/a.bin") == Generated.bytes(size: 300, name: "v2/a.bin")
                    && fixture.directory.bytes(of: "mirror/site/sub/c.bin") == Generated.bytes(size: 300, name: "v1/sub/c.bin")
                    && Self.files(below: fixture.directory.path("mirror/site")) == ["a.bin", "b.bin", "sub/c.bin"]
                #expect(v1 || v2, "killed at \(call) #\(n): neither version whole: \(Self.files(below: fixture.directory.path("mirror/site")))")
                let again = try await fixture.apply()
                #expect(again.status == 0, "after a kill at \(call) #\(n): \(again)")
                #expect(
                    fixture.directory.bytes(of: "mirror/site/a.bin") == Generated.bytes(size: 300, name: "v2/a.bin")
                        && Self.files(below: fixture.directory.path("mirror/site")) == ["a.bin", "b.bin", "sub/c.bin"],
                    "after a kill at \(call) #\(n)")
                #expect(!fixture.directory.exists("mirror/.jobrun/publish/site/next"), "after a kill at \(call) #\(n): a stage is left")
                try await fixture.expectVerified()
                guard killed.signal == SIGKILL || killed.status == 128 + SIGKILL else { break }  // the call was not made that often: the next call
                kills += 1
            }
        }
        #expect(kills >= 20, "only \(kills) kills")
    }
}

/// Reads a folder's files through one descriptor of it, in a loop, and tells which version each
/// pass saw.
final class FolderReader: @unchecked Sendable {
    let folder: String
    let names: [String]
    let versionOf: [[UInt8]: Int]
    private let state = Mutex<(stop: Bool, seen: Seen)>((false, Seen()))
    private let done = DispatchSemaphore(value: 0)

    struct Seen: Sendable {
        var whole = 0
        var versions = Set<Int>()
        var mixed: [[Int?]] = []
    }

    init(folder: String, names: [String], versionOf: [[UInt8]: Int]) {
        self.folder = folder
        self.names = names
        self.versionOf = versionOf
    }

    func loop() {
        defer { done.signal() }
        while !state.withLock({ $0.stop }) {
            let fd = open(folder, O_RDONLY | O_DIRECTORY)
            guard fd >= 0 else { continue }
            let found = names.map { name -> Int? in
                let file = openat(fd, name, O_RDONLY)
                guard file >= 0 else { return nil }
                defer { close(file) }
                var bytes = [UInt8](repeating: 0, count: 400)
                let count = read(file, &bytes, bytes.count)
                return count == 300 ? versionOf[Array(bytes.prefix(300))] : nil
            }
            close(fd)
            state.withLock { s in
                if let first = found.first ?? nil, found.allSatisfy({ $0 == first }) {
                    s.seen.whole += 1
                    s.seen.versions.insert(first)
                } else {
                    s.seen.mixed.append(found)
                }
            }
        }
    }

    func stop() -> Seen {
        state.withLock { $0.stop = true }
        done.wait()
        return state.withLock { $0.seen }
    }
}

/// jobrun run under strace, killed with SIGKILL when it enters the `n`-th call of a system call
/// (strace's fault injection: the call is not made).
enum StraceInjection {
    static let strace = "/usr/bin/strace"

    static let isAvailable: Bool = {
        guard FileManager.default.isExecutableFile(atPath: strace) else { return false }
        let probe = try? BinaryRunner(executable: strace, defaultTimeout: .seconds(20)).runBlocking(["-f", "-qq", "-o", "/dev/null", "/bin/true"])
        return probe?.status == 0
    }()

    static func run(_ arguments: [String], killingAt name: String, call n: Int, in directory: String) async throws -> RunResult {
        let jobrun = try Harness.jobrun().executable
        let runner = BinaryRunner(executable: strace, defaultTimeout: Harness.timeout)
        let result = try await runner.run(
            ["-f", "-qq", "-o", "/dev/null", "-e", "trace=\(name)", "-e", "inject=\(name):signal=SIGKILL:when=\(n)", jobrun] + arguments,
            environment: Harness.environment([:]),
            removingEnvironment: Harness.scrubbedEnvironment.union(ApplyFixture.proxyVariables).subtracting(Harness.quietProgress.keys),
            workingDirectory: directory)
        #expect(!result.hasTimedOut, "jobrun under strace timed out\n\(result)")
        return result
    }
}
