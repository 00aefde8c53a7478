import Foundation
import JobrunTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One apply at a time per output root: a second run exits 75 before planning or fetching, or
/// waits with `--lock-timeout`; a killed holder leaves no lock behind.
@Suite struct ApplyLockTests {
    static let size = 2 << 20
    static let cut = 1 << 20

    /// A manifest whose one slice stalls half-way the first time it is requested (for 5 min, so
    /// that a test slowed down by a loaded machine still finds it holding; the request timeout is
    /// longer), and an apply of it, running, that has written that first half: it holds the lock
    /// on `mirror`.
    static func startHoldingApply(_ fixture: ApplyFixture, _ extra: [String] = []) async throws -> BackgroundProcess {
        let path = FaultServer.path("/gen/\(size)/held.bin", faults: "stall_at=\(cut)", "stall_s=300", "n=1")
        try fixture.write(
            manifest: """
                version: 1
                defaults:
                  timeouts: {request: 10m}
                resources:
                  - id: r
                    slices:
                      - {path: held.bin, url: "\(fixture.url(path))", size: \(size), sha256: \(try fixture.digest("/gen/\(size)/held.bin"))}

                """)
        let apply = try fixture.startApply(extra)
        let midway = await Poll.until(timeout: .seconds(120)) { fixture.size(of: "mirror/r/.held.bin.jobrun-part") == cut }
        try #require(midway, "the first apply never got half-way: \(apply.stderr)")
        return apply
    }

    /// The start of the line naming the holder: its pid where `/proc/locks` says.
    static func lockedBy(_ holder: BackgroundProcess) -> String {
        #if os(Linux)
        return "locked by pid \(holder.pid) (jobrun"
        #else
        return "locked by another process"
        #endif
    }

    /// The second run names the holder, says how to wait, writes nothing (no report either) and
    /// exits 75; an apply into another root is not held up.
    @Test func aSecondApplyIntoTheSameRootExits75() async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        let holder = try await Self.startHoldingApply(fixture)
        defer { holder.kill() }
        let before = DirectoryTree.entries(under: fixture.directory.path("mirror"))

        let second = try await fixture.apply(["--json", "--junit", "junit.xml"])
        #expect(second.status == 75, "\(second)")
        #expect(second.stdout.isEmpty, "\(second)")
        #expect(
            second.stderr.contains("jobrun: error: the output root 'mirror' is \(Self.lockedBy(holder))")
                && second.stderr.contains("nothing was planned or fetched (--lock-timeout DURATION waits for it)"), "\(second)")
        #expect(!fixture.directory.exists("junit.xml"))
        #expect(DirectoryTree.entries(under: fixture.directory.path("mirror")) == before)
        #expect(fixture.size(of: "mirror/r/.held.bin.jobrun-part") == Self.cut, "the partial file changed")

        let elsewhere = try await fixture.apply(["--output", "other", "--lock-timeout", "0s"])
        #expect(elsewhere.status == 0, "\(elsewhere)")
        #expect(fixture.size(of: "other/r/held.bin") == Self.size)
        // The server numbers the requests for the slice's path: the holder's is the first (its
        // line appears once its stall ends, which a slow machine can reach), the run into
        // `other` the second; a request from the refused run would be one more.
        let sent = try await fixture.sentRequests().filter { ($0.requestNumber ?? 0) >= 2 }
        #expect(sent.count == 1 && sent.allSatisfy { $0.header(named: "Range") == nil }, "\(sent)")
    }

    /// The kernel drops the lock of a process killed with SIGKILL: the next apply runs, and
    /// resumes the partial file the killed one left.
    @Test func aKilledHolderLeavesNoLock() async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        let holder = try await Self.startHoldingApply(fixture)
        holder.kill()

        let (next, report) = try await fixture.applyJSON()
        #expect(next.status == 0, "\(next)")
        #expect(try report.slice("r", "held.bin").status == "resumed", "\(next)")
        try await fixture.expectVerified()
    }

    /// With `--lock-timeout` the second run says it waits, and goes on once the holder ends.
    @Test func aSecondApplyWaitsForTheLock() async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        let holder = try await Self.startHoldingApply(fixture)
        defer { holder.kill() }
        let waiter = try fixture.startApply(["--lock-timeout", "2m"])
        defer { waiter.kill() }
        let waiting = await Poll.until(timeout: .seconds(120)) {
            waiter.stderr.contains("jobrun: waiting up to 2m for the output root 'mirror', \(Self.lockedBy(holder))")
        }
        try #require(waiting, "no waiting line: \(waiter.stderr)")
        #expect(waiter.isRunning)

        holder.signal(SIGTERM)
        let stopped = try #require(await holder.wait(timeout: .seconds(20)))
        #expect(stopped.status == 143, "\(stopped)")
        let result = try #require(await waiter.wait(timeout: .seconds(60)), "the waiting apply never finished: \(waiter.stderr)")
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.hasSuffix("Apply complete! Slices: 0 fetched (1.0 MiB), 1 resumed, 0 up to date, 0 failed, 0 deferred.\n"), "\(result)")
        try await fixture.expectVerified()
    }

    /// The locks go only once the run's end is recorded: with the mirror state's database held
    /// by another writer, the stopped run waits for it (and then says the state is unusable)
    /// before the next run can take the root.
    @Test func theLockOutlastsTheRecordOfTheRunsEnd() async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        try fixture.write(
            manifest: """
                version: 1
                resources:
                  - id: s
                    slices:
                      - {path: a.bin, url: "\(fixture.url("/gen/1000/a.bin"))", size: 1000}

                """, to: "first.yaml")
        let first = try await fixture.apply(manifest: "first.yaml")
        try #require(first.status == 0 && fixture.directory.exists("mirror/.jobrun/state.sqlite"), "\(first)")
        let apply = try await Self.startHoldingApply(fixture)
        defer { apply.kill() }

        // Another writer holds the database until the test opens the FIFO it reads.
        let release = fixture.directory.path("release")
        try #require(mkfifo(release, 0o600) == 0)
        let writer = try BinaryRunner(executable: "/usr/bin/env").start([
            "python3", "-c",
            """
            import sqlite3, sys
            db = sqlite3.connect(sys.argv[1], isolation_level=None)
            db.execute("BEGIN IMMEDIATE")
            open(sys.argv[2] + ".held", "w").close()
            with open(sys.argv[2]) as release:
                release.read()
            db.execute("ROLLBACK")
            """,
            fixture.directory.path("mirror/.jobrun/state.sqlite"), release,
        ])
        defer { writer.kill() }
        let held = await Poll.until(timeout: .seconds(60)) { FileManager.default.fileExists(atPath: release + ".held") }
        try #require(held, "the database was never held: \(writer.stderr)")

        apply.signal(SIGTERM)
        let root = open(fixture.directory.path("mirror"), O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        try #require(root >= 0)
        defer { close(root) }
        let free = await Poll.until(timeout: .seconds(60), interval: .milliseconds(5)) { flock(root, LOCK_EX | LOCK_NB) == 0 }
        // Read at once: a run that let go too early says so only once its write gives up.
        let saidAtRelease = apply.stderr
        try #require(free, "the root stayed locked: \(apply.stderr)")
        #expect(saidAtRelease.contains("jobrun: warning: the mirror state"), "the lock went before the run's end was recorded: \(saidAtRelease)")
        _ = flock(root, LOCK_UN)
        // Opened (and closed) once the holder waits on it: its read then ends.
        let released = await Poll.until(timeout: .seconds(60)) {
            let fd = open(release, O_WRONLY | O_NONBLOCK | O_CLOEXEC)
            guard fd >= 0 else { return false }
            close(fd)
            return true
        }
        try #require(released, "the holder never waited: \(writer.stderr)")
        let stopped = try #require(await apply.wait(timeout: .seconds(60)))
        #expect(stopped.status == 143, "\(stopped)")
        let writerEnd = await writer.wait(timeout: .seconds(60))
        #expect(writerEnd?.status == 0, "\(writer.stderr)")
    }

    /// `--lock-timeout` takes a duration as manifests write them.
    @Test func aBadLockTimeoutIsAUsageError() async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        try fixture.write(manifest: "version: 1\nresources: []\n")
        let result = try await fixture.apply(["--lock-timeout", "soon"])
        #expect(result.status == 64, "\(result)")
        #expect(result.stderr.contains("--lock-timeout: 'soon' is not a duration (for example 30s, 5m, 1h30m)"), "\(result)")
    }
}
