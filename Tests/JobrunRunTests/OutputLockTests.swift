import Foundation
import JobrunCore
import JobrunTestSupport
import Synchronization
import Testing
@testable import JobrunRun
import JobrunSystem

/// The output roots' lock: one holder per folder, however it is named; a held root fails at once
/// or after the timeout; failed attempts keep nothing locked; the holder is found in `/proc`.
@Suite struct OutputLockTests {
    /// A `flock` conflicts across open file descriptions even within one process, so a second
    /// `acquire` here plays the part of a second run.
    @Test func aHeldRootIsRefusedAndFreedByRelease() throws {
        let dir = try TemporaryDirectory(prefix: "lock")
        defer { dir.remove() }
        let root = dir.path("mirror")
        let first = try OutputLock.acquire(roots: [root])
        #expect(FileStatus.isDirectory(atPath: root), "the missing root was not created")

        #expect(throws: OutputLock.Contention.self) { try OutputLock.acquire(roots: [root]) }
        do {
            _ = try OutputLock.acquire(roots: [root])
            Issue.record("the held root was locked twice")
        } catch {
            #expect(error.root == root && error.waited == nil)
            #expect(error.message.hasPrefix("the output root '\(root)' is locked by "), "\(error.message)")
            #if os(Linux)
            #expect(error.holder?.pid == getpid(), "\(String(describing: error.holder))")
            #expect(error.holder?.runningFor != nil)
            #endif
        }
        first.release()
        // Waited for, as in aFailedAttemptKeepsNothingLocked: a child of another test may hold
        // the lock from its fork to its exec.
        let again = try OutputLock.acquire(roots: [root], timeout: .seconds(60))
        again.release()
    }

    /// The holder names its run: a second run's contention says the first one's run id, while
    /// it holds the root and not after.
    @Test func theHolderNamesItsRun() throws {
        let dir = try TemporaryDirectory(prefix: "lock")
        defer { dir.remove() }
        let root = dir.path("mirror")
        #expect(LockHolder.runID(ofPID: getpid()) == nil)
        let first = try OutputLock.acquire(roots: [root], runID: "01JDRUN:a.b-c_d")
        do {
            _ = try OutputLock.acquire(roots: [root], runID: "other")
            Issue.record("the held root was locked twice")
        } catch {
            #if os(Linux)
            #expect(error.holder?.runID == "01JDRUN:a.b-c_d", "\(String(describing: error.holder))")
            #expect(error.message.contains(", run 01JDRUN:a.b-c_d, running for "), "\(error.message)")
            #endif
        }
        first.release()
        #expect(LockHolder.runID(ofPID: getpid()) == nil)
    }

    @Test func theRunIDIsReadOnlyFromItsOwnLink() {
        #expect(LockHolder.runID(inLink: "/memfd:jobrun-run:01JD8 (deleted)") == "01JD8")
        #expect(LockHolder.runID(inLink: "/memfd:jobrun-run:ci-42") == "ci-42")
        #expect(LockHolder.runID(inLink: "/memfd:other (deleted)") == nil)
        #expect(LockHolder.runID(inLink: "/tmp/jobrun-run:x") == nil)
        #expect(LockHolder.runID(inLink: "/memfd:jobrun-run: (deleted)") == nil)
        #expect(LockHolder.runID(inLink: "/memfd:jobrun-run:a b (deleted)") == nil)
        #expect(LockHolder.runID(inLink: "/memfd:jobrun-run:\u{1B}[31m (deleted)") == nil)
    }

    /// Two names of one folder (a relative spelling, a symbolic link) are locked once, not
    /// twice: the second `flock` would conflict with the first.
    @Test func oneFolderUnderSeveralNamesIsLockedOnce() throws {
        let dir = try TemporaryDirectory(prefix: "lock")
        defer { dir.remove() }
        let root = try dir.makeDirectory("mirror")
        try #require(symlink(root, dir.path("link")) == 0)
        let lock = try OutputLock.acquire(roots: [root, dir.path("link"), dir.path("./mirror/"), root])
        #expect(throws: OutputLock.Contention.self) { try OutputLock.acquire(roots: [dir.path("link")]) }
        lock.release()
    }

    /// A root that cannot exist (below a regular file) is left to the slices to report.
    @Test func aRootThatCannotBeCreatedIsSkipped() throws {
        let dir = try TemporaryDirectory(prefix: "lock")
        defer { dir.remove() }
        try dir.write(file: "file", contents: "x")
        let lock = try OutputLock.acquire(roots: [dir.path("file/mirror")])
        #expect(lock.warnings.isEmpty)
        lock.release()
    }

    /// A run that fails on its second root gives back the first: nothing stays locked by an
    /// attempt that did not get everything.
    @Test func aFailedAttemptKeepsNothingLocked() throws {
        let dir = try TemporaryDirectory(prefix: "lock")
        defer { dir.remove() }
        let names = [try dir.makeDirectory("a"), try dir.makeDirectory("b")]
        // Roots are locked in inode order: hold the later one, so the attempt locks the earlier
        // one before it fails.
        let inodes = names.map { name -> UInt64 in
            var st = stat()
            return stat(name, &st) == 0 ? UInt64(truncatingIfNeeded: st.st_ino) : 0
        }
        try #require(!inodes.contains(0) && inodes[0] != inodes[1])
        let (first, second) = inodes[0] < inodes[1] ? (names[0], names[1]) : (names[1], names[0])
        let holdsSecond = try OutputLock.acquire(roots: [second])
        #expect(throws: OutputLock.Contention.self) { try OutputLock.acquire(roots: [first, second]) }
        // Waited for: a child process another test starts meanwhile holds a copy of every
        // descriptor (and so the lock) from its fork until its exec, which a loaded machine can
        // delay.
        let onlyFirst = try OutputLock.acquire(roots: [first], timeout: .seconds(60))
        onlyFirst.release()
        holdsSecond.release()
    }

    /// With a timeout the attempt is told once that it waits, tries until the deadline, and the
    /// error says how long it waited.
    @Test func aTimeoutWaitsThenFails() throws {
        let dir = try TemporaryDirectory(prefix: "lock")
        defer { dir.remove() }
        let root = dir.path("mirror")
        let first = try OutputLock.acquire(roots: [root])
        defer { first.release() }
        var waits: [String] = []
        let started = ContinuousClock.now
        do {
            _ = try OutputLock.acquire(roots: [root], timeout: .milliseconds(300)) { root, _ in waits.append(root) }
            Issue.record("the held root was locked twice")
        } catch {
            #expect(ContinuousClock.now - started >= .milliseconds(300))
            #expect(error.waited == .milliseconds(300))
            #expect(error.message.hasPrefix("the output root '\(root)' is still locked after waiting 300ms, by "), "\(error.message)")
        }
        #expect(waits == [root])
    }

    /// A waiting attempt takes the root as soon as the holder lets go.
    @Test func aWaitingAttemptGetsTheRootOnceReleased() async throws {
        let dir = try TemporaryDirectory(prefix: "lock")
        defer { dir.remove() }
        let root = dir.path("mirror")
        let first = try OutputLock.acquire(roots: [root])
        let state = Mutex((isWaiting: false, result: String?.none))
        let startFailure = DetachedThread.start(name: "lock-waiter") {
            let outcome: String
            do {
                // Far longer than the test's own polls: on a loaded machine the test task can wait
                // a minute for a thread, and the waiter must still be waiting when it comes.
                let lock = try OutputLock.acquire(roots: [root], timeout: .seconds(600)) { _, _ in
                    state.withLock { $0.isWaiting = true }
                }
                lock.release()
                outcome = "locked"
            } catch {
                outcome = "\(error)"
            }
            state.withLock { $0.result = outcome }
        }
        #expect(startFailure == nil, "pthread_create failed")
        #expect(await Poll.until(timeout: .seconds(20)) { state.withLock { $0.isWaiting } })
        #expect(state.withLock { $0.result } == nil)
        first.release()
        #expect(await Poll.until(timeout: .seconds(20)) { state.withLock { $0.result } != nil })
        #expect(state.withLock { $0.result } == "locked")
    }

    // MARK: The holder, from /proc

    /// `/proc/locks` spells devices as the kernel's `%02x:%02x`, split as glibc splits `st_dev`.
    @Test(arguments: [
        (UInt64(0xFE00), UInt64(16312625), "fe:00:16312625"),
        (UInt64(0x0801), UInt64(2), "08:01:2"),
        // major 259, minor 0x12345: st_dev = minor low byte | major << 8 | (minor >> 8) << 20.
        (UInt64(0x45) | UInt64(259) << 8 | UInt64(0x123) << 20, UInt64(7), "103:12345:7"),
        // major 0x12345 (above 12 bits), minor 0x6789A: glibc's makedev.
        (UInt64(0x9A) | UInt64(0x345) << 8 | UInt64(0x678) << 20 | UInt64(0x12) << 44, UInt64(9), "12345:6789a:9"),
    ])
    func locksKeys(device: UInt64, inode: UInt64, key: String) {
        #expect(LockHolder.locksKey(device: device, inode: inode) == key)
    }

    @Test func theHolderIsTheFlockLineOfTheFile() {
        let text = """
            1: POSIX  ADVISORY  WRITE 900 fe:00:42 0 EOF
            2: FLOCK  ADVISORY  WRITE 0 fe:00:42 0 EOF
            2: -> FLOCK  ADVISORY  WRITE 1234 fe:00:42 0 EOF
            3: FLOCK  ADVISORY  WRITE 1722 fe:00:16312625 0 EOF
            4: FLOCK  ADVISORY  WRITE 1800 fe:00:42 0 EOF

            """
        #expect(LockHolder.holderPID(inProcLocks: text, key: "fe:00:16312625") == 1722)
        // The POSIX lock, the holder in another PID namespace (0) and the waiter are passed over.
        #expect(LockHolder.holderPID(inProcLocks: text, key: "fe:00:42") == 1800)
        #expect(LockHolder.holderPID(inProcLocks: text, key: "fe:00:43") == nil)
    }

    /// btrfs: `stat` names a subvolume's own device, `/proc/locks` the file system's. The one
    /// holder of the inode is taken; two holders of that inode number name nobody.
    @Test func aHolderIsFoundByInodeWhenTheDevicesDisagree() {
        let one = "1: FLOCK  ADVISORY  WRITE 1722 00:2f:256 0 EOF\n"
        #expect(LockHolder.holderPID(inProcLocks: one, key: "00:31:256") == 1722)
        let two = one + "2: FLOCK  ADVISORY  WRITE 1800 00:30:256 0 EOF\n"
        #expect(LockHolder.holderPID(inProcLocks: two, key: "00:31:256") == nil)
        #expect(LockHolder.holderPID(inProcLocks: two, key: "00:30:256") == 1800)
    }

    /// The start time is field 22 of `/proc/PID/stat`, counted after the command's last `)`.
    @Test func runningTimeFromStat() {
        // Fields 3 to 52; the name holds a `) ` of its own.
        let stat = "4242 (a) b (c) " + (3...52).map { $0 == 22 ? "25000" : "1" }.joined(separator: " ")
        #expect(LockHolder.runningTime(stat: stat, uptime: "312.50 900.00\n", ticksPerSecond: 100) == .milliseconds(62_500))
        #expect(LockHolder.runningTime(stat: "4242 (x", uptime: "1.0 1.0", ticksPerSecond: 100) == nil)
        #expect(LockHolder.runningTime(stat: stat, uptime: "", ticksPerSecond: 100) == nil)
    }

    @Test func holderDescriptions() {
        #expect(LockHolder(pid: 7, command: "jobrun", runningFor: .seconds(3 * 3600 + 125)).description == "pid 7 (jobrun, running for 3h 2m)")
        #expect(LockHolder(pid: 7, command: nil, runningFor: .seconds(65)).description == "pid 7 (running for 1m 5s)")
        #expect(LockHolder(pid: 7, command: "cron", runningFor: nil).description == "pid 7 (cron)")
        #expect(LockHolder(pid: 7).description == "pid 7")
        #expect(LockHolder(pid: 7, command: "jobrun", runningFor: .seconds(41), runID: "ci-42").description == "pid 7 (jobrun, run ci-42, running for 41s)")
    }
}
