import JobrunSystem
import JobrunTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// When a look at a file proves that a later write changes its identity: the rule on made-up
/// times, which file systems get the kernel's tick, and the kernel keeping to the rule.
@Suite struct TimeStepTests {
    static func file(ctime: Int64, device: UInt64 = 1) -> FileIdentity {
        FileIdentity(device: device, inode: 2, size: 3, mtimeNanoseconds: ctime, ctimeNanoseconds: ctime)
    }

    @Test func twoTicksPastTheStampsUnit() {
        let step = TimeStep(tick: 4_000_000)
        #expect(step.settlesAt(Self.file(ctime: 5_123_456_789)) == 5_123_456_789 + 1 + 8_000_000)
        // exFAT stamps in 10 ms: a stamp rounded down by up to that much.
        #expect(step.settlesAt(Self.file(ctime: 5_120_000_000)) == 5_120_000_000 + 10_000_000 + 8_000_000)
        // NTFS and SMB in 100 ns.
        #expect(step.settlesAt(Self.file(ctime: 5_123_456_700)) == 5_123_456_700 + 100 + 8_000_000)
        // Whole seconds (FAT's two among them): two seconds, whatever the tick.
        #expect(step.settlesAt(Self.file(ctime: 7_000_000_000)) == 9_000_000_000)
        #expect(TimeStep.conservative.settlesAt(Self.file(ctime: 5_123_456_789)) == 5_123_456_789 + 1 + 50_000_000)
        let file = Self.file(ctime: 5_123_456_789)
        #expect(!file.isSettled(at: 5_131_456_789, step: step) && file.isSettled(at: 5_131_456_790, step: step))
        #expect(!file.isSettled(at: 5_131_456_790), "the conservative step by default")
    }

    /// A root's own file system gets its step; a file on another device (a mount below the root)
    /// the conservative one; a root that cannot be looked at, the conservative one for all.
    @Test func aRootsStepsByDevice() throws {
        let directory = try TemporaryDirectory(prefix: "timestep")
        defer { directory.remove() }
        let steps = RootTimeSteps.of(root: directory.path)
        var status = stat()
        try #require(stat(directory.path, &status) == 0)
        #expect(steps.device == UInt64(truncatingIfNeeded: status.st_dev))
        #expect(steps.step(for: Self.file(ctime: 1, device: steps.device ?? 0)) == steps.step)
        #expect(steps.step(for: Self.file(ctime: 1, device: (steps.device ?? 0) &+ 1)) == .conservative)
        #expect(RootTimeSteps.of(root: directory.path("missing")) == .conservative)
        #if os(Linux)
        // procfs is not a file system whose times the kernel's coarse clock stamps for writes.
        #expect(RootTimeSteps.of(root: "/proc").step == .conservative)
        // tmpfs is: its step is two ticks of that clock.
        var resolution = timespec()
        var shm = stat()
        if clock_getres(CLOCK_REALTIME_COARSE, &resolution) == 0, stat("/dev/shm", &shm) == 0 {
            let tick = Int64(resolution.tv_sec) * 1_000_000_000 + Int64(resolution.tv_nsec)
            #expect(RootTimeSteps.of(root: "/dev/shm").step == (tick <= 25_000_000 ? TimeStep(tick: tick) : .conservative))
        }
        #endif
    }

    /// The kernel keeps to the rule: on a local file system, a write at or after the instant the
    /// step gives changes the change time, every time (the write is the same size, so only the
    /// times can tell it).
    @Test func aWriteAfterTheStepChangesTheChangeTime() throws {
        let directory = try TemporaryDirectory(prefix: "timestep")
        defer { directory.remove() }
        let steps = RootTimeSteps.of(root: directory.path)
        let path = try directory.write(file: "f", contents: "0")
        let fd = open(path, O_WRONLY | O_CLOEXEC)
        try #require(fd >= 0)
        defer { close(fd) }
        for round in 0..<40 {
            var before = stat()
            try #require(pwrite(fd, "a", 1, 0) == 1 && fstat(fd, &before) == 0)
            let identity = FileIdentity(before)
            let settles = steps.step(for: identity).settlesAt(identity)
            // The clock is what is tested: read it until the instant comes (a few ms).
            while FileIdentity.now() < settles {}
            var after = stat()
            try #require(pwrite(fd, "b", 1, 0) == 1 && fstat(fd, &after) == 0)
            #expect(FileIdentity(after).ctimeNanoseconds > identity.ctimeNanoseconds, "round \(round): \(steps.step)")
            if FileIdentity(after).ctimeNanoseconds <= identity.ctimeNanoseconds { break }
        }
    }
}
